package attr

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Binary item encoding, used by the engine for items at rest: a uvarint
// attribute count, then per attribute a uvarint-length name and a value.
// A value is its Kind byte followed by: S, N, B — uvarint length and bytes;
// BOOL — one byte; NULL — nothing; M — uvarint count and name/value pairs;
// L, SS, NS, BS — uvarint count and elements. It is several times faster
// than JSON and needs no validation on the way back in.

// AppendItem appends the binary encoding of it to dst.
func AppendItem(dst []byte, it Item) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(it)))
	for k, v := range it {
		dst = appendBytes(dst, k)
		dst = AppendValue(dst, v)
	}
	return dst
}

// AppendValue appends the binary encoding of one value to dst.
func AppendValue(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.Kind))
	switch v.Kind {
	case S, N:
		dst = appendBytes(dst, v.Str)
	case B:
		dst = appendBytes(dst, string(v.Bytes))
	case BOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case M:
		dst = AppendItem(dst, v.Map)
	case L:
		dst = binary.AppendUvarint(dst, uint64(len(v.List)))
		for _, e := range v.List {
			dst = AppendValue(dst, e)
		}
	case SS, NS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Strs)))
		for _, s := range v.Strs {
			dst = appendBytes(dst, s)
		}
	case BS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Bins)))
		for _, b := range v.Bins {
			dst = appendBytes(dst, string(b))
		}
	}
	return dst
}

func appendBytes(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errCorrupt = errors.New("corrupt item encoding")

// reader decodes from one string copy of the input, so every name and
// string value is a substring of it: one allocation instead of one per
// string, and the result never aliases the caller's (bbolt) memory.
type reader struct {
	s string
}

func (r *reader) uvarint() (int, error) {
	var x uint64
	var shift uint
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			x |= uint64(c) << shift
			if x > uint64(len(r.s)) {
				return 0, errCorrupt
			}
			r.s = r.s[i+1:]
			return int(x), nil
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, errCorrupt
}

func (r *reader) str() (string, error) {
	n, err := r.uvarint()
	if err != nil {
		return "", err
	}
	if n > len(r.s) {
		return "", errCorrupt
	}
	out := r.s[:n]
	r.s = r.s[n:]
	return out, nil
}

func (r *reader) bytes() ([]byte, error) {
	s, err := r.str()
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// DecodeItem decodes an item written by AppendItem. The result does not
// alias b, so b may be memory that is only valid inside a transaction.
func DecodeItem(b []byte) (Item, error) {
	r := reader{s: string(b)}
	it, err := r.item()
	if err != nil {
		return nil, fmt.Errorf("decode item: %w", err)
	}
	if len(r.s) != 0 {
		return nil, fmt.Errorf("decode item: %w: trailing bytes", errCorrupt)
	}
	return it, nil
}

func (r *reader) item() (Item, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	it := make(Item, n)
	for range n {
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		it[k] = v
	}
	return it, nil
}

func (r *reader) value() (Value, error) {
	if len(r.s) == 0 {
		return Value{}, errCorrupt
	}
	v := Value{Kind: Kind(r.s[0])}
	r.s = r.s[1:]
	var err error
	switch v.Kind {
	case S, N:
		v.Str, err = r.str()
	case B:
		v.Bytes, err = r.bytes()
	case BOOL:
		if len(r.s) == 0 {
			return Value{}, errCorrupt
		}
		v.Bool = r.s[0] == 1
		r.s = r.s[1:]
	case NULL:
		v.Bool = true
	case M:
		v.Map, err = r.item()
	case L:
		var n int
		if n, err = r.uvarint(); err == nil {
			v.List = make([]Value, n)
			for i := range n {
				if v.List[i], err = r.value(); err != nil {
					break
				}
			}
		}
	case SS, NS:
		var n int
		if n, err = r.uvarint(); err == nil {
			v.Strs = make([]string, n)
			for i := range n {
				if v.Strs[i], err = r.str(); err != nil {
					break
				}
			}
		}
	case BS:
		var n int
		if n, err = r.uvarint(); err == nil {
			v.Bins = make([][]byte, n)
			for i := range n {
				if v.Bins[i], err = r.bytes(); err != nil {
					break
				}
			}
		}
	default:
		return Value{}, errCorrupt
	}
	return v, err
}
