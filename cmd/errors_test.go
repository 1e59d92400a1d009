package cmd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// TestUnreadableSchemaIsInputError: a schema path that cannot be read (a
// directory) is an input error (exit 2) naming the path.
func TestUnreadableSchemaIsInputError(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := adjl(t, runOpts{dir: dir, api: newFailingAPI(errors.New("must not be called"))}, "--schema", dir, "get", "STU#a")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: cannot read schema file "+dir+": is a directory\nhint: pass --schema FILE") {
		t.Errorf("exit %d, want 2:\n%s", r.code, r.err)
	}
	if got := ExitCode(&fs.PathError{Op: "read", Path: "x", Err: syscall.EISDIR}); got != ExitInternal {
		t.Errorf("a file error maps to exit %d; only network errors are unreachable (6)", got)
	}
	r = adjl(t, runOpts{dir: dir}, "schema", "validate", "missing.yaml")
	want := "adjl: schema file missing.yaml not found\nhint: check the path; adjl schema validate with no FILE checks --schema\n"
	if r.code != ExitUsage || r.err != want {
		t.Errorf("validate a missing file: exit %d\n got %q\nwant %q", r.code, r.err, want)
	}
}

// TestDataFileUnopenable: the data file's own error, once, with a hint.
func TestDataFileUnopenable(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "--data", dir, "table", "create")
	want := "adjl: cannot open data file " + dir + ": is a directory\nhint: choose a writable location with --data FILE"
	if r.code != ExitUnreachable || !strings.HasPrefix(r.err, want) {
		t.Errorf("exit %d, want 6\n got %q\nwant prefix %q", r.code, r.err, want)
	}
	file := filepath.Join(dir, "plain")
	writeFile(t, file, "")
	r = adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "--data", filepath.Join(file, "data.db"), "table", "create")
	if r.code != ExitUnreachable || !strings.Contains(r.err, "cannot open data file "+filepath.Join(file, "data.db")+": mkdir "+file+": not a directory") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
}

// TestDataFileFromNewerAdjl: a data file whose recorded format is newer is
// refused before anything is read or written, with exit 6 and advice.
func TestDataFileFromNewerAdjl(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	recordFormat(t, s.data, 99)
	before, _ := os.ReadFile(s.data)
	r := s.run("members", "math204")
	want := "adjl: cannot open data file " + s.data + ": its format (99) is newer than this adjl reads (2)\nhint: a newer adjl wrote this data file"
	if r.code != ExitUnreachable || !strings.HasPrefix(r.err, want) {
		t.Errorf("exit %d, want 6\n got %q\nwant prefix %q", r.code, r.err, want)
	}
	if after, _ := os.ReadFile(s.data); !bytes.Equal(before, after) {
		t.Error("the refused open changed the data file")
	}
}

// recordFormat rewrites the format the data file at path records, in
// place, as a newer adjl would have written it: the bbolt file keeps the
// record's key "format" and its 8-byte big-endian value side by side in a
// leaf page, and pages carry no checksum. Every copy is rewritten (freed
// pages may hold old ones); the file must record this adjl's format, 2.
func recordFormat(t *testing.T, path string, format uint64) {
	t.Helper()
	const current = 2
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := binary.BigEndian.AppendUint64([]byte("format"), current)
	if !bytes.Contains(b, old) {
		t.Fatalf("%s holds no format record %d", path, current)
	}
	b = bytes.ReplaceAll(b, old, binary.BigEndian.AppendUint64([]byte("format"), format))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestUnreachableMessageIsShort: the network failure, not the SDK's retry report.
func TestUnreachableMessageIsShort(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", "http://127.0.0.1:1", "members", "math204")
	first, _, _ := strings.Cut(r.err, "\n")
	if r.code != ExitUnreachable || first != "adjl: cannot reach the backend at http://127.0.0.1:1: connect: connection refused" {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
}

// TestMissingTableMessages: the table's absence names the backend (and
// data file), without ops' context, and gives no advice to create a table
// the user is deleting. Only table create creates a data file.
func TestMissingTableMessages(t *testing.T) {
	s := newSession(t, "school.yaml")
	data := s.data
	for _, args := range [][]string{{"members", "math204"}, {"get", "STU#a91"}, {"enroll", "a91", "math204"}, {"table", "describe"}} {
		r := s.expect(ExitTable, args...)
		want := "adjl: table school not found in the embedded engine (no data file " + data + ") — run `adjl table create`\n"
		if r.err != want {
			t.Errorf("%v without a data file: %q", args, r.err)
		}
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a command other than table create created the data file: %v", err)
	}
	r := s.expect(ExitTable, "table", "delete", "--yes")
	if r.err != "adjl: table school does not exist in the embedded engine (no data file "+data+"); nothing to delete\n" {
		t.Errorf("delete without a table: %q", r.err)
	}
	r = s.expect(ExitOK, "table", "delete", "--yes", "--if-exists")
	if r.out != "table school does not exist in the embedded engine (no data file "+data+"); nothing to delete\n" {
		t.Errorf("delete --if-exists without a data file: %q", r.out)
	}
	// With a data file that has another table: the message names the file.
	s.expect(ExitOK, "--schema", example(t, "social.yaml"), "table", "create")
	r = s.expect(ExitTable, "members", "math204")
	if r.err != "adjl: table school not found in the embedded engine (data file "+data+") — run `adjl table create`\n" {
		t.Errorf("members without a table: %q", r.err)
	}
	r = s.expect(ExitOK, "table", "delete", "--yes", "--if-exists", "-o", "json")
	if r.out != "{\n  \"table\": \"school\",\n  \"outcome\": \"absent\"\n}\n" {
		t.Errorf("delete --if-exists -o json: %q", r.out)
	}
}

// TestLongInputDoesNotFloodTheMessage: a huge argument is quoted cut to its
// first 60 characters, and any message over 4 KiB (a server's answer
// quoting the request) is cut with the count of what was left out.
func TestLongInputDoesNotFloodTheMessage(t *testing.T) {
	isolate(t)
	long := strings.Repeat("é", 100000)
	r := adjl(t, runOpts{}, "version", long)
	want := "adjl: unexpected argument \"" + strings.Repeat("é", 60) + "\"... (200000 bytes)\n"
	if r.code != ExitUsage || !strings.HasPrefix(r.err, want) {
		t.Errorf("exit %d, stderr %q", r.code, r.err[:min(len(r.err), 300)])
	}
	var b bytes.Buffer
	printError(&b, errors.New(strings.Repeat("ü", 5000)), false)
	out := b.String()
	if !strings.HasPrefix(out, "adjl: üü") || !strings.HasSuffix(out, "... (5904 more bytes)\n") || !utf8.ValidString(out) {
		t.Errorf("clipped message: %d bytes, ends %q", len(out), out[len(out)-40:])
	}
}
