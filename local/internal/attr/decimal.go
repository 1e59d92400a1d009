package attr

import (
	"math/big"
	"strings"
)

// DynamoDB's number limits: magnitudes from 1E-130 to 9.99…E+125 with at
// most 38 significant digits. In Decimal's 0.d1d2… × 10^Exp form these are
// Exp in [minExp, maxExp].
const (
	maxDigits = 38
	minExp    = -129
	maxExp    = 126
)

// Decimal is an exact decimal number: value = (-1)^Neg × 0.Digits × 10^Exp.
// Digits holds ASCII significant digits with no leading or trailing zeros;
// zero has empty Digits, Exp 0 and Neg false. Keeping numbers as digit
// strings avoids float rounding and makes canonical output trivial.
type Decimal struct {
	Neg    bool
	Digits string
	Exp    int
}

// IsZero reports whether d is zero.
func (d Decimal) IsZero() bool { return d.Digits == "" }

func numErr(s string) error {
	const msg = "The parameter cannot be converted to a numeric value"
	if s == "" {
		return layered(msg, msg+": ") // the current layer keeps the colon
	}
	return layered(msg+": "+s, msg+": "+s)
}

// ParseDecimal parses a DynamoDB number (optional sign, digits, optional
// fraction, optional exponent) and enforces DynamoDB's range and precision.
func ParseDecimal(s string) (Decimal, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return Decimal{}, err
	}
	return d, d.check()
}

func parseDecimal(s string) (Decimal, error) {
	var d Decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.Neg = s[i] == '-'
		i++
	}
	start := i
	var digits []byte
	var buf [48]byte
	digits = buf[:0]
	intDigits := 0 // digits before the point, after dropping leading zeros
	seenDigit, seenPoint, seenNonZero := false, false, false
	leadingFracZeros := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			seenDigit = true
			if c == '0' && !seenNonZero {
				if seenPoint {
					leadingFracZeros++
				}
				continue
			}
			seenNonZero = true
			digits = append(digits, c)
			if !seenPoint {
				intDigits++
			}
			continue
		}
		if c == '.' && !seenPoint {
			seenPoint = true
			continue
		}
		break
	}
	if !seenDigit || i == start {
		return Decimal{}, numErr(s)
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return Decimal{}, numErr(s)
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return Decimal{}, numErr(s)
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return Decimal{}, numErr(s)
			}
			if exp < 1_000_000 {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// strip trailing zeros
	n := len(digits)
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	digits = digits[:n]
	if n == 0 {
		return Decimal{}, nil
	}
	if intDigits > 0 {
		d.Exp = intDigits + exp
	} else {
		d.Exp = -leadingFracZeros + exp
	}
	d.Digits = string(digits)
	return d, nil
}

// check enforces DynamoDB's precision and range on a parsed decimal.
func (d Decimal) check() error {
	if d.IsZero() {
		return nil
	}
	if len(d.Digits) > maxDigits {
		return layered("Attempting to store more than 38 significant digits in a Number", "Attempting to store more than 38 significant digits in a Number")
	}
	if d.Exp > maxExp {
		return layered("Number overflow. Attempting to store a number with magnitude larger than supported range", "Number overflow. Attempting to store a number with magnitude larger than supported range")
	}
	if d.Exp < minExp {
		return layered("Number underflow. Attempting to store a number with magnitude smaller than supported range", "Number underflow. Attempting to store a number with magnitude smaller than supported range")
	}
	return nil
}

// String returns the canonical plain notation DynamoDB returns: no exponent,
// no leading or trailing zeros, "0" for zero.
func (d Decimal) String() string {
	if d.IsZero() {
		return "0"
	}
	var sb strings.Builder
	sb.Grow(len(d.Digits) + 4)
	if d.Neg {
		sb.WriteByte('-')
	}
	switch {
	case d.Exp <= 0:
		sb.WriteString("0.")
		for i := 0; i < -d.Exp; i++ {
			sb.WriteByte('0')
		}
		sb.WriteString(d.Digits)
	case d.Exp < len(d.Digits):
		sb.WriteString(d.Digits[:d.Exp])
		sb.WriteByte('.')
		sb.WriteString(d.Digits[d.Exp:])
	default:
		sb.WriteString(d.Digits)
		for i := len(d.Digits); i < d.Exp; i++ {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}

// Cmp compares two decimals numerically: -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	c := cmpMagnitude(d, e)
	if d.Neg {
		return -c
	}
	return c
}

func (d Decimal) sign() int {
	switch {
	case d.IsZero():
		return 0
	case d.Neg:
		return -1
	}
	return 1
}

func cmpMagnitude(d, e Decimal) int {
	if d.Exp != e.Exp {
		if d.Exp < e.Exp {
			return -1
		}
		return 1
	}
	return strings.Compare(d.Digits, e.Digits)
}

// Negate returns -d; subtraction is addition of the negation.
func (d Decimal) Negate() Decimal {
	if !d.IsZero() {
		d.Neg = !d.Neg
	}
	return d
}

// Add returns d+e exactly, then checks DynamoDB's range and precision so an
// update that would store an unrepresentable number fails like DynamoDB.
func (d Decimal) Add(e Decimal) (Decimal, error) {
	if d.IsZero() {
		return e, e.check()
	}
	if e.IsZero() {
		return d, d.check()
	}
	// scale: value = int(Digits) × 10^(Exp-len(Digits))
	ds, es := d.Exp-len(d.Digits), e.Exp-len(e.Digits)
	scale := min(ds, es)
	a := d.bigInt(ds - scale)
	b := e.bigInt(es - scale)
	a.Add(a, b)
	r := fromBig(a, scale)
	return r, r.check()
}

// Sub returns d-e exactly (see Add).
func (d Decimal) Sub(e Decimal) (Decimal, error) { return d.Add(e.Negate()) }

func (d Decimal) bigInt(shift int) *big.Int {
	var sb strings.Builder
	sb.Grow(len(d.Digits) + shift + 1)
	if d.Neg {
		sb.WriteByte('-')
	}
	sb.WriteString(d.Digits)
	for range shift {
		sb.WriteByte('0')
	}
	z, _ := new(big.Int).SetString(sb.String(), 10)
	return z
}

// fromBig builds a Decimal from i × 10^scale.
func fromBig(i *big.Int, scale int) Decimal {
	s := i.String()
	var d Decimal
	if s[0] == '-' {
		d.Neg = true
		s = s[1:]
	}
	if s == "0" {
		return Decimal{}
	}
	n := len(s)
	for n > 0 && s[n-1] == '0' {
		n--
	}
	d.Digits = s[:n]
	d.Exp = len(s) + scale
	return d
}

// CompareNumbers compares two canonical (or any valid) number strings.
func CompareNumbers(a, b string) int {
	if a == b {
		return 0
	}
	da, _ := parseDecimal(a)
	db, _ := parseDecimal(b)
	return da.Cmp(db)
}
