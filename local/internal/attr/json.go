package attr

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// MarshalJSON writes the DynamoDB wire form ({"S":"x"}, {"N":"1"}, ...).
// It is hand-written to avoid reflection on the hot response path.
func (v Value) MarshalJSON() ([]byte, error) {
	return v.AppendJSON(make([]byte, 0, 32))
}

// AppendJSON appends the wire form of v to dst.
func (v Value) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	switch v.Kind {
	case S:
		dst = append(dst, `{"S":`...)
		dst = AppendJSONString(dst, v.Str)
	case N:
		dst = append(dst, `{"N":`...)
		dst = AppendJSONString(dst, v.Str)
	case B:
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, v.Bytes)
		dst = append(dst, '"')
	case BOOL:
		if v.Bool {
			dst = append(dst, `{"BOOL":true`...)
		} else {
			dst = append(dst, `{"BOOL":false`...)
		}
	case NULL:
		dst = append(dst, `{"NULL":true`...)
	case M:
		dst = append(dst, `{"M":`...)
		if dst, err = appendMap(dst, v.Map); err != nil {
			return nil, err
		}
	case L:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.List {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = e.AppendJSON(dst); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	case SS, NS:
		dst = append(dst, `{"`...)
		dst = append(dst, v.Kind.String()...)
		dst = append(dst, `":[`...)
		for i, s := range v.Strs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, s)
		}
		dst = append(dst, ']')
	case BS:
		dst = append(dst, `{"BS":[`...)
		for i, b := range v.Bins {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, b)
			dst = append(dst, '"')
		}
		dst = append(dst, ']')
	default:
		return nil, fmt.Errorf("marshal attribute value: invalid kind %d", v.Kind)
	}
	return append(dst, '}'), nil
}

func appendMap(dst []byte, m map[string]Value) ([]byte, error) {
	dst = append(dst, '{')
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic output for tests and diffs
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, k)
		dst = append(dst, ':')
		if dst, err = m[k].AppendJSON(dst); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// MarshalJSON writes the item as a JSON object of wire values.
func (it Item) MarshalJSON() ([]byte, error) {
	if it == nil {
		return []byte("null"), nil
	}
	return appendMap(make([]byte, 0, 64*len(it)+2), it)
}

// AppendJSON appends the item's wire form to dst.
func (it Item) AppendJSON(dst []byte) ([]byte, error) { return appendMap(dst, it) }

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal, escaping as
// encoding/json does (invalid UTF-8 becomes U+FFFD). The engine writes its
// hand-built responses with it, so every wire string is escaped one way.
func AppendJSONString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:])) // no copy: conversion in a call argument
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// UnmarshalJSON decodes and validates one wire value, returning DynamoDB's
// validation messages as *ValidationError.
func (v *Value) UnmarshalJSON(b []byte) error {
	d := decoder{data: string(b)}
	val, err := d.value()
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	*v = val
	return nil
}

// UnmarshalJSON decodes and validates an item (a JSON object of values).
func (it *Item) UnmarshalJSON(b []byte) error {
	d := decoder{data: string(b)}
	d.ws()
	if d.peekNull() {
		*it = nil
		return nil
	}
	m, err := d.valueMap()
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	*it = m
	return nil
}

// DecodeItemAt decodes one wire-JSON item (an object of values, after
// optional whitespace) starting at byte off of src and returns the offset
// after it, with the validation of Item.UnmarshalJSON. Request readers make
// one string copy of a body and decode each item where it stands, instead
// of first finding its extent; the item's strings are substrings of src.
func DecodeItemAt(src string, off int) (Item, int, error) {
	return decodeItemAt(src, off, nil)
}

func decodeItemAt(src string, off int, m Item) (Item, int, error) {
	d := decoder{data: src, pos: off}
	d.ws()
	m, err := d.valueMapInto(m)
	if err != nil {
		return nil, 0, err
	}
	return m, d.pos, nil
}

// UnmarshalItem decodes JSON into a new Item.
func UnmarshalItem(b []byte) (Item, error) {
	var it Item
	err := it.UnmarshalJSON(b)
	return it, err
}

// Decode decodes JSON into one Value.
func Decode(b []byte) (Value, error) {
	var v Value
	err := v.UnmarshalJSON(b)
	return v, err
}

var _ json.Marshaler = Value{}
var _ json.Unmarshaler = (*Value)(nil)

// ExprValues is the ExpressionAttributeValues map of a request. Its decoder
// wraps value errors the way DynamoDB does ("ExpressionAttributeValues
// contains invalid value: <reason> for key :v"), which a plain
// map[string]Value cannot do because the key is lost.
type ExprValues map[string]Value

// UnmarshalJSON decodes and validates every value, naming the failing key.
func (ev *ExprValues) UnmarshalJSON(b []byte) error {
	d := decoder{data: string(b)}
	if d.peekNull() {
		*ev = nil
		return nil
	}
	if err := d.expect('{'); err != nil {
		return err
	}
	m := make(ExprValues)
	if d.peek() == '}' {
		d.pos++
	} else {
		for {
			key, err := d.str()
			if err != nil {
				return err
			}
			if err := d.expect(':'); err != nil {
				return err
			}
			v, err := d.value()
			if err != nil {
				var ve *ValidationError
				if errors.As(err, &ve) && ve.Msg != ErrNesting {
					// The current layer names no key: its message is the value's own.
					return &ValidationError{Msg: "ExpressionAttributeValues contains invalid value: " + ve.Msg + " for key " + key, Current: ve.Current}
				}
				return err
			}
			m[key] = v
			done, err := d.more('}')
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
	}
	if err := d.end(); err != nil {
		return err
	}
	*ev = m
	return nil
}
