package cmd

import (
	"io"
	"testing"
)

// BenchmarkRedactingWriterRow is the cost the redaction adds to each row a
// list prints (a tab-separated row of a piped list, with three credential
// values known).
func BenchmarkRedactingWriterRow(b *testing.B) {
	s := &secrets{}
	s.add("AKIAKNOWN00000000001", "known-secret-value-0123456789", "IQoJb3JpZ2luX2VjELeakEnvSessionToken0123456789")
	w := redactingWriter{w: io.Discard, s: s, shapes: []shape{credentialShapes}}
	row := []byte("STU#a91\tA\t2026-09-01\tAna Lovelace\tana@example.com\n")
	b.SetBytes(int64(len(row)))
	for b.Loop() {
		w.Write(row)
	}
}
