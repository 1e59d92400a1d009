package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
)

func TestProgressPrintsAPlainLineEveryFewSeconds(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &b, now: func() time.Time { return now }}
	p.phase("import enrollment", "rows", 1_000_000)
	now = now.Add(2 * time.Second)
	p.set(100_000)
	if b.Len() != 0 {
		t.Fatalf("printed before %s: %q", progressEvery, b.String())
	}
	now = now.Add(3 * time.Second)
	p.set(250_000)
	now = now.Add(time.Second)
	p.set(260_000) // within 5 s of the last line
	want := "import enrollment: 250,000/1,000,000 rows (25%), 50,000 rows/s, eta 15s\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	p.phase("scan", "items", -1)
	now = now.Add(6 * time.Second)
	p.set(12_000)
	if got := b.String(); got != "scan: 12,000 items, 2,000 items/s\n" {
		t.Fatalf("unknown total: %q", got)
	}
	q := &progress{w: &b, quiet: true, now: time.Now}
	b.Reset()
	q.phase("x", "rows", 10)
	q.set(5)
	q.finish()
	if b.Len() != 0 {
		t.Fatalf("--quiet printed %q", b.String())
	}
}

func TestImportJournalResumesOnlyTheSameImport(t *testing.T) {
	t.Chdir(t.TempDir())
	key := strings.Repeat("ab", 32)
	if st := readJournal(key, 1000); st.found {
		t.Fatal("a journal where there is none")
	}
	j := newJournal(key, 1000)
	j.freshness(true)
	j.done(3)
	j.done(4)
	j.close(journalInterrupted)
	if j.err != nil {
		t.Fatal(j.err)
	}
	// A kill can tear the last line.
	f, _ := os.OpenFile(journalPath(key), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("done 9")
	f.Close()
	if st := readJournal(key, 1000); !st.found || st.done != 9 && st.done != 4 || st.fresh != ops.FreshYes {
		t.Fatalf("read back %+v", st)
	}
	f, _ = os.OpenFile(journalPath(key), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\ndo")
	f.Close()
	if st := readJournal(key, 1000); st.done != 9 {
		t.Fatalf("a torn line changed the count: %+v", st)
	}
	if st := readJournal(key, 500); st.found {
		t.Fatal("a journal of another chunk size was used")
	}
	other := strings.Repeat("ab", 31) + "cd"
	if err := os.Rename(journalPath(key), journalPath(other)); err != nil {
		t.Fatal(err)
	}
	if st := readJournal(other, 1000); st.found {
		t.Fatal("a journal naming another key was used")
	}
	j = newJournal(key, 1000)
	j.done(1)
	j.close(journalFinished)
	if _, err := os.Stat(filepath.Join(journalDir, key[:32]+".journal")); !os.IsNotExist(err) {
		t.Fatalf("a finished import left its journal: %v", err)
	}
}

// TestImportJournalOfARunThatWroteNothingLeavesNothing: a journal is made
// when something is recorded, and a run that wrote no row removes it with
// the directories it made, but not a directory that was there already.
func TestImportJournalOfARunThatWroteNothingLeavesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	key := strings.Repeat("cd", 32)
	j := newJournal(key, 1000)
	j.close(journalUnused)
	if _, err := os.Stat(".adjl"); !os.IsNotExist(err) {
		t.Fatalf("a journal that recorded nothing made .adjl: %v", err)
	}
	j = newJournal(key, 1000)
	j.freshness(true)
	if _, err := os.Stat(journalPath(key)); err != nil {
		t.Fatalf("no journal after a record: %v", err)
	}
	j.close(journalUnused)
	if _, err := os.Stat(".adjl"); !os.IsNotExist(err) {
		t.Fatalf("an unused journal left .adjl: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(".adjl", "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	j = newJournal(key, 1000)
	j.freshness(false)
	j.close(journalUnused)
	if _, err := os.Stat(journalDir); !os.IsNotExist(err) {
		t.Fatalf("an unused journal left %s: %v", journalDir, err)
	}
	if _, err := os.Stat(filepath.Join(".adjl", "keep")); err != nil {
		t.Fatalf("a directory that was there went: %v", err)
	}
}

// TestImportBatchesCounterFixesOnAdjlsEngine: through a server at a URL, an
// import writes its counters 100 to a TransactWriteItems when the server has
// answered as `adjl local serve` (the engine behind withServePID, as serve
// runs it), and one UpdateItem each on any other server (here the same
// engine served bare).
func TestImportBatchesCounterFixesOnAdjlsEngine(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	csv := writeFile(t, filepath.Join(t.TempDir(), "e.csv"), "from,to\na1,c1\na1,c2\na2,c1\n")
	for _, engine := range []bool{true, false} {
		e, err := local.Open("", local.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		var h http.Handler = e
		if engine {
			h = withServePID(e)
		}
		srv := httptest.NewServer(h)
		if r := adjl(t, runOpts{}, "--schema", school, "--endpoint", srv.URL, "table", "create"); r.code != 0 {
			t.Fatalf("table create: %s", r.err)
		}
		r := adjl(t, runOpts{}, "--schema", school, "--endpoint", srv.URL, "import", "enrollment", csv, "--quiet", "-o", "json")
		srv.Close()
		e.Close()
		if r.code != 0 {
			t.Fatalf("engine=%v: exit %d: %s", engine, r.code, r.err)
		}
		var rep struct{ Requests map[string]int }
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
			t.Fatalf("engine=%v: %v\n%s", engine, err, r.out)
		}
		if engine && (rep.Requests["TransactWriteItems"] != 1 || rep.Requests["UpdateItem"] != 0) ||
			!engine && (rep.Requests["TransactWriteItems"] != 0 || rep.Requests["UpdateItem"] != 4) {
			t.Errorf("engine=%v: requests %v", engine, rep.Requests)
		}
	}
}

// refusingImport is a 2,500-edge CSV of the school example and a runner of
// adjl (in dir) against an in-memory engine behind a test server that counts
// BatchWriteItem requests (or those of newRefusingImportOf's operation) in
// batches and refuses each one after the first failAfter (none while
// failAfter is negative, as it starts).
type refusingImport struct {
	csv, dir           string
	batches, failAfter atomic.Int64
	run                func(args ...string) result
}

func newRefusingImport(t *testing.T) *refusingImport {
	t.Helper()
	return newRefusingImportOf(t, "BatchWriteItem")
}

func newRefusingImportOf(t *testing.T, operation string) *refusingImport {
	t.Helper()
	ri := &refusingImport{}
	isolate(t)
	school := example(t, "school.yaml")
	var b strings.Builder
	b.WriteString("from,to\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "s%d,c%d\n", i, i%7)
	}
	ri.csv = writeFile(t, filepath.Join(t.TempDir(), "e.csv"), b.String())
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ri.failAfter.Store(-1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), "."+operation) {
			if n := ri.batches.Add(1); ri.failAfter.Load() >= 0 && n > ri.failAfter.Load() {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"refused by the test"}`)
				return
			}
		}
		e.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ri.dir = t.TempDir()
	ri.run = func(args ...string) result {
		return adjl(t, runOpts{dir: ri.dir}, append([]string{"--schema", school, "--endpoint", srv.URL}, args...)...)
	}
	return ri
}

// TestImportResumeTellsWhatEachRunCounted: an import whose writes start
// failing after its first chunk keeps its journal and says --resume; the
// resumed run's summary says written is this run's and new covers both. An
// import that fails before writing anything (no table) leaves no journal and
// no .adjl directory, and does not say --resume.
func TestImportResumeTellsWhatEachRunCounted(t *testing.T) {
	ri := newRefusingImport(t)
	csv, dir, batches, failAfter, run := ri.csv, ri.dir, &ri.batches, &ri.failAfter, ri.run

	r := run("import", "enrollment", csv, "--quiet")
	if r.code == 0 || strings.Contains(r.err, "--resume") {
		t.Fatalf("no table: exit %d, stderr:\n%s", r.code, r.err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".adjl")); !os.IsNotExist(err) {
		t.Fatalf("an import that wrote nothing left .adjl: %v", err)
	}

	if r := run("table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	failAfter.Store(1000/25 + 5) // the first chunk, then refusals
	r = run("import", "enrollment", csv, "--quiet", "--workers", "1")
	if r.code == 0 || !strings.Contains(r.err, "hint: run the same command with --resume to finish it") {
		t.Fatalf("interrupted: exit %d, stderr:\n%s", r.code, r.err)
	}
	// Run again without --resume, interrupted the same way: the note that
	// the earlier run is not resumed is one --quiet drops.
	failAfter.Store(batches.Load() + 1000/25 + 5)
	if r := run("import", "enrollment", csv, "--quiet", "--workers", "1"); r.code == 0 || strings.Contains(r.err, "note:") {
		t.Errorf("--quiet rerun: exit %d, stderr:\n%s", r.code, r.err)
	}
	failAfter.Store(-1)
	r = run("import", "enrollment", csv, "--quiet", "--resume")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{
		"resumed: 1,000 rows an earlier run had written were skipped\n",
		"edges: 1,500 written (this run): 2,500 new, 0 already there (both runs)\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.out)
		}
	}
}

// TestImportResumedAfterSomeCountersTellsWhatBothRunsMade: an import into
// a relation with no edges that stops after correcting some of its
// counters, resumed, says every edge of the file was new, though the
// counters the earlier run corrected no longer change.
func TestImportResumedAfterSomeCountersTellsWhatBothRunsMade(t *testing.T) {
	ri := newRefusingImportOf(t, "UpdateItem")
	if r := ri.run("table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	ri.failAfter.Store(1000)
	r := ri.run("import", "enrollment", ri.csv, "--quiet", "--workers", "1")
	if r.code == 0 || !strings.Contains(r.err, "--resume") {
		t.Fatalf("interrupted: exit %d, stderr:\n%s", r.code, r.err)
	}
	ri.failAfter.Store(-1)
	r = ri.run("import", "enrollment", ri.csv, "--quiet", "--resume")
	if want := "edges: 0 written (this run): 2,500 new, 0 already there (both runs)\n"; r.code != 0 || !strings.Contains(r.out, want) {
		t.Fatalf("resume: exit %d, summary lacks %q:\n%s%s", r.code, want, r.out, r.err)
	}
}

// TestStdinCopyIsUnlinkedAtOnce: the copy of stdin an import reads twice has
// no name while the import runs, so that a kill -9 leaves nothing behind;
// without --format, its first byte tells NDJSON from CSV.
func TestStdinCopyIsUnlinkedAtOnce(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for in, want := range map[string]rowfile.Format{
		"from,to\na,b\n":               rowfile.CSV,
		"\ufeff\n  {\"from\":\"a\"}\n": rowfile.NDJSON,
		"":                             rowfile.CSV,
	} {
		a := &app{io: &IOStreams{In: strings.NewReader(in)}}
		got, err := a.importInputOf(nil, "-", "")
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("stdin's copy has a name while the import runs: %v", left)
		}
		if got.format != want {
			t.Errorf("%q read as %s, want %s", in, got.format, want)
		}
		f, err := got.open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got.close()
		if string(b) != in {
			t.Errorf("read back %q, want %q", b, in)
		}
	}
}

// TestRejectsFileEndsEveryLineWithANewline: the rejected lines are copied
// one per line, the last too, when the input's last line has no line end.
func TestRejectsFileEndsEveryLineWithANewline(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	dir := t.TempDir()
	if r := adjl(t, runOpts{dir: dir}, "--schema", school, "table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	for name, in := range map[string]string{
		"e.ndjson": `{"from":"a1","to":"c1"}` + "\n" + `{"from":"CRS#x","to":"c1"}` + "\r\n" + `{"to":"c1"}`,
		"e.csv":    "from,to\r\na1,c1\r\nCRS#x,c1\r\n,c1",
	} {
		writeFile(t, filepath.Join(dir, name), in)
		r := adjl(t, runOpts{dir: dir}, "--schema", school, "import", "enrollment", name, "--skip-invalid", "--rejects", "r-"+name, "--quiet")
		if r.code != ExitRejected {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "r-"+name))
		want := `{"from":"CRS#x","to":"c1"}` + "\n" + `{"to":"c1"}` + "\n"
		if name == "e.csv" {
			want = "from,to\nCRS#x,c1\n,c1\n"
		}
		if string(got) != want {
			t.Errorf("%s: rejects %q, want %q", name, got, want)
		}
	}
}

// TestRejectsFileKeepsALineTooLongToRead: an NDJSON line over the reader's
// limit is not held in memory, but the rejects file still gets it as it is
// in the input (from stdin's copy too), in its place among the others.
func TestRejectsFileKeepsALineTooLongToRead(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	dir := t.TempDir()
	if r := adjl(t, runOpts{dir: dir}, "--schema", school, "table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	long := `{"from":"a1","to":"c1","grade":"` + strings.Repeat("x", 5<<20) + `"}`
	bad := `{"from":"CRS#x","to":"c1"}`
	in := `{"from":"a2","to":"c1"}` + "\n" + long + "\r\n" + bad + "\n" + long
	writeFile(t, filepath.Join(dir, "e.ndjson"), in)
	for _, args := range [][]string{{"e.ndjson"}, {"-"}} {
		var stderr bytes.Buffer
		ios := &IOStreams{In: strings.NewReader(in), Out: io.Discard, ErrOut: &stderr}
		t.Chdir(dir)
		a := newApp(ios, append(append([]string{"--schema", school, "import", "enrollment"}, args...), "--skip-invalid", "--rejects", "r.ndjson", "--quiet"))
		if code := a.run(t.Context()); code != ExitRejected {
			t.Fatalf("%v: exit %d: %.300s", args, code, stderr.String())
		}
		if got := stderr.String(); !strings.Contains(got, ":2: line longer than") || !strings.Contains(got, ":4: line longer than") {
			t.Errorf("%v: stderr lacks the long lines:\n%.300s", args, got)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "r.ndjson"))
		if want := long + "\n" + bad + "\n" + long + "\n"; string(got) != want {
			t.Errorf("%v: rejects file of %d bytes, want %d; it starts %.80q", args, len(got), len(want), got)
		}
	}
}

// TestImportResumeThatWritesNothingKeepsTheJournal: a --resume run that
// fails before writing a row of its own still leaves the journal of the
// earlier run, whose rows a later --resume skips, and says --resume.
func TestImportResumeThatWritesNothingKeepsTheJournal(t *testing.T) {
	ri := newRefusingImport(t)
	csv, dir, batches, failAfter, run := ri.csv, ri.dir, &ri.batches, &ri.failAfter, ri.run
	if r := run("table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	failAfter.Store(1000/25 + 5) // the first chunk, then refusals
	if r := run("import", "enrollment", csv, "--quiet", "--workers", "1"); r.code == 0 {
		t.Fatalf("first run: exit 0")
	}
	// The resumed run is refused from its first batch: it writes nothing.
	failAfter.Store(batches.Load())
	r := run("import", "enrollment", csv, "--quiet", "--workers", "1", "--resume")
	if r.code == 0 || !strings.Contains(r.err, "hint: run the same command with --resume to finish it") {
		t.Errorf("resume refused at once: exit %d, stderr:\n%s", r.code, r.err)
	}
	if j, _ := filepath.Glob(filepath.Join(dir, journalDir, "*.journal")); len(j) != 1 {
		t.Fatalf("journals after a resume that wrote nothing: %v", j)
	}
	failAfter.Store(-1)
	r = run("import", "enrollment", csv, "--quiet", "--resume")
	if r.code != 0 || !strings.Contains(r.out, "resumed: 1,000 rows an earlier run had written were skipped\n") {
		t.Fatalf("resume: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
}

// TestImportFailingAfterAnUnacknowledgedWriteSaysToRunAgain: a batch the
// server applied but whose answer never arrived (here a refusal sent after
// the write) leaves edges whose counters the run did not recount; the run
// acknowledged no row, yet its message must still say to run the import
// again, or the counters stay wrong.
func TestImportFailingAfterAnUnacknowledgedWriteSaysToRunAgain(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	csv := writeFile(t, filepath.Join(t.TempDir(), "e.csv"), "from,to\na1,c1\na2,c1\n")
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".BatchWriteItem") {
			e.ServeHTTP(httptest.NewRecorder(), r) // applied, the answer lost
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"answer lost"}`)
			return
		}
		e.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	run := func(args ...string) result {
		return adjl(t, runOpts{dir: dir}, append([]string{"--schema", school, "--endpoint", srv.URL}, args...)...)
	}
	if r := run("table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	r := run("import", "enrollment", csv, "--quiet")
	if r.code == 0 {
		t.Fatal("import: exit 0")
	}
	if v := run("counters", "verify"); v.code == 0 {
		t.Skip("the lost answer left no wrong counter")
	}
	if !strings.Contains(r.err, "run the same command") {
		t.Errorf("counters are wrong after the failed run, but its message does not say to run it again:\n%s", r.err)
	}
}
