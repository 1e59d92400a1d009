package attr

import "testing"

// mustParse returns parse(s) for a test's literal fixture, failing the test
// at once if s does not parse.
func mustParse[T any](t testing.TB, parse func(string) (T, error), s string) T {
	t.Helper()
	v, err := parse(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// decodeText is Decode of wire JSON written as a string.
func decodeText(s string) (Value, error) { return Decode([]byte(s)) }
