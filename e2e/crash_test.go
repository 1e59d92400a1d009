package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestKillNineDuringImport kills `adjl import` with SIGKILL at a random
// moment, trials times (20 with ADJL_RELIABILITY=full): in even trials at
// a time uniform over 1.2 times a clean run's duration (kills land in the
// checks, among the writes, or after the end), in odd ones at a random
// point of its progress - a random number of chunks journaled, every
// chunk meaning the counter recount - plus up to 50 ms. After each kill
// the data file opens, every item is whole and every edge in it is exactly
// its row; `import --resume` then ends with the table item for item equal
// to a clean run's, with exact counters. (TestImportKilledThenResumed
// kills at three chosen points.)
func TestKillNineDuringImport(t *testing.T) {
	size := stressSizes()
	r := rand.New(rand.NewPCG(stressSeed(t), 1))
	rows := size.killImportRows
	var csvText strings.Builder
	csvText.WriteString("from,to,grade\n")
	for i := range rows {
		fmt.Fprintf(&csvText, "s%05d,c%02d,%c\n", i/20, (i*7)%60, 'A'+i%5)
	}
	input := filepath.Join(t.TempDir(), "edges.csv")
	writeFile(t, input, []byte(csvText.String()))

	clean := newWorkspace(t, "local")
	clean.must("table", "create", "--wait")
	start := time.Now()
	clean.must("import", "enrollment", input, "--quiet")
	took := time.Since(start)
	want := itemLines(clean.scan("local", clean.tables["school"]))
	wantEdges := map[string]bool{}
	for _, l := range want {
		if strings.Contains(l, "type=enrollment") {
			wantEdges[l] = true
		}
	}

	phases := map[string]int{}
	for trial := range size.crashTrials {
		w := newWorkspace(t, "local")
		w.must("table", "create", "--wait")
		ctx, cancel := context.WithCancel(context.Background())
		delay := time.Duration(r.Int64N(int64(took) * 6 / 5))
		when := fmt.Sprintf("after %v", delay.Round(time.Millisecond))
		if trial%2 == 1 {
			delay = time.Hour // the journal decides
			chunks, extra := 1+r.IntN((rows+999)/1000), time.Duration(r.Int64N(int64(50*time.Millisecond)))
			when = fmt.Sprintf("%v after chunk %d", extra.Round(time.Millisecond), chunks)
			go killAtProgress(ctx, w.dir, chunks, extra, cancel)
		}
		timer := time.AfterFunc(delay, cancel)
		res := w.run(ctx, "import", "enrollment", input, "--quiet")
		timer.Stop()
		cancel()
		phase := importPhase(w.dir, res, rows)
		phases[phase]++
		if !res.killed && res.code != 0 {
			t.Fatalf("trial %d: %v", trial, res)
		}
		// The data file opens and holds whole items; each edge is its row.
		for _, it := range w.scan("local", w.tables["school"]) {
			if p := partial(it); p != "" {
				t.Errorf("trial %d (killed %s, %s): %s: %s", trial, when, phase, itemLine(it), p)
			}
			if l := itemLine(it); strings.Contains(l, "type=enrollment") && !wantEdges[l] {
				t.Errorf("trial %d (killed %s, %s): edge %s is not its row", trial, when, phase, l)
			}
		}
		w.must("import", "enrollment", input, "--quiet", "--resume")
		if got := itemLines(w.scan("local", w.tables["school"])); !slices.Equal(got, want) {
			t.Fatalf("trial %d (killed %s, %s): resumed import differs from a clean run:\n%s", trial, when, phase,
				diffLines(strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
		if v := w.must("counters", "verify", "--quiet"); !strings.Contains(v, ": all exact") {
			t.Errorf("trial %d: counters after the resume:\n%s", trial, v)
		}
	}
	t.Logf("%d kills of an import of %d rows (a clean run takes %v): %v", size.crashTrials, rows, took.Round(time.Millisecond), phases)
}

// killAtProgress calls kill extra after the import in dir has journaled
// chunks chunks, unless ctx ends first.
func killAtProgress(ctx context.Context, dir string, chunks int, extra time.Duration, kill func()) {
	for ctx.Err() == nil {
		if done, _ := journaled(dir); done >= chunks {
			time.Sleep(extra)
			kill()
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// journaled reads the progress journal of the import in dir: the chunks
// written from the start (its "done N" lines) and the rows per chunk; -1
// when there is no journal.
func journaled(dir string) (done, chunkRows int) {
	journals, _ := filepath.Glob(filepath.Join(dir, ".adjl", "imports", "*.journal"))
	if len(journals) != 1 {
		return -1, 0
	}
	data, _ := os.ReadFile(journals[0])
	for _, line := range strings.Split(string(data), "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "done %d", &n); err == nil {
			done = max(done, n)
		}
		fmt.Sscanf(line, "chunk-rows %d", &chunkRows)
	}
	return done, chunkRows
}

// importPhase says where a killed import of rows rows was, from its
// progress journal.
func importPhase(dir string, res result, rows int) string {
	if !res.killed {
		return "finished before the kill"
	}
	done, chunkRows := journaled(dir)
	switch {
	case done < 0:
		return "checking the file"
	case done == 0:
		return "writing the first chunk"
	case done*chunkRows >= rows:
		return "recounting counters"
	}
	return fmt.Sprintf("%d of %d chunks journaled", done, (rows+chunkRows-1)/chunkRows)
}

func itemLines(items []map[string]types.AttributeValue) []string {
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = itemLine(it)
	}
	slices.Sort(lines)
	return lines
}

// TestKillNineDuringLinkStorm runs a storm of concurrent links and unlinks
// on the data file and kills every adjl process running at a random moment
// (50-550 ms in), trials times on the same file. After each kill the file
// opens (each process replays what the killed ones left in the write-ahead
// logs), the edges agree with every acknowledged outcome (a killed
// operation may or may not have happened), every counter equals its edges
// and no item is partial.
func TestKillNineDuringLinkStorm(t *testing.T) {
	size := stressSizes()
	seed := stressSeed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	w := newWorkspace(t, "local")
	w.createTables()
	l := newLedger()
	for trial := range size.crashTrials {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(50*time.Millisecond+time.Duration(r.Int64N(int64(500*time.Millisecond))), cancel)
		w.storm(ctx, "local", size.crashProcs, 1_000_000, seed+uint64(trial)*7919, l)
		timer.Stop()
		cancel()
		w.checkStorm("local", l)
		if t.Failed() {
			t.Fatalf("after trial %d: %s", trial, l.summary())
		}
	}
	l.allowCodes(t, 0, -1)
	t.Logf("%d trials of %d processes, each killed: %s", size.crashTrials, size.crashProcs, l.summary())
}

// TestKillNineServeUnderLoad runs a storm through `adjl local serve` and
// kills the server with SIGKILL at a random moment (100-700 ms in), trials
// times on the same data file; the clients then running fail (exit 6) or
// are killed. After each kill the data file opens without the server (its
// stale address record is ignored), nothing the server acknowledged is
// lost, every counter equals its edges and no item is partial; the next
// trial serves the recovered file again.
func TestKillNineServeUnderLoad(t *testing.T) {
	size := stressSizes()
	seed := stressSeed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	w := newWorkspace(t, "local")
	w.createTables()
	l := newLedger()
	for trial := range size.crashTrials {
		srv, _ := w.serve()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.storm(ctx, "local", size.crashProcs, 1_000_000, seed+uint64(trial)*7919, l)
		}()
		time.Sleep(100*time.Millisecond + time.Duration(r.Int64N(int64(600*time.Millisecond))))
		if err := srv.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = srv.Wait()
		time.Sleep(50 * time.Millisecond) // clients meet the dead server
		cancel()
		wg.Wait()
		w.checkStorm("local", l)
		if t.Failed() {
			t.Fatalf("after trial %d: %s", trial, l.summary())
		}
	}
	l.allowCodes(t, 0, 6, -1)
	t.Logf("%d kills of adjl local serve under %d client processes: %s", size.crashTrials, size.crashProcs, l.summary())
}
