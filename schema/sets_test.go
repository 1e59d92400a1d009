package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

var setAttrs = []Attribute{
	{"name", KindString}, {"credits", KindNumber}, {"active", KindBool},
	{"on", KindDate}, {"at", KindDatetime}, {"tags", KindStrings},
}

func TestParseSets(t *testing.T) {
	got, err := (&Schema{}).ParseSets(setAttrs, []string{
		"name=Ana = B", "credits=-1.5e3", "active=true", "on=2025-09-01",
		"at=2025-09-01T10:00:00.5+02:00", "tags= a, b,a ,,c",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "Ana = B", "credits": Number("-1.5e3"), "active": true, "on": "2025-09-01",
		"at": "2025-09-01T10:00:00.5+02:00", "tags": []string{"a", "b", "c"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSets = %#v\nwant %#v", got, want)
	}
	if got, err := (&Schema{}).ParseSets(setAttrs, []string{"name="}); err != nil || got["name"] != "" {
		t.Errorf("empty string: %v %v", got, err)
	}
	if got, err := (&Schema{}).ParseSets(setAttrs, nil); err != nil || len(got) != 0 {
		t.Errorf("no sets: %v %v", got, err)
	}
}

func TestParseSetsErrors(t *testing.T) {
	cases := []struct{ set, msg string }{
		{"name", `--set "name": expected name=value`},
		{"=x", "expected name=value"},
		{"PK=STU#x", "PK is a key attribute adjl manages"},
		{"type=student", "type is a key attribute"},
		{"GSI1SK=x", "GSI1SK is a key attribute"},
		{"nmae=x", `unknown attribute "nmae"; declared: name (string), credits (number)`},
		{"credits=ten", `credits is a number: "ten" is not a number`},
		{"credits=NaN", "is not a number"},
		{"credits=1e126", "outside DynamoDB's number range"},
		{"active=maybe", `active is a bool: "maybe" is not a boolean: give true or false (1, t, T, TRUE, True, 0, f, F, FALSE and False are read too)`},
		{"on=2025-13-01", "is not a date like 2025-09-01"},
		{"on=01/09/2025", "is not a date"},
		{"at=2025-09-01 10:00", "is not an RFC 3339 time"},
		{"tags=,", "has no elements"},
		{"tags=", `--set "tags=": tags is a set of strings: "" has no elements; DynamoDB string sets cannot be empty (give a,b,c, or --unset tags to remove the attribute)`},
		{"name=a\xffb", `--set "name=a\xffb": byte 0xFF at position 7 is not UTF-8`},
		{"tags=ok,\xc3", "byte 0xC3 at position 9 is not UTF-8"},
		{"na\x80me=x", "byte 0x80 at position 3 is not UTF-8"},
	}
	for _, tc := range cases {
		_, err := (&Schema{}).ParseSets(setAttrs, []string{tc.set})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Error(), tc.msg) {
			t.Errorf("ParseSets(%q) = %v, want *InputError containing %q", tc.set, err, tc.msg)
		}
	}
	_, err := (&Schema{}).ParseSets(setAttrs, []string{"name=a", "name=b"})
	if err == nil || !strings.Contains(err.Error(), "name is set twice") {
		t.Errorf("set twice: %v", err)
	}
	_, err = (&Schema{}).ParseSets(nil, []string{"x=1"})
	if err == nil || !strings.Contains(err.Error(), "declared: (none)") {
		t.Errorf("no attributes: %v", err)
	}
}

func TestParseNumber(t *testing.T) {
	ok := []string{"0", "-0", "+7", "3.", ".5", "0.000", "1e125", "9.9999e125", "1E-130", "0.00001e-125",
		"12345678901234567890123456789012345678", "1234567890123456789012345678901234567800000",
		"0.000000000000000000000000000000000000000000000012345678901234567890123456789012345678"}
	for _, s := range ok {
		if n, err := ParseNumber(s); err != nil || string(n) != s {
			t.Errorf("ParseNumber(%q) = %q, %v", s, n, err)
		}
	}
	bad := []string{"", "-", ".", "1e", "e5", "0x10", "1,5", "Infinity", "1e126", "10e125", "1e-131", "0.1e-130",
		"123456789012345678901234567890123456789", "1e99999999999999999999", "1e-9223372036854775808"}
	for _, s := range bad {
		if n, err := ParseNumber(s); err == nil {
			t.Errorf("ParseNumber(%q) = %q, want error", s, n)
		}
	}
}

func TestParseValueUnknownKind(t *testing.T) {
	if _, err := ParseValue("blob", "x"); err == nil {
		t.Error("unknown kind accepted")
	}
	if v, err := ParseValue(KindBool, "false"); err != nil || v != false {
		t.Errorf("ParseValue(bool, false) = %v, %v", v, err)
	}
}

// TestBoolSpellingsAreThoseTheMessageNames: every spelling the error message
// (and docs/usage.md) lists is read, as the value it spells, and nothing close
// to them is.
func TestBoolSpellingsAreThoseTheMessageNames(t *testing.T) {
	spellings := strings.Split(strings.ReplaceAll(boolSpellings, " and ", ", "), ", ")
	if len(spellings) != 10 {
		t.Fatalf("spellings %q", spellings)
	}
	for _, s := range append(spellings, "true", "false", " true ") {
		v, err := ParseValue(KindBool, s)
		want := strings.ContainsAny(strings.TrimSpace(s)[:1], "1tT")
		if err != nil || v != want {
			t.Errorf("%q: %v, %v (want %v)", s, v, err, want)
		}
	}
	for _, s := range []string{"yes", "no", "y", "on", "2", "tRUE", ""} {
		if _, err := ParseValue(KindBool, s); err == nil || !strings.Contains(err.Error(), boolSpellings) {
			t.Errorf("%q: %v", s, err)
		}
	}
}
