package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

// js decodes one wire-JSON value for test fixtures.
func js(t testing.TB, s string) attr.Value {
	t.Helper()
	v, err := attr.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// item decodes a wire-JSON item for test fixtures.
func item(t testing.TB, s string) attr.Item {
	t.Helper()
	it, err := attr.UnmarshalItem([]byte(s))
	if err != nil {
		t.Fatalf("decode item %s: %v", s, err)
	}
	return it
}

// env builds an Env from names and JSON-encoded values.
func env(t testing.TB, names map[string]string, values map[string]string) *Env {
	t.Helper()
	var vals map[string]attr.Value
	if values != nil {
		vals = make(map[string]attr.Value, len(values))
		for k, s := range values {
			vals[k] = js(t, s)
		}
	}
	e, err := NewEnv(names, vals)
	if err != nil {
		t.Fatalf("NewEnv: %v", err)
	}
	return e
}

// parseErrCase is an expression and the message its parse must fail with.
type parseErrCase struct{ expr, want string }

// wantParseErrors fails for each case whose parse does not fail with
// exactly its message; fn names the parser in failures.
func wantParseErrors(t *testing.T, fn string, parse func(expr string) error, cases []parseErrCase) {
	t.Helper()
	for _, c := range cases {
		if got := errMsg(parse(c.expr)); got != c.want {
			t.Errorf("%s(%q)\n got: %s\nwant: %s", fn, c.expr, got, c.want)
		}
	}
}

func errMsg(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := err.(*Error); ok {
		return e.Msg
	}
	return "non-expr error: " + err.Error()
}
