package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// failingWriter fails every write with err, as stdout on a full disk
// (ENOSPC) or with its reader gone (EPIPE) does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: w.err}
}

// runWithStdout runs args with out as stdout, piped (buffered) as in a
// script, and returns the exit code and stderr.
func runWithStdout(t *testing.T, out io.Writer, args ...string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	a := newApp(NewIOStreams(strings.NewReader(""), out, &errb), args)
	return a.run(context.Background()), errb.String()
}

// TestFailedStdoutWrite: stdout that takes no more (a full disk) is exit 6
// with adjl's message, not exit 10, and no next-page command follows the
// page that was lost; a reader that went away (adjl ... | head) ends the
// output quietly, as for any Unix tool.
func TestFailedStdoutWrite(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	school := example(t, "school.yaml")
	for _, args := range [][]string{{"table", "create"}, {"enroll", "a91", "math204"}, {"enroll", "a92", "math204"}} {
		if r := adjl(t, runOpts{dir: dir}, append([]string{"--schema", school}, args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.err)
		}
	}
	list := []string{"--schema", school, "members", "math204", "--limit", "1"}

	code, stderr := runWithStdout(t, failingWriter{syscall.ENOSPC}, list...)
	want := "adjl: cannot write the output to stdout: no space left on device\n"
	if code != ExitUnreachable || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "hint: ") {
		t.Errorf("full disk: exit %d, stderr %q; want %d and %q with a hint", code, stderr, ExitUnreachable, want)
	}
	if strings.Contains(stderr, "next page") {
		t.Errorf("full disk: a next-page command after a lost page: %q", stderr)
	}

	code, stderr = runWithStdout(t, failingWriter{syscall.EPIPE}, list...)
	if code != ExitUnreachable || stderr != "" {
		t.Errorf("broken pipe: exit %d, stderr %q; want %d and nothing", code, stderr, ExitUnreachable)
	}

	// The real thing where there is one: /dev/full fails every write with ENOSPC.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Logf("no /dev/full here (%v): only the failing writer was used", err)
		return
	}
	defer full.Close()
	code, stderr = runWithStdout(t, full, list...)
	if code != ExitUnreachable || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "next page") {
		t.Errorf("/dev/full: exit %d, stderr %q; want %d and %q, no next page", code, stderr, ExitUnreachable, want)
	}
}
