package schema

import (
	"strings"
	"testing"
)

// TestKeyErrorShortensLongKeys: an oversized key is not echoed whole (a
// 2 KB key made a 2 KB error line); short keys are quoted as typed.
func TestKeyErrorShortensLongKeys(t *testing.T) {
	long := "STU#" + strings.Repeat("é", 1100)
	_, err := (&Entity{Name: "student", Prefix: "STU#"}).Key(long)
	if err == nil {
		t.Fatal("oversized key accepted")
	}
	msg := err.Error()
	want := `key "STU#` + strings.Repeat("é", 36) + `...": key is 2204 bytes, over the 1024-byte limit`
	if !strings.HasPrefix(msg, want) || len(msg) > 200 {
		t.Errorf("got %q\nwant prefix %q", msg, want)
	}
	short := (&KeyError{Input: "CRS#x", Reason: "r", Want: "STU#<id>"}).Error()
	if short != `key "CRS#x": r (expected STU#<id>)` {
		t.Errorf("short key: %q", short)
	}
}

// TestResolveKeyEmptySaysEmpty: `adjl get ""` must say the key is empty, not
// that it lacks a prefix (a review finding).
func TestResolveKeyEmptySaysEmpty(t *testing.T) {
	s, err := Load("../examples/school.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.ResolveKey("")
	if err == nil || !strings.Contains(err.Error(), "empty key") {
		t.Fatalf("ResolveKey(\"\") = %v, want an \"empty key\" error", err)
	}
}
