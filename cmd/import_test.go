package cmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/ops"
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
	j, err := createJournal(key, 1000)
	if err != nil {
		t.Fatal(err)
	}
	j.freshness(true)
	j.done(3)
	j.done(4)
	j.close(false)
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
	j, _ = createJournal(key, 1000)
	j.close(true)
	if _, err := os.Stat(filepath.Join(journalDir, key[:32]+".journal")); !os.IsNotExist(err) {
		t.Fatalf("a finished import left its journal: %v", err)
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
