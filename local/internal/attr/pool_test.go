package attr

import "testing"

func TestItemPoolDecodesFreshItems(t *testing.T) {
	var p ItemPool
	wide := `{"a":{"S":"1"},"b":{"N":"2"},"c":{"M":{"d":{"S":"x"}}}}`
	narrow := `{"z":{"BOOL":true}}`
	for round := range 50 { // the pool hands back earlier maps at some point
		src := wide
		if round%2 == 1 {
			src = narrow
		}
		got, end, err := p.DecodeItemAt(src, 0)
		if err != nil || end != len(src) {
			t.Fatalf("round %d: end %d err %v", round, end, err)
		}
		want, err := UnmarshalItem([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if !EqualItems(got, want) {
			t.Fatalf("round %d: decoded %v, want %v (an attribute of a recycled map survived?)", round, got, want)
		}
		p.Put(got)
		if len(got) != 0 {
			t.Fatalf("round %d: Put left %d attributes in the map", round, len(got))
		}
	}
}

func TestItemPoolErrorsLikeDecodeItemAt(t *testing.T) {
	var p ItemPool
	for _, src := range []string{`{"a":{"S":"1"},"b":{"X":"2"}}`, `{"a":{"N":"x"}}`, `{"a":`} {
		_, _, perr := p.DecodeItemAt(src, 0)
		_, _, err := DecodeItemAt(src, 0)
		if perr == nil || err == nil || perr.Error() != err.Error() {
			t.Errorf("%s: pool error %v, plain error %v", src, perr, err)
		}
	}
}

func TestItemPoolDropsWideMaps(t *testing.T) {
	var p ItemPool
	wide := Item{}
	for i := range maxPooledAttrs + 1 {
		wide[string(rune('a'+i%26))+string(rune('a'+i/26))] = String("v")
	}
	p.Put(wide)
	if len(wide) != maxPooledAttrs+1 {
		t.Fatalf("a map wider than maxPooledAttrs was cleared (pooled): len %d", len(wide))
	}
}
