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

// ParseNumber validates s as a DynamoDB number.
func ParseNumber(s string) (Number, error) {
	t := strings.TrimSpace(s)
	mant, expText, ok := numberParts(t)
	if !ok {
		return "", fmt.Errorf("%q is not a number", shortKey(s))
	}
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(expText)
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

// numberParts splits t, of the form [+-]?(D+.?D*|.D+)([eE][+-]?D+)? with D
// an ASCII digit, into its mantissa without the sign and its exponent with
// its sign ("" when there is none); ok is false when t has another form.
// A scanner, not a regular expression: imports parse every number cell of
// a file twice, and the expression took most of that time.
func numberParts(t string) (mant, exp string, ok bool) {
	digits := func(i int) int {
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	start := i
	i = digits(i)
	whole := i > start
	if i < len(t) && t[i] == '.' {
		j := digits(i + 1)
		if !whole && j == i+1 {
			return "", "", false // "." with no digit on either side
		}
		i = j
	} else if !whole {
		return "", "", false
	}
	mant = t[start:i]
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := digits(j)
		if k == j {
			return "", "", false
		}
		exp, i = t[i+1:k], k
	}
	return mant, exp, i == len(t)
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
