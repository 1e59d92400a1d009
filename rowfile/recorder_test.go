package rowfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// keptBytes reads every record of in and returns the bad ones and the most
// bytes the reader's recorder held at once: the capacity of its buffer,
// which grows while encoding/csv reads and is cut after each record.
func keptBytes(t *testing.T, in io.Reader) (bad []*LineError, most int) {
	t.Helper()
	rel, _ := school()
	r, err := NewReader(in, "in.csv", CSV, Target{Relation: rel})
	if err != nil {
		t.Fatal(err)
	}
	c := r.(*csvReader)
	for {
		_, err := r.Next()
		most = max(most, cap(c.src.buf))
		if errors.Is(err, io.EOF) {
			return bad, most
		}
		if err == nil {
			continue
		}
		var le *LineError
		if !errors.As(err, &le) {
			t.Fatal(err)
		}
		bad = append(bad, le)
	}
}

// TestCSVRejectedRecordFarIntoTheFileKeepsItsBytes: past the first 64 KB,
// where the recorder lets go of what it read, a rejected record is still
// cut out as it is in the file, and the recorder holds about one buffer.
func TestCSVRejectedRecordFarIntoTheFileKeepsItsBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("from,to,grade\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "a%d,c1,\"B, then A\"\n", i)
	}
	b.WriteString("a1,c1,\"two\nlines\",extra\na2,c1,\"bad\"x\na3,c1,A\n")
	bad, most := keptBytes(t, strings.NewReader(b.String()))
	var raws []string
	for _, e := range bad {
		raws = append(raws, e.Raw)
	}
	if want := []string{"a1,c1,\"two\nlines\",extra", `a2,c1,"bad"x`}; strings.Join(raws, "|") != strings.Join(want, "|") {
		t.Errorf("raw records %q, want %q", raws, want)
	}
	if most > 256<<10 {
		t.Errorf("the recorder held %d bytes of a %d-byte file of short records", most, b.Len())
	}
}

// TestCSVBlankLinesKeepTheRecorderSmall: encoding/csv skips empty lines
// inside one Read, so a long run of them must not all be held for the
// record that follows (raw drops them anyway).
func TestCSVBlankLinesKeepTheRecorderSmall(t *testing.T) {
	in := "from,to,grade\na1,c1,A\n" + strings.Repeat("\r\n", 4<<20) + "a2,c1,\"bad\"x\n"
	bad, most := keptBytes(t, strings.NewReader(in))
	if len(bad) != 1 || bad[0].Raw != `a2,c1,"bad"x` {
		t.Fatalf("errors %v", bad)
	}
	if most > 1<<20 {
		t.Errorf("the recorder held %d bytes for 8 MB of blank lines", most)
	}
}

// TestCSVManyLinesOfSpacesDoNotExhaustTheStack: each line of blanks is
// skipped; two million of them (4 MB) must not end the process with a
// stack overflow. The reading runs in a child process, as a stack overflow
// is fatal.
func TestCSVManyLinesOfSpacesDoNotExhaustTheStack(t *testing.T) {
	if os.Getenv("ROWFILE_SPACES_CHILD") == "1" {
		rel, _ := school()
		in := "from,to,grade\n" + strings.Repeat(" \n", 2_000_000) + "a1,c1,A\n"
		rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
		if len(rows) != 1 || len(bad) != 0 {
			t.Fatalf("rows %d, errors %v", len(rows), bad)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCSVManyLinesOfSpacesDoNotExhaustTheStack$")
	cmd.Env = append(os.Environ(), "ROWFILE_SPACES_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(string(out), "\n")
		t.Fatalf("reading 2,000,000 lines of blanks: %v: %s", err, first)
	}
}

// TestCSVTextAfterAQuoteOnTheLastRecordIsAnOrdinaryBadRecord: a record
// whose quoted field holds a line break and closes, followed by text, is
// the same bad record whether or not the file ends with a line end; the
// quote is closed, so "never closed" (fatal) would be wrong.
func TestCSVTextAfterAQuoteOnTheLastRecordIsAnOrdinaryBadRecord(t *testing.T) {
	rel, _ := school()
	for _, end := range []string{"\n", ""} {
		in := "from,to,grade\na1,c1,A\na2,c1,\"multi\nline\"x" + end
		rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
		if len(rows) != 1 || len(bad) != 1 || bad[0].Fatal || strings.Contains(bad[0].Msg, "never closed") {
			t.Errorf("last line end %q: rows %d, errors %v", end, len(rows), bad)
		}
	}
}
