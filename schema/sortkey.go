package schema

import (
	"fmt"
	"strings"
	"time"
)

// A composite sort key is prefix + value text + SortSeparator + key, where
// the value text orders as the typed value does. For any two edges, the
// byte order of their keys is the order of (value, key):
//
//   - SortSeparator ('#') sorts below every byte a value text holds, so a
//     value that is a prefix of another (2026 and 2026-03, "ab" and "ab!")
//     sorts first, as its value does, and its key never reaches the other
//     value's bytes.
//   - Strings are escaped: every byte up to sortEscape ('$': controls,
//     space, '!', '"', '#', '$') becomes sortEscape and the byte + 0x40,
//     which keeps their order, sorts below every byte left as it is, and
//     leaves the text valid UTF-8. A string's escaped prefix is the prefix
//     of its escaped text, so begins_with on the attribute is begins_with
//     on the key.
//   - Dates are fixed-width and hold no such byte. Datetimes are written in
//     UTC with nine fractional digits, so instants order as their text.
//   - Numbers are a class (0 negative, 1 zero, 2 positive), a fixed-width
//     exponent and the significant digits; negatives complement both and
//     end in '~', so a longer mantissa sorts the right way.
const (
	SortSeparator = "#"
	sortEscape    = '$'
	// sortKeyUTC is the layout of a datetime in a key: UTC, fixed width.
	sortKeyUTC = "2006-01-02T15:04:05.000000000Z"
)

// KeyText is the order-preserving text of a sort value as ParseValue
// returns it for the sort's kind (string, or Number).
func (st *Sort) KeyText(v any) (string, error) {
	switch st.Kind {
	case KindNumber:
		n, ok := v.(Number)
		if !ok {
			return "", fmt.Errorf("%s: want a number, got %T", st.By, v)
		}
		return numberKeyText(n)
	case KindDatetime:
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", fmt.Errorf("%s: %q is not an RFC 3339 time like 2025-09-01T10:00:00Z", st.By, s)
		}
		return t.UTC().Format(sortKeyUTC), nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %T", st.By, v)
	}
	return escapeSortText(s), nil
}

// PrefixText is the key text of values beginning with prefix (strings and
// dates only: begins_with).
func (st *Sort) PrefixText(prefix string) string { return escapeSortText(prefix) }

// NowValue is the value default: now gives a link at t: the date, or the
// instant in UTC with milliseconds (fixed width, so a string attribute
// orders by time too).
func (st *Sort) NowValue(t time.Time) string {
	if st.Kind == KindDate {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func escapeSortText(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] <= sortEscape {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= sortEscape {
			b.WriteByte(sortEscape)
			b.WriteByte(c + 0x40)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// numberExpBias makes every exponent DynamoDB allows (-130 to 125, of the
// first significant digit) three non-negative digits.
const numberExpBias = 500

func numberKeyText(n Number) (string, error) {
	t := strings.TrimSpace(string(n))
	neg := strings.HasPrefix(t, "-")
	mant, expText, ok := numberParts(t)
	if !ok {
		return "", fmt.Errorf("%q is not a number", t)
	}
	exp := 0
	if expText != "" {
		if _, err := fmt.Sscan(expText, &exp); err != nil {
			return "", fmt.Errorf("%q has an exponent out of range", t)
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	digits := strings.TrimLeft(all, "0")
	if digits == "" {
		return "1", nil // zero, whatever its sign
	}
	sci := exp + len(intPart) - 1 - (len(all) - len(digits))
	digits = strings.TrimRight(digits, "0")
	if !neg {
		return fmt.Sprintf("2%03d%s", sci+numberExpBias, digits), nil
	}
	comp := []byte(digits)
	for i, c := range comp {
		comp[i] = '9' - (c - '0')
	}
	return fmt.Sprintf("0%03d%s~", 999-(sci+numberExpBias), comp), nil
}

// CompositeIndexSK is an ordered edge's index sort key: the from prefix
// (which keeps the relation's edges apart from the other items of the
// partition, as unordered keys do), the value text, the separator and the
// from-key.
func (r *Relation) CompositeIndexSK(valueText, fromKey string) string {
	return r.From.Prefix + valueText + SortSeparator + fromKey
}

// ForwardSortKey is an ordered edge's forward index sort key (LSI1SK):
// the edge's sort-key prefix, the value text, the separator and the to-key.
func (r *Relation) ForwardSortKey(valueText, toKey string) string {
	return r.EdgeSKPrefix() + valueText + SortSeparator + toKey
}

// CompositeValueText is the value text of sk, the composite sort key of
// key under prefix; ok is false for a key of another shape, such as an
// edge written before its relation was ordered (sk is then key itself).
func CompositeValueText(prefix, sk, key string) (valueText string, ok bool) {
	rest, found := strings.CutPrefix(sk, prefix)
	if !found {
		return "", false
	}
	valueText, found = strings.CutSuffix(rest, SortSeparator+key)
	if !found || strings.Contains(valueText, SortSeparator) {
		return "", false
	}
	return valueText, true
}

// KeyRange is a key condition on a composite sort key: begins_with
// BeginsWith when it is set, else BETWEEN Lo AND Hi (both inclusive).
type KeyRange struct {
	BeginsWith string
	Lo, Hi     string
}

// CompositeRange is the key condition that selects, among the composite
// keys under prefix (which ends with the delimiter), exactly the edges
// whose value satisfies c. Bounds rest on the encoding's order: the keys
// of value v all lie strictly between prefix+text(v) and
// prefix+text(v)+"$"; every key under prefix sorts below the prefix with
// its delimiter raised to "$".
func (st *Sort) CompositeRange(prefix string, c Condition) (KeyRange, error) {
	text := func(i int) (string, error) { return st.KeyText(c.Values[i]) }
	top := prefix[:len(prefix)-len(Delimiter)] + string(sortEscape)
	const above = string(sortEscape)
	if c.Op == OpBeginsWith {
		s, _ := c.Values[0].(string)
		return KeyRange{BeginsWith: prefix + st.PrefixText(s)}, nil
	}
	v, err := text(0)
	if err != nil {
		return KeyRange{}, err
	}
	switch c.Op {
	case OpEq:
		return KeyRange{BeginsWith: prefix + v + SortSeparator}, nil
	case OpGe:
		return KeyRange{Lo: prefix + v, Hi: top}, nil
	case OpGt:
		return KeyRange{Lo: prefix + v + above, Hi: top}, nil
	case OpLt:
		return KeyRange{Lo: prefix, Hi: prefix + v}, nil
	case OpLe:
		return KeyRange{Lo: prefix, Hi: prefix + v + above}, nil
	case OpBetween:
		hi, err := text(1)
		if err != nil {
			return KeyRange{}, err
		}
		if v > hi {
			return KeyRange{}, &InputError{Msg: fmt.Sprintf("%s: between %v and %v has its bounds the wrong way round; write the smaller first", c.Attr.Name, c.Values[0], c.Values[1])}
		}
		return KeyRange{Lo: prefix + v, Hi: prefix + hi + above}, nil
	}
	return KeyRange{}, fmt.Errorf("%s is not a key condition", c.Op)
}
