package plainjson

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestMarshalKeepsHTMLCharacters(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"STU#a91", `"STU#a91"`},
		{"a < b && c > d", `"a < b && c > d"`},
		{map[string]any{"<k>": []any{1, "&"}}, `{"<k>":[1,"&"]}`},
		{"line\nbreak \u2028", `"line\nbreak \u2028"`},
		{nil, `null`},
	} {
		got, err := Marshal(c.v)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", c.v, err)
		}
		if string(got) != c.want {
			t.Errorf("Marshal(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestMarshalRefusesWhatJSONRefuses(t *testing.T) {
	_, err := Marshal(make(chan int))
	var unsupported *json.UnsupportedTypeError
	if !errors.As(err, &unsupported) {
		t.Fatalf("Marshal(chan) = %v, want a *json.UnsupportedTypeError", err)
	}
}
