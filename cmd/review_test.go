package cmd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestAllWithEntityPagesOn is the bug where --all --with-entity continued
// with a cursor of a different query and exited 2 after the first page.
func TestAllWithEntityPagesOn(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "course", "math204", "--set", "title=Algebra")
	const n = 7
	for i := range n {
		s.ok("enroll", fmt.Sprintf("s%02d", i), "math204")
	}
	out := s.ok("members", "math204", "--all", "--with-entity", "--limit", "2", "-o", "ndjson")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n+1 {
		t.Fatalf("got %d lines, want the entity and %d members:\n%s", len(lines), n, out)
	}
	var first struct {
		Entity map[string]any `json:"entity"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Entity["title"] != "Algebra" {
		t.Errorf("first line is not the course: %s (%v)", lines[0], err)
	}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		k, _ := row["student"].(string)
		if seen[k] || !strings.HasPrefix(k, "STU#s") {
			t.Errorf("unexpected or repeated row %s", l)
		}
		seen[k] = true
	}
	// The JSON document is whole, with no next cursor, and nothing on stderr.
	r := s.expect(ExitOK, "members", "math204", "--all", "--with-entity", "--limit", "3", "-o", "json")
	var doc struct {
		Entity map[string]any   `json:"entity"`
		Items  []map[string]any `json:"items"`
		Next   *string          `json:"next"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, r.out)
	}
	if len(doc.Items) != n || doc.Entity["key"] != "CRS#math204" || doc.Next != nil || r.err != "" {
		t.Errorf("json --all --with-entity: %d items, entity %v, next %v, stderr %q", len(doc.Items), doc.Entity, doc.Next, r.err)
	}
}

// TestUnreadableSchemaIsInputError: a schema path that is a directory was
// exit 6 ("unreachable"), because a file errno looked like a network error.
func TestUnreadableSchemaIsInputError(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := adjl(t, runOpts{dir: dir, api: &failingAPI{err: errors.New("must not be called")}}, "--schema", dir, "get", "STU#a")
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
	isolate(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data.db")
	if r := adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "--data", data, "table", "create"); r.code != 0 {
		t.Fatalf("table create: exit %d: %s", r.code, r.err)
	}
	db, err := bolt.Open(data, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("version")).Put([]byte("format"), binary.BigEndian.AppendUint64(nil, 99))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(data)
	r := adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "--data", data, "members", "math204")
	want := "adjl: cannot open data file " + data + ": its format (99) is newer than this adjl reads (2)\nhint: a newer adjl wrote this data file"
	if r.code != ExitUnreachable || !strings.HasPrefix(r.err, want) {
		t.Errorf("exit %d, want 6\n got %q\nwant prefix %q", r.code, r.err, want)
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(before, after) {
		t.Error("the refused open changed the data file")
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

// TestMissingTableMessages: the table's absence, without ops' context, and
// no advice to create a table the user is deleting.
func TestMissingTableMessages(t *testing.T) {
	s := newSession(t, "school.yaml")
	r := s.expect(ExitTable, "members", "math204")
	if r.err != "adjl: table school not found — run `adjl table create`\n" {
		t.Errorf("members without a table: %q", r.err)
	}
	r = s.expect(ExitTable, "table", "delete", "--yes")
	if r.err != "adjl: table school does not exist; nothing to delete\n" {
		t.Errorf("delete without a table: %q", r.err)
	}
}

// TestExitCodesHelpTopic: the table is one command away and lists every code.
func TestExitCodesHelpTopic(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "help", "exit-codes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, code := range []int{ExitOK, ExitFalse, ExitUsage, ExitSchema, ExitTable, ExitConflict, ExitUnreachable, ExitThrottled, ExitInternal, ExitInterrupted} {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^ +%d  \S`, code)).MatchString(r.out) {
			t.Errorf("exit code %d missing from adjl help exit-codes:\n%s", code, r.out)
		}
	}
	if root := adjl(t, runOpts{}, "--help"); !strings.Contains(root.out, "'adjl help exit-codes'") {
		t.Errorf("root help does not point to the exit-code table")
	}
}

