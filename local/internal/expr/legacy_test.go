package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

// TestLegacyComparisons checks every ComparisonOperator against the
// semantics the DynamoDB API reference gives Condition and
// ExpectedAttributeValue: a missing attribute or a value of another type
// does not match, except for NE (true) and NULL.
func TestLegacyComparisons(t *testing.T) {
	it := item(t, `{"n":{"N":"5"},"s":{"S":"hello"},"b":{"B":"aGkgdGhlcmU="},
		"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"N":"4"},{"S":"x"}]},
		"m":{"M":{"k":{"N":"1"}}},"t":{"BOOL":true}}`)
	cases := []struct {
		attr, op string
		vals     []string
		want     bool
	}{
		{"n", "EQ", []string{`{"N":"5.0"}`}, true},
		{"n", "EQ", []string{`{"S":"5"}`}, false},
		{"m", "EQ", []string{`{"M":{"k":{"N":"1"}}}`}, true},
		{"t", "EQ", []string{`{"BOOL":true}`}, true},
		{"ss", "EQ", []string{`{"SS":["b","a"]}`}, true},
		{"zz", "EQ", []string{`{"N":"5"}`}, false},
		{"n", "NE", []string{`{"N":"6"}`}, true},
		{"n", "NE", []string{`{"S":"5"}`}, true},
		{"zz", "NE", []string{`{"N":"5"}`}, true},
		{"n", "NE", []string{`{"N":"5"}`}, false},
		{"n", "LT", []string{`{"N":"6"}`}, true},
		{"n", "LT", []string{`{"N":"5"}`}, false},
		{"n", "LE", []string{`{"N":"5"}`}, true},
		{"n", "GT", []string{`{"N":"4"}`}, true},
		{"n", "GE", []string{`{"N":"6"}`}, false},
		{"n", "GT", []string{`{"S":"4"}`}, false},
		{"s", "LT", []string{`{"S":"z"}`}, true},
		{"zz", "NOT_NULL", nil, false},
		{"n", "NOT_NULL", nil, true},
		{"zz", "NULL", nil, true},
		{"n", "NULL", nil, false},
		{"s", "CONTAINS", []string{`{"S":"ell"}`}, true},
		{"ss", "CONTAINS", []string{`{"S":"b"}`}, true},
		{"ns", "CONTAINS", []string{`{"N":"2"}`}, true},
		{"l", "CONTAINS", []string{`{"N":"4"}`}, true},
		{"b", "CONTAINS", []string{`{"B":"aGVyZQ=="}`}, true},
		{"s", "CONTAINS", []string{`{"N":"1"}`}, false},
		{"zz", "CONTAINS", []string{`{"N":"1"}`}, false},
		{"s", "NOT_CONTAINS", []string{`{"S":"dog"}`}, true},
		{"s", "NOT_CONTAINS", []string{`{"S":"ell"}`}, false},
		{"s", "NOT_CONTAINS", []string{`{"N":"1"}`}, true},
		{"zz", "NOT_CONTAINS", []string{`{"N":"1"}`}, false},
		{"s", "BEGINS_WITH", []string{`{"S":"hell"}`}, true},
		{"b", "BEGINS_WITH", []string{`{"B":"aGk="}`}, true},
		{"n", "BEGINS_WITH", []string{`{"S":"5"}`}, false},
		{"n", "IN", []string{`{"N":"1"}`, `{"N":"5"}`}, true},
		{"n", "IN", []string{`{"N":"1"}`, `{"N":"2"}`}, false},
		{"ns", "IN", []string{`{"N":"1"}`}, false},
		{"n", "BETWEEN", []string{`{"N":"5"}`, `{"N":"9"}`}, true},
		{"n", "BETWEEN", []string{`{"N":"6"}`, `{"N":"9"}`}, false},
		{"zz", "BETWEEN", []string{`{"N":"0"}`, `{"N":"9"}`}, false},
	}
	for _, c := range cases {
		var vals []attr.Value
		for _, v := range c.vals {
			vals = append(vals, js(t, v))
		}
		cond := LegacyCondition([]Comparison{{Attr: c.attr, Op: c.op, Values: vals}}, false)
		if got, _ := cond.Eval(it); got != c.want {
			t.Errorf("%s %s %v = %v, want %v", c.attr, c.op, c.vals, got, c.want)
		}
	}
}

