package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Number is a validated decimal in DynamoDB's number range, kept as text so
// no precision is lost on the way to an N attribute value (convert it with
// attributevalue.Number(n) or types.AttributeValueMemberN{Value: string(n)}).
type Number string

// DynamoDB numbers: up to 38 significant digits, magnitude 1E-130 to 9.99…E+125.
const (
	maxNumberDigits = 38
	minNumberExp    = -130
	maxNumberExp    = 125
)

var numberRE = newLazyRE(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// ParseNumber validates s as a DynamoDB number.
func ParseNumber(s string) (Number, error) {
	t := strings.TrimSpace(s)
	m := numberRE.FindStringSubmatch(t)
	if m == nil {
		return "", fmt.Errorf("%q is not a number", shortKey(s))
	}
	mant := m[1]
	exp := 0
	if m[2] != "" {
		e, err := strconv.Atoi(m[2][1:])
		if err != nil {
			return "", fmt.Errorf("%q has an exponent out of range", shortKey(s))
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return Number(t), nil // zero
	}
	// Scientific exponent of the first significant digit.
	sci := exp + len(intPart) - 1 - (len(intPart+frac) - len(digits))
	digits = strings.TrimRight(digits, "0")
	switch {
	case len(digits) > maxNumberDigits:
		return "", fmt.Errorf("%q has %d significant digits; DynamoDB keeps at most %d", shortKey(s), len(digits), maxNumberDigits)
	case sci > maxNumberExp || sci < minNumberExp:
		return "", fmt.Errorf("%q is outside DynamoDB's number range (1E-130 to 9.9E+125 in magnitude)", shortKey(s))
	}
	return Number(t), nil
}

// Literal is n as a JSON number literal of the same value: DynamoDB reads
// "+3", "3.", ".5" and "007", which JSON does not.
func (n Number) Literal() string {
	s := string(n)
	sign := ""
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = "-", s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	whole, frac, _ := strings.Cut(mant, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	return sign + whole + frac + exp
}
