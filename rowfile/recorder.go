package rowfile

import (
	"errors"
	"io"
)

// recorder keeps the bytes read through it from offset base on, so that a
// record's text can be cut out by its input offsets.
type recorder struct {
	r    io.Reader
	buf  []byte
	base int64 // input offset of buf[0]
	keep int64 // input offset of the first byte a record may still need
	n    int64 // bytes read
	eof  bool  // r has returned io.EOF
}

func (t *recorder) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	t.n += int64(n)
	if errors.Is(err, io.EOF) {
		t.eof = true
	}
	t.skipLineEnds()
	return n, err
}

// skipLineEnds lets go of the empty lines at the start of what is kept:
// encoding/csv skips a run of them inside one Read, so they would all be
// held until the record after them ends, and raw drops them anyway.
func (t *recorder) skipLineEnds() {
	b := t.buf[t.keep-t.base:]
	i := 0
	for i < len(b) {
		if b[i] == '\n' {
			i++
		} else if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i += 2
		} else {
			break
		}
	}
	if i > 0 {
		t.forget(t.keep + int64(i))
	}
}

// bytes are the input from offset start (or the first byte still kept) to
// end.
func (t *recorder) bytes(start, end int64) []byte {
	return t.buf[max(start, t.base)-t.base : end-t.base]
}

// forget lets go of the input before offset end. It moves the bytes kept
// only once the dropped ones are at least as many, so that each byte is
// moved at most once on average.
func (t *recorder) forget(end int64) {
	t.keep = max(t.keep, end)
	k := int(t.keep - t.base)
	if k >= 64<<10 && k >= len(t.buf)-k {
		t.buf = t.buf[:copy(t.buf, t.buf[k:])]
		t.base = t.keep
	}
}
