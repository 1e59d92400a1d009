package attr

import (
	"fmt"
	"strings"
)

// Key encoding
//
// AppendKey writes an order-preserving, self-delimiting encoding of an S, N
// or B key value: for values a, b of one kind,
// bytes.Compare(AppendKey(nil, a), AppendKey(nil, b)) == Compare(a, b).
// Because every encoding is prefix-free, concatenating encodings orders
// tuples lexicographically, so the engine's bbolt key for (partition, sort)
// is simply AppendKey(AppendKey(nil, pk), sk).
//
// S and B: the raw bytes with 0x00 escaped as 0x00 0xFF, then the terminator
// 0x00 0x01. The escaped bytes without terminator (AppendKeyPrefix) are a
// byte prefix of the encoding of every value that begins with them, which is
// how begins_with becomes a bbolt prefix scan.
//
// N: zero is 0x02. A positive number 0.d1d2…dn × 10^e is 0x03, byte(e+129),
// the ASCII digits, 0x00. A negative one is 0x01, byte(255-(e+129)), each
// digit as 0xFF-digit, 0xFF — the bitwise complement ordering reverses
// magnitude order. The exponent byte sorts magnitudes first, and because
// digits carry no trailing zeros the terminator (below every digit) sorts a
// shorter digit string before its extensions.
const (
	keyNeg  = 0x01
	keyZero = 0x02
	keyPos  = 0x03
)

// AppendKey appends the order-preserving encoding of an S, N or B value.
// Other kinds panic: key attributes are always scalar, and a non-scalar key
// reaching this point is an engine bug.
func AppendKey(dst []byte, v Value) []byte {
	switch v.Kind {
	case S:
		return append(appendEscaped(dst, v.Str), 0x00, 0x01)
	case B:
		return append(appendEscaped(dst, string(v.Bytes)), 0x00, 0x01)
	case N:
		d, err := parseDecimal(v.Str)
		if err != nil {
			panic(fmt.Sprintf("attr.AppendKey: invalid number %q", v.Str))
		}
		return appendDecimalKey(dst, d)
	}
	panic("attr.AppendKey: kind " + v.Kind.String() + " cannot be a key")
}

// AppendKeyPrefix appends the encoding of an S or B value without its
// terminator: every key whose value begins with v starts with these bytes.
func AppendKeyPrefix(dst []byte, v Value) []byte {
	switch v.Kind {
	case S:
		return appendEscaped(dst, v.Str)
	case B:
		return appendEscaped(dst, string(v.Bytes))
	}
	panic("attr.AppendKeyPrefix: kind " + v.Kind.String() + " has no prefix encoding")
}

// appendEscaped appends s with each 0x00 byte written as 0x00 0xFF, so the
// 0x00 0x01 terminator sorts before any continuation. Runs without a zero
// byte (nearly every key) are copied whole.
func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(append(dst, s[:i]...), 0x00, 0xFF)
		s = s[i+1:]
	}
}

func appendDecimalKey(dst []byte, d Decimal) []byte {
	if d.IsZero() {
		return append(dst, keyZero)
	}
	e := byte(d.Exp - minExp)
	if !d.Neg {
		dst = append(dst, keyPos, e)
		dst = append(dst, d.Digits...)
		return append(dst, 0x00)
	}
	dst = append(dst, keyNeg, 0xFF-e)
	for i := 0; i < len(d.Digits); i++ {
		dst = append(dst, 0xFF-d.Digits[i])
	}
	return append(dst, 0xFF)
}

// DecodeKey decodes one key value of kind k from the front of b and returns
// the remaining bytes (the sort key part of a composite key, for instance).
func DecodeKey(b []byte, k Kind) (Value, []byte, error) {
	switch k {
	case S, B:
		var out []byte
		for i := 0; i+1 < len(b); i++ {
			if b[i] != 0 {
				continue
			}
			switch b[i+1] {
			case 0x01:
				out = append(out, b[:i]...)
				if k == S {
					return String(string(out)), b[i+2:], nil
				}
				if out == nil {
					out = []byte{}
				}
				return Binary(out), b[i+2:], nil
			case 0xFF:
				out = append(out, b[:i+1]...)
				b = b[i+2:]
				i = -1
			default:
				return Value{}, nil, fmt.Errorf("decode key: bad escape 0x%02x", b[i+1])
			}
		}
		return Value{}, nil, fmt.Errorf("decode key: unterminated %s value", k)
	case N:
		if len(b) == 0 {
			return Value{}, nil, fmt.Errorf("decode key: empty number")
		}
		switch b[0] {
		case keyZero:
			return Value{Kind: N, Str: "0"}, b[1:], nil
		case keyPos, keyNeg:
			if len(b) < 2 {
				return Value{}, nil, fmt.Errorf("decode key: short number")
			}
			neg := b[0] == keyNeg
			term, eb := byte(0x00), b[1]
			if neg {
				term, eb = 0xFF, 0xFF-eb
			}
			for i := 2; i < len(b); i++ {
				if b[i] != term {
					continue
				}
				digits := make([]byte, i-2)
				for j := range digits {
					c := b[2+j]
					if neg {
						c = 0xFF - c
					}
					if c < '0' || c > '9' {
						return Value{}, nil, fmt.Errorf("decode key: bad digit 0x%02x", c)
					}
					digits[j] = c
				}
				d := Decimal{Neg: neg, Digits: string(digits), Exp: int(eb) + minExp}
				return Value{Kind: N, Str: d.String()}, b[i+1:], nil
			}
			return Value{}, nil, fmt.Errorf("decode key: unterminated number")
		}
		return Value{}, nil, fmt.Errorf("decode key: bad number tag 0x%02x", b[0])
	}
	return Value{}, nil, fmt.Errorf("decode key: kind %s cannot be a key", k)
}

// SkipKey returns what follows the one key value of kind k at the front of
// b: DecodeKey's remainder, without building the value. An index entry's
// key is the index key values followed by the table key, so this is how a
// reader finds the table key without storing it twice.
func SkipKey(b []byte, k Kind) ([]byte, error) {
	switch k {
	case S, B:
		for i := 0; i+1 < len(b); i++ {
			if b[i] != 0 {
				continue
			}
			switch b[i+1] {
			case 0x01:
				return b[i+2:], nil
			case 0xFF:
				i++ // an escaped 0x00 byte
			default:
				return nil, fmt.Errorf("decode key: bad escape 0x%02x", b[i+1])
			}
		}
		return nil, fmt.Errorf("decode key: unterminated %s value", k)
	case N:
		if len(b) == 0 {
			return nil, fmt.Errorf("decode key: empty number")
		}
		switch b[0] {
		case keyZero:
			return b[1:], nil
		case keyPos, keyNeg:
			term := byte(0x00)
			if b[0] == keyNeg {
				term = 0xFF
			}
			// Digits start after the exponent byte, which may equal term.
			for i := 2; i < len(b); i++ {
				if b[i] == term {
					return b[i+1:], nil
				}
			}
			return nil, fmt.Errorf("decode key: unterminated number")
		}
		return nil, fmt.Errorf("decode key: bad number tag 0x%02x", b[0])
	}
	return nil, fmt.Errorf("decode key: kind %s cannot be a key", k)
}
