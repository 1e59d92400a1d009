package rowfile

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkCSVReadRows reads a 100,000-row edge file: what each pass of an
// import costs in the reader.
func BenchmarkCSVReadRows(b *testing.B) {
	rel, _ := school()
	var sb strings.Builder
	sb.WriteString("from,to,grade,credits\n")
	for i := range 100_000 {
		fmt.Fprintf(&sb, "a%d,c%d,\"B, then A\",%d\n", i, i%97, i%5)
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r, err := NewReader(strings.NewReader(in), "in.csv", CSV, Target{Relation: rel})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
