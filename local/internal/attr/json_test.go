package attr

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	in := `{"b":{"B":"AAEC"},"bool":{"BOOL":false},"bs":{"BS":["AQ==","Ag=="]},"l":{"L":[{"S":"x"},{"N":"1"}]},"m":{"M":{"inner":{"NULL":true}}},"n":{"N":"-1.5"},"ns":{"NS":["1","2.5"]},"s":{"S":"h\u00e9\"\n"},"ss":{"SS":["a","b"]}}`
	it, err := UnmarshalItem([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := it["b"].Bytes; len(got) != 3 || got[2] != 2 {
		t.Errorf("binary = %v", got)
	}
	if it["s"].Str != "hé\"\n" {
		t.Errorf("string = %q", it["s"].Str)
	}
	out, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalItem(out)
	if err != nil {
		t.Fatal(err)
	}
	if !EqualItems(it, back) {
		t.Errorf("round trip changed item:\n%s", out)
	}
	// encoding/json agrees with our string escaping
	var generic map[string]map[string]any
	if err := json.Unmarshal(out, &generic); err != nil || generic["s"]["S"] != "hé\"\n" {
		t.Errorf("std decode of our output: %v %v", err, generic["s"])
	}
}

func TestJSONCanonicalNumbers(t *testing.T) {
	v, err := Decode([]byte(`{"N":"1.50"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := v.MarshalJSON()
	if string(b) != `{"N":"1.5"}` {
		t.Errorf("got %s", b)
	}
}

func TestJSONValidation(t *testing.T) {
	cases := map[string]string{
		`{}`:                     "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
		`{"S":null}`:             "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
		`{"S":"a","N":"1"}`:      "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
		`{"NS":[]}`:              "One or more parameter values were invalid: An number set  may not be empty",
		`{"SS":[]}`:              "One or more parameter values were invalid: An string set  may not be empty",
		`{"BS":[]}`:              "One or more parameter values were invalid: Binary sets should not be empty",
		`{"SS":["a","a"]}`:       "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
		`{"BS":["Yg==","Yg=="]}`: "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates.",
		`{"NS":["1","1.0"]}`:     "Input collection contains duplicates",
		`{"N":""}`:               "The parameter cannot be converted to a numeric value",
		`{"S":"a","N":"b"}`:      "The parameter cannot be converted to a numeric value: b",
		`{"NULL":false}`:         "One or more parameter values were invalid: Null attribute value types must have the value of true",
		`{"N":"x"}`:              "The parameter cannot be converted to a numeric value: x",
		`{"NS":["1","y"]}`:       "The parameter cannot be converted to a numeric value: y",
		`{"M":{"a":{}}}`:         "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
		`{"L":[{"NULL":false}]}`: "One or more parameter values were invalid: Null attribute value types must have the value of true",
		`{"N":"1E126"}`:          "Number overflow. Attempting to store a number with magnitude larger than supported range",
	}
	for in, want := range cases {
		_, err := Decode([]byte(in))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Msg != want {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
	for _, bad := range []string{`{"S":1}`, `{"X":"a"}`, `{"B":"!!"}`, `{"S":"a"`, `[]`, `{"BOOL":"true"}`, `{"S":"a"} x`} {
		_, err := Decode([]byte(bad))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%s) = %v, want *SyntaxError", bad, err)
		}
	}
}

func TestJSONInsideStruct(t *testing.T) {
	var req struct {
		Item Item
		Key  map[string]Value
	}
	err := json.Unmarshal([]byte(`{"Item":{"pk":{"S":"a"}},"Key":{"k":{"N":"2"}}}`), &req)
	if err != nil {
		t.Fatal(err)
	}
	if req.Item["pk"].Str != "a" || req.Key["k"].Str != "2" || req.Key["k"].Kind != N {
		t.Errorf("decoded %#v", req)
	}
}

func TestExprValuesNamesKey(t *testing.T) {
	var req struct{ ExpressionAttributeValues ExprValues }
	err := json.Unmarshal([]byte(`{"ExpressionAttributeValues":{":ok":{"S":"x"},":b":{"SS":[]}}}`), &req)
	var ve *ValidationError
	want := "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :b"
	if !errors.As(err, &ve) || ve.Msg != want {
		t.Fatalf("got %v", err)
	}
	if err := json.Unmarshal([]byte(`{"ExpressionAttributeValues":{":ok":{"S":"x"}}}`), &req); err != nil || req.ExpressionAttributeValues[":ok"].Str != "x" {
		t.Fatalf("got %v %v", err, req)
	}
}

func TestDecodeRejectsMalformedObjects(t *testing.T) {
	for _, bad := range []string{`{"a":{"S":"x"},}`, `{,}`, `{"a" {"S":"x"}}`, `{"a":{"S":"x"}`} {
		if _, err := UnmarshalItem([]byte(bad)); err == nil {
			t.Errorf("UnmarshalItem(%s) succeeded", bad)
		}
		var ev ExprValues
		if err := ev.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("ExprValues(%s) succeeded", bad)
		}
	}
	for _, bad := range []string{`{"L":[{"S":"x"},]}`, `{"SS":["a",]}`, `{"S":"a",}`, `{"S\u0022":"a"}`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) succeeded", bad)
		}
	}
	if v, err := Decode([]byte(`{"\u0053":"escaped key"}`)); err != nil || v.Kind != S {
		t.Errorf("escaped type key: %v %v", v, err)
	}
	if v, err := Decode([]byte(` { "S" : "spaced" } `)); err != nil || v.Str != "spaced" {
		t.Errorf("whitespace: %v %v", v, err)
	}
}

func TestNestingLimit(t *testing.T) {
	deep := func(wraps int) string {
		s := `{"S":"leaf"}`
		for range wraps {
			s = `{"M":{"n":` + s + `}}`
		}
		return s
	}
	v, err := Decode([]byte(deep(31)))
	if err != nil {
		t.Fatalf("31 wraps (leaf at level 32) must be accepted: %v", err)
	}
	if Depth(v) != 32 {
		t.Errorf("Depth = %d, want 32", Depth(v))
	}
	_, err = UnmarshalItem([]byte(`{"a":` + deep(32) + `}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Msg != ErrNesting {
		t.Errorf("32 wraps: %v", err)
	}
	var ev ExprValues
	if err := ev.UnmarshalJSON([]byte(`{":d":` + deep(32) + `}`)); !errors.As(err, &ve) || ve.Msg != ErrNesting {
		t.Errorf("32 wraps in ExpressionAttributeValues: %v", err)
	}
}
