package attr

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDecimalCanonical(t *testing.T) {
	cases := map[string]string{
		"1.50":     "1.5",
		"-0":       "0",
		"0.000":    "0",
		"1E2":      "100",
		"1e-2":     "0.01",
		"+7":       "7",
		"007.100":  "7.1",
		".5":       "0.5",
		"5.":       "5",
		"-12.3400": "-12.34",
		"1.23E+1":  "12.3",
		"123E-5":   "0.00123",
		"1E-130":   "0." + strings.Repeat("0", 129) + "1",
		"9.9999999999999999999999999999999999999E+125": "99999999999999999999999999999999999999" + strings.Repeat("0", 88),
	}
	for in, want := range cases {
		d, err := ParseDecimal(in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", in, err)
			continue
		}
		if got := d.String(); got != want {
			t.Errorf("ParseDecimal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseDecimalErrors(t *testing.T) {
	cases := map[string]string{
		"":                            "The parameter cannot be converted to a numeric value",
		"abc":                         "The parameter cannot be converted to a numeric value: abc",
		"1.2.3":                       "The parameter cannot be converted to a numeric value: 1.2.3",
		"1e":                          "The parameter cannot be converted to a numeric value: 1e",
		"NaN":                         "The parameter cannot be converted to a numeric value: NaN",
		" 1":                          "The parameter cannot be converted to a numeric value:  1",
		"-":                           "The parameter cannot be converted to a numeric value: -",
		"1E126":                       "Number overflow. Attempting to store a number with magnitude larger than supported range",
		"1E-131":                      "Number underflow. Attempting to store a number with magnitude smaller than supported range",
		"1" + strings.Repeat("2", 38): "Attempting to store more than 38 significant digits in a Number",
	}
	for in, want := range cases {
		_, err := ParseDecimal(in)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Msg != want {
			t.Errorf("ParseDecimal(%q) error = %v, want %q", in, err, want)
		}
	}
	// trailing zeros are not significant digits
	if _, err := ParseDecimal("1" + strings.Repeat("0", 60)); err != nil {
		t.Errorf("large round number: %v", err)
	}
}

func TestDecimalCmpAndAdd(t *testing.T) {
	mustD := func(s string) Decimal { return mustParse(t, ParseDecimal, s) }
	cmp := []struct {
		a, b string
		want int
	}{
		{"1", "2", -1}, {"10", "9", 1}, {"-10", "-9", -1}, {"0", "-0.001", 1},
		{"1.5", "1.50", 0}, {"0.001", "0.0001", 1}, {"-1E5", "1E-5", -1}, {"123", "12.3E1", 0},
	}
	for _, c := range cmp {
		if got := mustD(c.a).Cmp(mustD(c.b)); got != c.want {
			t.Errorf("Cmp(%s,%s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	add := []struct{ a, b, want string }{
		{"1", "2", "3"}, {"0.1", "0.2", "0.3"}, {"-5", "3", "-2"}, {"5", "-5", "0"},
		{"1E10", "1", "10000000001"}, {"-0.5", "-0.25", "-0.75"}, {"99", "1", "100"},
	}
	for _, c := range add {
		got, err := mustD(c.a).Add(mustD(c.b))
		if err != nil || got.String() != c.want {
			t.Errorf("%s+%s = %v, %v; want %s", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := mustD("1E100").Add(mustD("1E-100")); err == nil {
		t.Error("adding numbers 200 orders apart should exceed 38 digits")
	}
	if got, err := mustD("10").Sub(mustD("0.5")); err != nil || got.String() != "9.5" {
		t.Errorf("10-0.5 = %v, %v", got, err)
	}
}
