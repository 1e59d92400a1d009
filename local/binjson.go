package local

import (
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/adjl/adjl/local/internal/attr"
)

// TEMPORARY until attr offers it (see /work/notes/engine-needs.md):
// appendBinaryItemJSON transcodes an item in attr's binary at-rest encoding
// straight to wire JSON and returns its DynamoDB size, so unfiltered Query
// and Scan pages never build maps.

var errBinCorrupt = errors.New("corrupt item encoding")

type binReader struct{ b []byte }

func (r *binReader) uvarint() (int, error) {
	x, n := binary.Uvarint(r.b)
	if n <= 0 || x > uint64(len(r.b)) {
		return 0, errBinCorrupt
	}
	r.b = r.b[n:]
	return int(x), nil
}

func (r *binReader) bytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil || n > len(r.b) {
		return nil, errBinCorrupt
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s, nil
}

func appendBinaryItemJSON(dst, b []byte) ([]byte, int, error) {
	r := binReader{b: b}
	dst, size, _, err := r.appendMap(dst)
	if err == nil && len(r.b) != 0 {
		err = errBinCorrupt
	}
	return dst, size, err
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
		dst = appendJSONString(dst, name)
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
		return nil, 0, errBinCorrupt
	}
	k := attr.Kind(r.b[0])
	r.b = r.b[1:]
	switch k {
	case attr.S, attr.N:
		s, err := r.bytes()
		if err != nil {
			return nil, 0, err
		}
		dst = append(dst, `{"`...)
		dst = append(dst, k.String()...)
		dst = append(dst, `":`...)
		dst = appendJSONString(dst, s)
		if k == attr.N {
			return append(dst, '}'), attr.Size(attr.Value{Kind: attr.N, Str: string(s)}), nil
		}
		return append(dst, '}'), len(s), nil
	case attr.B:
		s, err := r.bytes()
		if err != nil {
			return nil, 0, err
		}
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, s)
		return append(dst, '"', '}'), len(s), nil
	case attr.BOOL:
		if len(r.b) == 0 {
			return nil, 0, errBinCorrupt
		}
		v := r.b[0] == 1
		r.b = r.b[1:]
		if v {
			return append(dst, `{"BOOL":true}`...), 1, nil
		}
		return append(dst, `{"BOOL":false}`...), 1, nil
	case attr.NULL:
		return append(dst, `{"NULL":true}`...), 1, nil
	case attr.M:
		dst = append(dst, `{"M":`...)
		dst, size, n, err := r.appendMap(dst)
		if err != nil {
			return nil, 0, err
		}
		// attr.Size of a map: 3 + per entry (name + value + 1).
		return append(dst, '}'), 3 + size + n, nil
	case attr.L:
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
	case attr.SS, attr.NS, attr.BS:
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
			case attr.BS:
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, s)
				dst = append(dst, '"')
				size += len(s)
			case attr.NS:
				dst = appendJSONString(dst, s)
				size += attr.Size(attr.Value{Kind: attr.N, Str: string(s)})
			default:
				dst = appendJSONString(dst, s)
				size += len(s)
			}
		}
		return append(dst, ']', '}'), size, nil
	}
	return nil, 0, errBinCorrupt
}