// TestBuiltinsRefuseUnknownWords: cobra's completion printed help and exit 0.
func TestBuiltinsRefuseUnknownWords(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "completion", "tcsh")
	if r.code != ExitUsage || !strings.Contains(r.err, `unknown command "tcsh" for "adjl completion" (want one of: bash, fish, powershell, zsh)`) {
		t.Errorf("completion tcsh: exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "fooo")
	if r.code != ExitUsage || !strings.HasSuffix(r.err, "hint: 'adjl --help' lists the commands\n") {
		t.Errorf("unknown command: exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "__complete", "-o", "")
	if !strings.Contains(r.out, "ndjson\n") {
		t.Errorf("-o does not complete its formats: %q", r.out)
	}
}

// TestServeAddressInUse: a busy port gets a way out, not 'see adjl --help'.
func TestServeAddressInUse(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := adjl(t, runOpts{}, "local", "serve", "--addr", ln.Addr().String(), "--in-memory")
	want := "adjl: cannot listen on " + ln.Addr().String() + ": bind: address already in use\nhint: pick another address, e.g. --addr 127.0.0.1:8001 (or 127.0.0.1:0 for any free port)\n"
	if r.code != ExitUsage || r.err != want {
		t.Errorf("exit %d\n got %q\nwant %q", r.code, r.err, want)
	}
}

// TestUsageHintNamesTheCommand: a usage error raised inside a command shows
// that command's usage line.
func TestUsageHintNamesTheCommand(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", "foo", "members", "math204")
	want := "adjl: invalid --endpoint \"foo\": want local, aws, or a URL such as http://127.0.0.1:8000\nhint: usage: adjl members COURSE [flags] (see 'adjl members --help')\n"
	if r.code != ExitUsage || r.err != want {
		t.Errorf("exit %d\n got %q\nwant %q", r.code, r.err, want)
	}
}

// TestUnknownHelpTopic: cobra printed the root usage and exit 0.
func TestUnknownHelpTopic(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "help", "nosuch")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, `adjl: unknown help topic "nosuch"`) || r.out != "" {
		t.Errorf("exit %d, stdout %d bytes, stderr %q", r.code, len(r.out), r.err)
	}
	for _, args := range [][]string{{"help", "table", "create"}, {"help", "exit-codes"}, {"help"}} {
		if r := adjl(t, runOpts{}, args...); r.code != 0 || r.out == "" {
			t.Errorf("%v: exit %d: %s", args, r.code, r.err)
		}
	}
}

// TestListFlagsOnOtherCommands: --cursor and --all were silently ignored
// by commands that do not page.
func TestListFlagsOnOtherCommands(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "student", "a91")
	r := s.expect(ExitUsage, "get", "STU#a91", "--cursor", "abc")
	if !strings.HasPrefix(r.err, "adjl: --cursor applies only to list commands") || r.out != "" {
		t.Errorf("get --cursor: %q", r.err)
	}
	s.expect(ExitUsage, "enroll", "a91", "math204", "--all")
	s.expect(ExitFalse, "enrolled", "a91", "math204") // nothing was written
	s.ok("courses", "a91", "--all")
	s.ok("list", "enrollment", "CRS#math204", "--reverse", "--all")
	// From the environment it is a default for list commands, not an error.
	t.Setenv("ADJL_ALL", "true")
	s.ok("get", "STU#a91")
}

// TestConfigFileUnknownSetting: a misspelt setting was ignored, so
// "endpont: aws" quietly used the embedded engine.
func TestConfigFileUnknownSetting(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "limit: 5\nendpont: aws\n")
	r := adjl(t, runOpts{dir: dir}, "version")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, `adjl: config file .adjl/config.yaml: unknown setting "endpont"`+"\nhint: known settings: ") ||
		!strings.Contains(r.err, "endpoint") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "limit: 5\nendpoint: local\noutput: json\n")
	if r := adjl(t, runOpts{dir: dir}, "version"); r.code != 0 || !strings.Contains(r.out, `"version"`) {
		t.Errorf("a valid config file: exit %d: %s %s", r.code, r.out, r.err)
	}
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "endpoint: [\n")
	r = adjl(t, runOpts{dir: dir}, "version")
	if r.code != ExitUsage || !strings.Contains(r.err, "hint: fix or remove the file") {
		t.Errorf("malformed config: exit %d: %q", r.code, r.err)
	}
}

// TestWithEntityOnlyOnFirstPage: a page reached with --cursor printed an
// empty "entity": {} (and a blank line on a terminal).
func TestWithEntityOnlyOnFirstPage(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "course", "math204", "--set", "title=Algebra")
	s.ok("enroll", "a1", "math204")
	s.ok("enroll", "a2", "math204")
	var first struct {
		Entity map[string]any `json:"entity"`
		Next   string         `json:"next"`
	}
	if err := json.Unmarshal([]byte(s.ok("members", "math204", "--with-entity", "--limit", "1", "-o", "json")), &first); err != nil {
		t.Fatal(err)
	}
	if first.Entity["title"] != "Algebra" || first.Next == "" {
		t.Fatalf("first page: %+v", first)
	}
	out := s.ok("members", "math204", "--with-entity", "--limit", "1", "-o", "json", "--cursor", first.Next)
	var second map[string]any
	if err := json.Unmarshal([]byte(out), &second); err != nil {
		t.Fatal(err)
	}
	if _, ok := second["entity"]; ok {
		t.Errorf("second page repeats the entity section:\n%s", out)
	}
	if out := s.ok("members", "math204", "--with-entity", "--limit", "1", "--cursor", first.Next); out != "STU#a2\t\t\n" {
		t.Errorf("second page, piped table: %q", out)
	}
}

// TestUnknownFlagBeforeCommand: the pre-scan took "get" for the value of
// --bogus and reported `unknown command "STU#a"`.
func TestUnknownFlagBeforeCommand(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--bogus", "get", "STU#a")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: unknown flag: --bogus\n") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "-x", "enroll", "a", "b")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: unknown shorthand flag: 'x' in -x\n") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
	// Unknown command words are still named.
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "-o", "json", "enrol", "a", "b")
	if r.code != ExitUsage || !strings.Contains(r.err, `unknown command "enrol"`) {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
}

// TestPutSetCompletion: put completes --set with the named entity's attributes.
func TestPutSetCompletion(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "__complete", "put", "course", "c1", "--set", "")
	if !strings.Contains(r.out, "title=\n") || !strings.Contains(r.out, "credits=\n") || strings.Contains(r.out, "email=") {
		t.Errorf("__complete put course --set: %q", r.out)
	}
}

// TestRootHelpWithoutSchema: the first `adjl --help` in an empty directory
// says why no relation verbs are listed.
func TestRootHelpWithoutSchema(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--help")
	if !strings.Contains(r.out, "Note: no schema loaded (looked for ./adjl.yaml), so no relation verbs are listed;\nname a schema with --schema") {
		t.Errorf("root help without a schema:\n%s", r.out)
	}
	if r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--help"); strings.Contains(r.out, "Note: ") {
		t.Errorf("root help with a schema still says none is loaded")
	}
}
