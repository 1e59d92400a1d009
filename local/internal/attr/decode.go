package attr

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// SyntaxError reports malformed JSON or a wrongly typed field; the engine
// maps it to SerializationException, unlike *ValidationError.
type SyntaxError struct {
	Msg    string
	Offset int
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("decode attribute value at offset %d: %s", e.Offset, e.Msg)
}

// decoder is a small reflection-free JSON reader specialised for attribute
// values; encoding/json with RawMessage maps costs several allocations per
// value, and items are decoded on every request. It reads one string copy
// of the input, so every name and unescaped string it returns is a
// substring of it: one allocation per input instead of one per string (the
// binary reader does the same).
type decoder struct {
	data  string
	pos   int
	depth int
}

// MaxDepth is DynamoDB's document nesting limit: an attribute value is
// level 1 and a scalar may sit at most at level 32.
const MaxDepth = 32

// ErrNesting is DynamoDB's message for values nested deeper than MaxDepth.
const ErrNesting = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

func (d *decoder) errf(format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: d.pos}
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) end() error {
	d.ws()
	if d.pos != len(d.data) {
		return d.errf("unexpected trailing data")
	}
	return nil
}

func (d *decoder) peek() byte {
	d.ws()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) expect(c byte) error {
	if d.peek() != c {
		if d.pos >= len(d.data) {
			return d.errf("unexpected end of input, want %q", c)
		}
		return d.errf("unexpected %q, want %q", d.data[d.pos], c)
	}
	d.pos++
	return nil
}

func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && d.data[d.pos:d.pos+len(lit)] == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *decoder) peekNull() bool {
	d.ws()
	return d.literal("null")
}

func (d *decoder) boolean() (bool, error) {
	d.ws()
	switch {
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	}
	return false, d.errf("want a boolean")
}

// str reads a JSON string.
func (d *decoder) str() (string, error) {
	if err := d.expect('"'); err != nil {
		return "", err
	}
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := d.data[start:d.pos]
			d.pos++
			return s, nil
		}
		if c == '\\' {
			return d.strSlow(start)
		}
		if c < 0x20 {
			return "", d.errf("control character in string")
		}
		d.pos++
	}
	return "", d.errf("unterminated string")
}

func (d *decoder) strSlow(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.data) {
			break
		}
		e := d.data[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					lo, ok := d.hex4()
					if ok {
						r2 = utf16.DecodeRune(r, lo)
					}
					if r2 == utf8.RuneError {
						d.pos = save
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.errf("bad escape \\%c", e)
		}
	}
	return "", d.errf("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(d.data[d.pos:d.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(n), true
}

func (d *decoder) valueMap() (map[string]Value, error) {
	return d.valueMapInto(nil)
}

// valueMapInto is valueMap filling m (a new map when nil).
func (d *decoder) valueMapInto(m map[string]Value) (map[string]Value, error) {
	if err := d.expect('{'); err != nil {
		return nil, err
	}
	if m == nil {
		m = make(map[string]Value, 8)
	}
	if d.peek() == '}' {
		d.pos++
		return m, nil
	}
	for {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := d.expect(':'); err != nil {
			return nil, err
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[key] = v
		if done, err := d.more('}'); done || err != nil {
			return m, err
		}
	}
}

// more consumes the separator after a member or element: it reports done at
// the closing byte, continues after a comma, and fails on anything else.
func (d *decoder) more(closing byte) (bool, error) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.errf("want ',' or %q", closing)
}

// typeKey reads a member name of an attribute value object without
// allocating for the ten type descriptors.
func (d *decoder) typeKey() (Kind, string, error) {
	if err := d.expect('"'); err != nil {
		return Invalid, "", err
	}
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] != '"' && d.data[d.pos] != '\\' {
		d.pos++
	}
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		d.pos = start - 1
		s, err := d.str()
		return KindOf(s), s, err
	}
	b := d.data[start:d.pos]
	d.pos++
	var k Kind
	switch b {
	case "S":
		k = S
	case "N":
		k = N
	case "B":
		k = B
	case "BOOL":
		k = BOOL
	case "NULL":
		k = NULL
	case "M":
		k = M
	case "L":
		k = L
	case "SS":
		k = SS
	case "NS":
		k = NS
	case "BS":
		k = BS
	default:
		return Invalid, string(b), nil
	}
	return k, "", nil
}

func (d *decoder) bin() ([]byte, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, d.errf("invalid base64 binary value: %v", err)
	}
	return b, nil
}

// value reads one {"<type>": ...} object and validates it.
func (d *decoder) value() (Value, error) {
	d.depth++
	if d.depth > MaxDepth {
		return Value{}, invalid(ErrNesting)
	}
	v, err := d.value1()
	d.depth--
	return v, err
}

func (d *decoder) value1() (Value, error) {
	if err := d.expect('{'); err != nil {
		return Value{}, err
	}
	var v Value
	set := 0
	if d.peek() == '}' {
		d.pos++
	} else {
		for {
			k, name, err := d.typeKey()
			if err != nil {
				return Value{}, err
			}
			if err := d.expect(':'); err != nil {
				return Value{}, err
			}
			if d.peekNull() {
				// an explicit null member counts as absent, as in the SDKs
			} else {
				if k == Invalid {
					return Value{}, d.errf("unknown attribute value type %q", name)
				}
				tmp, err := d.typed(k)
				if err != nil {
					return Value{}, err
				}
				set++
				if set == 1 {
					v = tmp
				}
			}
			if done, err := d.more('}'); err != nil {
				return Value{}, err
			} else if done {
				break
			}
		}
	}
	if set > 1 {
		return Value{}, invalid("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	}
	if set == 0 {
		return Value{}, invalid("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}
	// nested values were validated as they were read
	switch v.Kind {
	case NULL, SS, NS, BS:
		if err := v.validate(); err != nil {
			return Value{}, err
		}
	}
	return v, nil
}

// typed reads the JSON payload of a value of kind k.
func (d *decoder) typed(k Kind) (Value, error) {
	v := Value{Kind: k}
	var err error
	switch k {
	case S:
		v.Str, err = d.str()
	case N:
		var s string
		if s, err = d.str(); err == nil {
			var dec Decimal
			if dec, err = ParseDecimal(s); err == nil {
				v.Str = dec.String()
			}
		}
	case B:
		v.Bytes, err = d.bin()
	case BOOL, NULL:
		v.Bool, err = d.boolean()
	case M:
		v.Map, err = d.valueMap()
	case L:
		v.List = []Value{}
		err = d.elements(func() error {
			e, err := d.value()
			v.List = append(v.List, e)
			return err
		})
	case SS, NS:
		v.Strs = []string{}
		err = d.elements(func() error {
			s, err := d.str()
			if err != nil {
				return err
			}
			if k == NS {
				dec, err := ParseDecimal(s)
				if err != nil {
					return err
				}
				s = dec.String()
			}
			v.Strs = append(v.Strs, s)
			return nil
		})
	case BS:
		v.Bins = [][]byte{}
		err = d.elements(func() error {
			b, err := d.bin()
			v.Bins = append(v.Bins, b)
			return err
		})
	}
	return v, err
}

// elements calls elem for each element of a JSON array.
func (d *decoder) elements(elem func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if done, err := d.more(']'); done || err != nil {
			return err
		}
	}
}
