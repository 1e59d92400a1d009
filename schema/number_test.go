package schema

import (
	"regexp"
	"testing"
)

func TestNumbersWriteAsJSONLiterals(t *testing.T) {
	for in, want := range map[string]string{"3.": "3", "+3": "3", ".5": "0.5", "-.5": "-0.5", "007": "7", "-00.10e+3": "-0.10e+3", "0": "0", "1.e5": "1e5", "12": "12"} {
		if got := Number(in).Literal(); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// numberPattern is the grammar numberParts scans, as a regular expression.
var numberPattern = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// checkNumberParts compares numberParts with numberPattern on s.
func checkNumberParts(t *testing.T, s string) {
	t.Helper()
	mant, exp, ok := numberParts(s)
	m := numberPattern.FindStringSubmatch(s)
	if ok != (m != nil) {
		t.Fatalf("numberParts(%q) ok = %v, the pattern says %v", s, ok, m != nil)
	}
	if !ok {
		return
	}
	wantExp := ""
	if m[2] != "" {
		wantExp = m[2][1:]
	}
	if mant != m[1] || exp != wantExp {
		t.Fatalf("numberParts(%q) = %q, %q; the pattern gives %q, %q", s, mant, exp, m[1], wantExp)
	}
}

func TestNumberPartsMatchTheNumberGrammar(t *testing.T) {
	for _, s := range []string{"", "+", "-", ".", "+.", "-.5", "5.", "5.5", ".5", "..5", "5..", "1e", "1e+", "1e-3", "1E+03", "e5",
		".e5", "5.e5", ".5e5", "1e5e5", "1.2.3", " 1", "1 ", "٣", "0x10", "1,5", "+-1", "1e--1", "007", "-0", "Infinity", "1e5."} {
		checkNumberParts(t, s)
	}
}

func FuzzNumberParts(f *testing.F) {
	for _, s := range []string{"1", "-1.5e+3", ".5", "5.", "e", "+.e", "1e99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(checkNumberParts)
}