// TestLegacyConditionalOperator: comparisons are ANDed unless OR is asked,
// and the condition reports the attributes it reads.
func TestLegacyConditionalOperator(t *testing.T) {
	it := item(t, `{"a":{"N":"1"},"b":{"N":"2"}}`)
	cs := []Comparison{
		{Attr: "a", Op: "EQ", Values: []attr.Value{js(t, `{"N":"1"}`)}},
		{Attr: "b", Op: "EQ", Values: []attr.Value{js(t, `{"N":"3"}`)}},
	}
	if ok, _ := LegacyCondition(cs, false).Eval(it); ok {
		t.Errorf("AND of a true and a false comparison held")
	}
	or := LegacyCondition(cs, true)
	if ok, _ := or.Eval(it); !ok {
		t.Errorf("OR of a true and a false comparison failed")
	}
	if got := or.Names(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Names() = %v, want [a b]", got)
	}
	// Legacy attribute names are literal: a dot is part of the name.
	dotted := LegacyCondition([]Comparison{{Attr: "x.y", Op: "NOT_NULL"}}, false)
	if ok, _ := dotted.Eval(item(t, `{"x.y":{"N":"1"}}`)); !ok {
		t.Errorf(`NOT_NULL on the attribute named "x.y" failed`)
	}
}

// TestLegacyUpdate applies each AttributeUpdates action the way the API
// reference describes AttributeValueUpdate.
func TestLegacyUpdate(t *testing.T) {
	v := func(s string) *attr.Value { x := js(t, s); return &x }
	old := item(t, `{"k":{"S":"key"},"n":{"N":"10"},"ss":{"SS":["a","b","c"]},
		"l":{"L":[{"N":"1"}]},"gone":{"S":"x"}}`)
	u := LegacyUpdate([]AttributeUpdate{
		{Attr: "p", Action: "PUT", Value: v(`{"S":"new"}`)},
		{Attr: "n", Action: "ADD", Value: v(`{"N":"-3"}`)},
		{Attr: "fresh", Action: "ADD", Value: v(`{"N":"2"}`)},
		{Attr: "ss", Action: "DELETE", Value: v(`{"SS":["a","z"]}`)},
		{Attr: "gone", Action: "DELETE"},
		{Attr: "l", Action: "ADD", Value: v(`{"L":[{"N":"2"}]}`)},
		{Attr: "nl", Action: "ADD", Value: v(`{"L":[{"S":"x"}]}`)},
		{Attr: "ns", Action: "ADD", Value: v(`{"NS":["1"]}`)},
	})
	got, err := u.Apply(old)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := item(t, `{"k":{"S":"key"},"p":{"S":"new"},"n":{"N":"7"},"fresh":{"N":"2"},
		"ss":{"SS":["b","c"]},"l":{"L":[{"N":"1"},{"N":"2"}]},"nl":{"L":[{"S":"x"}]},"ns":{"NS":["1"]}}`)
	if !attr.EqualItems(got, want) {
		t.Errorf("Apply =\n %v\nwant\n %v", got, want)
	}
	if names := u.Names(); len(names) != 8 {
		t.Errorf("Names() = %v, want the 8 updated attributes", names)
	}
	for _, bad := range []AttributeUpdate{
		{Attr: "n", Action: "ADD", Value: v(`{"NS":["1"]}`)},
		{Attr: "ss", Action: "DELETE", Value: v(`{"NS":["1"]}`)},
		{Attr: "n", Action: "ADD", Value: v(`{"L":[]}`)},
	} {
		_, err := LegacyUpdate([]AttributeUpdate{bad}).Apply(old)
		if errMsg(err) != "Type mismatch for attribute to update" {
			t.Errorf("%s %s on %s: err = %q, want the legacy type mismatch", bad.Action, bad.Value, bad.Attr, errMsg(err))
		}
	}
	// Expressions keep their own wording for the same mistake.
	up, err := ParseUpdate("ADD n :v", env(t, nil, map[string]string{":v": `{"NS":["1"]}`}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.Apply(old); errMsg(err) != errBadOperandType.Msg {
		t.Errorf("expression ADD mismatch: %q", errMsg(err))
	}
}
