package attr

import "testing"

func TestCompareAndEqual(t *testing.T) {
	v := func(s string) Value { return mustParse(t, decodeText, s) }
	cmp := []struct {
		a, b string
		want int
	}{
		{`{"S":"a"}`, `{"S":"b"}`, -1},
		{`{"S":"B"}`, `{"S":"a"}`, -1}, // byte order, not case-folded
		{`{"S":"é"}`, `{"S":"z"}`, 1},  // UTF-8 bytes: 0xC3 > 'z'
		{`{"N":"-10"}`, `{"N":"9"}`, -1},
		{`{"N":"1.50"}`, `{"N":"1.5"}`, 0},
		{`{"N":"1E3"}`, `{"N":"999.99"}`, 1},
		{`{"B":"/w=="}`, `{"B":"AA=="}`, 1}, // unsigned bytes
		{`{"B":"AA=="}`, `{"B":"AAA="}`, -1},
	}
	for _, c := range cmp {
		if got := Compare(v(c.a), v(c.b)); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(v(c.b), v(c.a)); got != -c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	eq := []struct {
		a, b string
		want bool
	}{
		{`{"SS":["a","b"]}`, `{"SS":["b","a"]}`, true},
		{`{"SS":["a","b"]}`, `{"SS":["a"]}`, false},
		{`{"NS":["1","2.0"]}`, `{"NS":["2","1.00"]}`, true},
		{`{"BS":["AQ==","Ag=="]}`, `{"BS":["Ag==","AQ=="]}`, true},
		{`{"L":[{"S":"a"},{"N":"1"}]}`, `{"L":[{"N":"1"},{"S":"a"}]}`, false},
		{`{"M":{"a":{"L":[{"NULL":true}]}}}`, `{"M":{"a":{"L":[{"NULL":true}]}}}`, true},
		{`{"M":{"a":{"N":"1"}}}`, `{"M":{"b":{"N":"1"}}}`, false},
		{`{"S":"1"}`, `{"N":"1"}`, false},
		{`{"BOOL":true}`, `{"BOOL":false}`, false},
	}
	for _, c := range eq {
		if got := Equal(v(c.a), v(c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	it, err := UnmarshalItem([]byte(`{"m":{"M":{"l":{"L":[{"B":"AQ=="}]}}},"ss":{"SS":["a"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := it.Clone()
	c["m"].Map["l"].List[0].Bytes[0] = 9
	c["ss"].Strs[0] = "changed"
	if it["m"].Map["l"].List[0].Bytes[0] != 1 || it["ss"].Strs[0] != "a" {
		t.Error("Clone shares memory with the original")
	}
}

func TestConstructors(t *testing.T) {
	if _, err := NumberSet("1", "1.0"); err == nil || err.Error() != "Input collection contains duplicates" {
		t.Errorf("NumberSet duplicates: %v", err)
	}
	if _, err := StringSet(); err == nil {
		t.Error("empty StringSet accepted")
	}
	if v := Int(-42); v.Kind != N || v.Str != "-42" {
		t.Errorf("Int(-42) = %#v", v)
	}
	if KindOf("BOOL") != BOOL || KindOf("bool") != Invalid || NS.String() != "NS" {
		t.Error("kind names")
	}
}
