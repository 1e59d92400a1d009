package attr

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// binReader walks the binary encoding in place, without copying b, for
// transcoding straight to JSON (reader copies once because its results
// outlive the input).
type binReader struct{ b []byte }

func (r *binReader) uvarint() (int, error) {
	x, n := binary.Uvarint(r.b)
	if n <= 0 || x > uint64(len(r.b)) {
		return 0, errCorrupt
	}
	r.b = r.b[n:]
	return int(x), nil
}

func (r *binReader) bytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil || n > len(r.b) {
		return nil, errCorrupt
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s, nil
}

// AppendJSONFromBinary appends the wire JSON of an item in the binary
// encoding written by AppendItem to dst and returns ItemSize of that item,
// without building an Item: unfiltered Query and Scan pages transcode
// stored items directly. The JSON has the attributes in stored order.
func AppendJSONFromBinary(dst, b []byte) ([]byte, int, error) {
	r := binReader{b: b}
	dst, size, _, err := r.appendMap(dst)
	if err == nil && len(r.b) != 0 {
		err = fmt.Errorf("%w: trailing bytes", errCorrupt)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("transcode item: %w", err)
	}
	return dst, size, nil
}

// appendMap returns the JSON, the sum of name and value sizes, and the
// number of entries.
func (r *binReader) appendMap(dst []byte) ([]byte, int, int, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, 0, 0, err
	}
	size := 0
	dst = append(dst, '{')
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		name, err := r.bytes()
		if err != nil {
			return nil, 0, 0, err
		}
		dst = AppendJSONString(dst, name)
		dst = append(dst, ':')
		var vs int
		if dst, vs, err = r.appendValue(dst); err != nil {
			return nil, 0, 0, err
		}
		size += len(name) + vs
	}
	return append(dst, '}'), size, n, nil
}

func (r *binReader) appendValue(dst []byte) ([]byte, int, error) {
	if len(r.b) == 0 {
		return nil, 0, errCorrupt
	}
	k := Kind(r.b[0])
	r.b = r.b[1:]
	switch k {
	case S, N:
		s, err := r.bytes()
		if err != nil {
			return nil, 0, err
		}
		dst = append(dst, `{"`...)
		dst = append(dst, k.String()...)
		dst = append(dst, `":`...)
		dst = AppendJSONString(dst, s)
		if k == N {
			return append(dst, '}'), numberSize(string(s)), nil
		}
		return append(dst, '}'), len(s), nil
	case B:
		s, err := r.bytes()
		if err != nil {
			return nil, 0, err
		}
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, s)
		return append(dst, '"', '}'), len(s), nil
	case BOOL:
		if len(r.b) == 0 {
			return nil, 0, errCorrupt
		}
		v := r.b[0] == 1
		r.b = r.b[1:]
		if v {
			return append(dst, `{"BOOL":true}`...), 1, nil
		}
		return append(dst, `{"BOOL":false}`...), 1, nil
	case NULL:
		return append(dst, `{"NULL":true}`...), 1, nil
	case M:
		dst = append(dst, `{"M":`...)
		dst, size, n, err := r.appendMap(dst)
		if err != nil {
			return nil, 0, err
		}
		// Size of a map: 3 + per entry (name + value + 1), as in Size.
		return append(dst, '}'), 3 + size + n, nil
	case L:
		n, err := r.uvarint()
		if err != nil {
			return nil, 0, err
		}
		size := 3 + n
		dst = append(dst, `{"L":[`...)
		for i := 0; i < n; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			var vs int
			if dst, vs, err = r.appendValue(dst); err != nil {
				return nil, 0, err
			}
			size += vs
		}
		return append(dst, ']', '}'), size, nil
	case SS, NS, BS:
		n, err := r.uvarint()
		if err != nil {
			return nil, 0, err
		}
		dst = append(dst, `{"`...)
		dst = append(dst, k.String()...)
		dst = append(dst, `":[`...)
		size := 0
		for i := 0; i < n; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			s, err := r.bytes()
			if err != nil {
				return nil, 0, err
			}
			switch k {
			case BS:
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, s)
				dst = append(dst, '"')
				size += len(s)
			case NS:
				dst = AppendJSONString(dst, s)
				size += numberSize(string(s))
			default:
				dst = AppendJSONString(dst, s)
				size += len(s)
			}
		}
		return append(dst, ']', '}'), size, nil
	}
	return nil, 0, errCorrupt
}
