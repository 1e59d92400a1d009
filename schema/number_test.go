package schema

import (
	"fmt"
	"regexp"
	"strings"
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

// numberInputs are number texts of every shape ParseNumber meets: signs,
// dots and exponents in every arrangement, spaces TrimSpace does and does
// not remove, digits other than ASCII's, and texts at and over the limits.
func numberInputs() []string {
	in := []string{
		"", " ", "0", "-0", "+0", "00", "0.", ".0", "-.0", "+.", "-.", ".", "..", "0..", "..0", "0.0.0",
		"1", "+1", "-1", "++1", "+-1", "-+1", "--1", "1+", "1-", "1.", "-1.", "+1.", ".1", "-.1", "+.1",
		"1e", "1e+", "1e-", "1e1", "1E1", "1e+1", "1e-1", "1e++1", "1e+-1", "1ee1", "1e1e1", "1e1.", "1e1.5", "1.e1", ".e1", "e1", "E1", "-e1",
		".1e1", "1.1e1", "1.1E-01", "0e0", "0e999999999999999999999", "1e999999999999999999999", "1e-999999999999999999999",
		"1e9223372036854775807", "1e-9223372036854775808", "1e9223372036854775808", "0.0e-9223372036854775808",
		" 1", "1 ", " 1 ", "\t1\n", "1\t", "\v1\f", "\r\n1\r\n", "\u00a01\u00a0", "\u00851", "\u20281", "\u30001", "\ufeff1", "1\u200b",
		"1 2", "1 .5", "1. 5", "1 e5", "1e 5", "- 1", "1,5", "1_000", "0x10", "0b1", "0o7", "1/2", "Inf", "-Inf", "Infinity", "NaN", "nan",
		"\u0663", "1\u0663", "\uff11", "\u00b9", "\u2460", "1\x00", "\x001", "\xff", "1\xff", "\xef\xbc\x91",
		"9.9999999999999999999999999999999999999e125", "1e126", "1e125", "1e-130", "1e-131", "10e-131", "0.1e-129", "0.01e-129",
		"12345678901234567890123456789012345678", "123456789012345678901234567890123456789", "1234567890123456789012345678901234567800",
		"0.00000000000000000000000000000000000000012345678901234567890123456789012345678", "00000000000000000000000000000000000000000001",
		"1." + strings.Repeat("0", 200), strings.Repeat("9", 39), strings.Repeat("0", 1000) + "1", "1" + strings.Repeat("0", 125), "1" + strings.Repeat("0", 126),
		"-" + strings.Repeat("1", 38) + "e87", "-" + strings.Repeat("1", 38) + "e88", strings.Repeat("1", 100000), "." + strings.Repeat("0", 100000) + "1",
	}
	// Every text of one to three of these pieces.
	pieces := []string{"0", "1", ".", "e", "E", "+", "-", " "}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		if n == 0 {
			return
		}
		for _, p := range pieces {
			in = append(in, prefix+p)
			grow(prefix+p, n-1)
		}
	}
	grow("", 3)
	return in
}

// TestParseNumberVerdicts holds ParseNumber to testdata/numbers.golden: the
// number or the error it gives for each of numberInputs.
func TestParseNumberVerdicts(t *testing.T) {
	var b strings.Builder
	for _, s := range numberInputs() {
		n, err := ParseNumber(s)
		if err != nil {
			fmt.Fprintf(&b, "%q\terror: %s\n", clip(s), err)
			continue
		}
		fmt.Fprintf(&b, "%q\t%q\n", clip(s), clip(string(n)))
	}
	golden(t, "numbers.golden", []byte(b.String()))
}
