package e2e

// The reliability tests run real adjl processes (this test binary, which
// doubles as adjl) against the embedded engine's data file, `adjl local
// serve` and the reference server, under concurrency (concurrency_test.go),
// kill -9 and a full disk (crash_test.go, diskfull_test.go) and injected
// network faults (faults_test.go). They share what is here: how hard to
// push, a workspace with both example schemas, a storm of random links and
// unlinks, and the checks every scenario ends with.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stressSize is how hard the reliability tests push. CI runs the small
// size (about a minute and a half of the e2e suite under -race);
// ADJL_RELIABILITY=full runs the full sizes, whose figures bench/results records.
type stressSize struct {
	procs, ops          int     // concurrent link storm: processes x operations each
	motoProcs, motoOps  int     // the same on the reference server
	importRows          int     // rows per file of the concurrent imports
	motoImportRows      int     // the same on the reference server, which is slower
	crashTrials         int     // kill -9 trials per scenario
	crashProcs          int     // storm processes while killing
	killImportRows      int     // rows of the import that is killed
	faultRate           float64 // share of requests that get a fault
	faultProcs          int     // storm under injected faults: processes x operations
	faultOps            int
	faultImportRows     int // rows per import under faults
	faultLists          int // lists paged under faults (of 6)
	motoFaultOps        int // one process on the reference server under faults
	motoFaultImportRows int
	motoFaultLists      int
}

func stressSizes() stressSize {
	if os.Getenv("ADJL_RELIABILITY") == "full" {
		return stressSize{procs: 16, ops: 500, motoProcs: 1, motoOps: 300, importRows: 3000, motoImportRows: 1500,
			crashTrials: 20, crashProcs: 4, killImportRows: 6000,
			faultRate: 0.1, faultProcs: 8, faultOps: 150, faultImportRows: 1000, faultLists: 6, motoFaultOps: 150, motoFaultImportRows: 300, motoFaultLists: 6}
	}
	return stressSize{procs: 4, ops: 12, motoProcs: 1, motoOps: 12, importRows: 600, motoImportRows: 100,
		crashTrials: 2, crashProcs: 3, killImportRows: 1500,
		faultRate: 0.1, faultProcs: 3, faultOps: 12, faultImportRows: 40, faultLists: 3, motoFaultOps: 10, motoFaultImportRows: 20, motoFaultLists: 1}
}

// stressSeed is the seed of this run's random choices, logged so that a
// failure can be replayed with ADJL_RELIABILITY_SEED.
func stressSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ADJL_RELIABILITY_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatalf("ADJL_RELIABILITY_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (ADJL_RELIABILITY_SEED=%d replays it)", seed, seed)
	return seed
}

// workspace is a directory with the school and social examples under fresh
// table names, where adjl runs against one backend.
type workspace struct {
	t        *testing.T
	dir      string
	bin      string
	endpoint string // ADJL_ENDPOINT: "local" or a URL
	tables   map[string]string
}

func newWorkspace(t *testing.T, endpoint string) *workspace {
	t.Helper()
	return newWorkspaceIn(t, t.TempDir(), endpoint)
}

// newWorkspaceIn makes dir the workspace.
func newWorkspaceIn(t *testing.T, dir, endpoint string) *workspace {
	t.Helper()
	bin, err := exec.LookPath("adjl") // the test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, dir: dir, bin: bin, endpoint: endpoint, tables: map[string]string{}}
	for _, name := range []string{"school", "social"} {
		table, err := tableName()
		if err != nil {
			t.Fatal(err)
		}
		data, err := readRepoFile(filepath.Join("examples", name+".yaml"))
		if err == nil {
			data, err = renameTable(data, table)
		}
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(w.dir, name+".yaml"), data)
		w.tables[name] = table
	}
	if endpoint != "local" {
		t.Cleanup(func() {
			c := newClient(endpoint, nil)
			for _, table := range w.tables {
				_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			}
		})
	}
	return w
}

// data is the embedded engine's data file of the workspace.
func (w *workspace) data() string { return localDataFile(w.dir) }

// result is one adjl process's end.
type result struct {
	args           []string
	stdout, stderr string
	code           int  // exit code; -1 when killed
	killed         bool // ended by a signal
}

func (r result) String() string {
	return fmt.Sprintf("adjl %s: exit %d\n%s%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

func (w *workspace) command(ctx context.Context, endpoint string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HOME="+w.dir, "ADJL_ENDPOINT="+endpoint, "ADJL_SCHEMA=school.yaml",
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_SESSION_TOKEN=", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "NO_COLOR=1",
		// A race-enabled adjl sleeps a second at exit by default.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	return cmd, &stdout, &stderr
}

// runOn runs adjl to its end against endpoint; a cancelled ctx kills it
// with SIGKILL.
func (w *workspace) runOn(ctx context.Context, endpoint string, args ...string) result {
	cmd, stdout, stderr := w.command(ctx, endpoint, args...)
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed, r.code = true, -1
		}
	case ctx.Err() != nil: // killed before it started
		r.killed, r.code = true, -1
	default:
		w.t.Errorf("adjl %s: %v", strings.Join(args, " "), err)
		r.code = -1
	}
	return r
}

func (w *workspace) run(ctx context.Context, args ...string) result {
	return w.runOn(ctx, w.endpoint, args...)
}

// must runs adjl and fails the test unless it exits 0.
func (w *workspace) must(args ...string) string {
	w.t.Helper()
	r := w.run(context.Background(), args...)
	if r.code != 0 {
		w.t.Fatalf("%v", r)
	}
	return r.stdout
}

// createTables creates both tables.
func (w *workspace) createTables() {
	w.t.Helper()
	w.must("table", "create", "--wait")
	w.must("--schema", "social.yaml", "table", "create", "--wait")
}

// The storm: random links and unlinks over a small key space, so that
// processes collide on the same edges and counters: 6 students x 4 courses
// in the school example (counters on both sides), 5 x 5 users in the social
// one (4 index shards, a counter spread over 8 items).

// edge names one edge by its stored keys.
type edge struct{ rel, from, to string }

// stormOp is one random link or unlink and the adjl command that does it.
type stormOp struct {
	e    edge
	link bool
	args []string
}

func randomOp(r *rand.Rand) stormOp {
	link := r.IntN(2) == 0
	if r.IntN(2) == 0 {
		s, c := fmt.Sprint("s", r.IntN(6)), fmt.Sprint("c", r.IntN(4))
		verb := map[bool]string{true: "enroll", false: "unenroll"}[link]
		return stormOp{e: edge{"enrollment", "STU#" + s, "CRS#" + c}, link: link, args: []string{verb, s, c}}
	}
	a, b := fmt.Sprint("u", r.IntN(5)), fmt.Sprint("u", r.IntN(5))
	verb := map[bool]string{true: "follow", false: "unfollow"}[link]
	return stormOp{e: edge{"follow", "ACTOR#" + a, "TARGET#" + b}, link: link, args: []string{"--schema", "social.yaml", verb, a, b}}
}

// tally is what the storm's processes acknowledged about one edge: links
// that reported "created" and unlinks that reported "deleted", and the
// operations whose outcome is unknown (killed, or failed with an error
// that does not say whether the request was applied).
type tally struct {
	created, deleted             int
	pendingLinks, pendingUnlinks int
}

// ledger collects the storm's outcomes.
type ledger struct {
	mu    sync.Mutex
	edges map[edge]*tally
	codes map[int]int      // exit codes seen (-1: killed)
	bad   []string         // outcomes no command may report
	notes map[int][]string // a sample of each failure's stderr
	// unchangedHidesCreate: the backend ignores ClientRequestToken, so a
	// link or unlink whose answer was lost and retried reports
	// "unchanged" although it applied (moto; see recordUnchanged).
	unchangedHidesCreate bool
	ops                  int
}

func newLedger() *ledger {
	return &ledger{edges: map[edge]*tally{}, codes: map[int]int{}, notes: map[int][]string{}}
}

func (l *ledger) tally(e edge) *tally {
	t := l.edges[e]
	if t == nil {
		t = &tally{}
		l.edges[e] = t
	}
	return t
}

// record files one operation's result.
func (l *ledger) record(op stormOp, r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops++
	l.codes[r.code]++
	t := l.tally(op.e)
	if r.code != 0 {
		if op.link {
			t.pendingLinks++
		} else {
			t.pendingUnlinks++
		}
		if len(l.notes[r.code]) < 3 {
			l.notes[r.code] = append(l.notes[r.code], strings.TrimSpace(r.stderr))
		}
		return
	}
	want := fmt.Sprintf(" %s %s -> %s\n", op.e.rel, op.e.from, op.e.to)
	switch out := r.stdout; {
	case op.link && out == "created"+want:
		t.created++
	case !op.link && out == "deleted"+want:
		t.deleted++
	case out == "unchanged"+want:
		if l.unchangedHidesCreate {
			if op.link {
				t.pendingLinks++
			} else {
				t.pendingUnlinks++
			}
		}
	default:
		l.bad = append(l.bad, r.String())
	}
}

// summary is a line of figures for the log and bench/results.
func (l *ledger) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var created, deleted int
	for _, t := range l.edges {
		created += t.created
		deleted += t.deleted
	}
	codes := slices.Sorted(maps.Keys(l.codes))
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("exit %d: %d", c, l.codes[c]))
	}
	return fmt.Sprintf("%d operations on %d edges: %d created, %d deleted; %s", l.ops, len(l.edges), created, deleted, strings.Join(parts, ", "))
}

// check compares the edges present at the end with what was acknowledged.
// A link reports "created" only when its conditional write found no edge,
// an unlink "deleted" only when it removed one, so per edge the creates and
// deletes that happened alternate, starting from none: present = creates -
// deletes. With operations of unknown outcome, present may differ from the
// acknowledged difference by at most the unknown links (up) or unlinks
// (down). An edge nobody linked must not exist.
func (l *ledger) check(present map[edge]bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	problems := slices.Clone(l.bad)
	for e := range present {
		if _, ok := l.edges[e]; !ok {
			problems = append(problems, fmt.Sprintf("%v exists but no process linked it", e))
		}
	}
	for e, t := range l.edges {
		p := 0
		if present[e] {
			p = 1
		}
		net := t.created - t.deleted
		if d := p - net; d > t.pendingLinks || -d > t.pendingUnlinks {
			problems = append(problems, fmt.Sprintf("%v: present=%d after %d acknowledged creates and %d deletes (%d links, %d unlinks of unknown outcome)",
				e, p, t.created, t.deleted, t.pendingLinks, t.pendingUnlinks))
		}
	}
	slices.Sort(problems)
	return problems
}

// allowCodes fails the test when an operation ended with another code.
func (l *ledger) allowCodes(t *testing.T, allowed ...int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for c, n := range l.codes {
		if !slices.Contains(allowed, c) {
			t.Errorf("%d operations exited %d (allowed: %v); e.g. %q", n, c, allowed, l.notes[c])
		}
	}
}

// storm runs procs processes, each running ops random operations one after
// another against endpoint, until done or ctx is cancelled (which kills the
// processes running then).
func (w *workspace) storm(ctx context.Context, endpoint string, procs, ops int, seed uint64, l *ledger) {
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(p)))
			for range ops {
				if ctx.Err() != nil {
					return
				}
				op := randomOp(r)
				l.record(op, w.runOn(ctx, endpoint, op.args...))
			}
		}()
	}
	wg.Wait()
}

// presentEdges exports both relations through endpoint.
func (w *workspace) presentEdges(endpoint string) map[edge]bool {
	w.t.Helper()
	present := map[edge]bool{}
	for _, c := range []struct{ rel, schema string }{{"enrollment", "school.yaml"}, {"follow", "social.yaml"}} {
		r := w.runOn(context.Background(), endpoint, "--schema", c.schema, "export", c.rel, "-o", "csv", "--quiet")
		if r.code != 0 {
			w.t.Fatalf("%v", r)
		}
		rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil || len(rows) == 0 {
			w.t.Fatalf("export %s: %v\n%s", c.rel, err, r.stdout)
		}
		for _, row := range rows[1:] {
			e := edge{c.rel, row[0], row[1]}
			if present[e] {
				w.t.Errorf("%v exported twice", e)
			}
			present[e] = true
		}
	}
	return present
}

// countersExact runs counters verify on both schemas through endpoint.
func (w *workspace) countersExact(endpoint string) {
	w.t.Helper()
	for _, sc := range []string{"school.yaml", "social.yaml"} {
		r := w.runOn(context.Background(), endpoint, "--schema", sc, "counters", "verify", "--quiet")
		if r.code != 0 || !strings.Contains(r.stdout, ": all exact") {
			w.t.Errorf("counters of %s: %v", sc, r)
		}
	}
}

// checkStorm is the end of every storm: the edges agree with what was
// acknowledged, every counter equals its edges, every item is whole.
func (w *workspace) checkStorm(endpoint string, l *ledger) {
	w.t.Helper()
	for _, p := range l.check(w.presentEdges(endpoint)) {
		w.t.Error(p)
	}
	w.countersExact(endpoint)
	w.checkItems(endpoint)
}

// scan reads every item of table through endpoint ("local": the data
// file, which no process may hold then).
func (w *workspace) scan(endpoint, table string) []map[string]types.AttributeValue {
	w.t.Helper()
	var api *dynamodb.Client
	if endpoint == "local" {
		eng, err := local.Open(w.data(), local.Options{})
		if err != nil {
			w.t.Fatalf("open the data file: %v", err)
		}
		defer eng.Close()
		api = newClient("http://local.adjl", eng.HTTPClient())
	} else {
		api = newClient(endpoint, nil)
	}
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := api.Scan(context.Background(), in)
		if err != nil {
			w.t.Fatalf("scan %s: %v", table, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// checkItems finds partial items: each is an entity or role item (its own
// index keys and type), a counter shard item, the metadata item, or an
// edge with every key attribute and the index keys its keys give it;
// counters are numbers and never negative.
func (w *workspace) checkItems(endpoint string) {
	w.t.Helper()
	for name, table := range w.tables {
		for _, it := range w.scan(endpoint, table) {
			if p := partial(it); p != "" {
				w.t.Errorf("%s: %s: %s", name, itemLine(it), p)
			}
		}
	}
}

func partial(it map[string]types.AttributeValue) string {
	s := func(name string) string {
		if v, ok := it[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	pk, sk, typ := s("PK"), s("SK"), s("type")
	shardItem := strings.HasPrefix(sk, "ADJL#COUNT#")
	for name, v := range it {
		if strings.HasSuffix(name, "Count") {
			// One shard of a spread counter may go below zero (a recount
			// puts the difference on shard 0); an entity's own may not.
			n, ok := v.(*types.AttributeValueMemberN)
			if !ok || (!shardItem && strings.HasPrefix(n.Value, "-")) {
				return name + " is not a count"
			}
		}
	}
	switch {
	case pk == "" || sk == "":
		return "no key"
	case pk == "ADJL#META" || shardItem:
		return ""
	case typ == "":
		return "no type"
	case typ == "enrollment":
		if !strings.HasPrefix(pk, "STU#") || sk != "ENROLL#"+s("GSI1PK") || s("GSI1SK") != pk {
			return "enrollment edge with wrong keys"
		}
	case typ == "follow":
		ix := s("GSI1PK")
		if !strings.HasPrefix(pk, "ACTOR#") || !strings.HasPrefix(ix, sk+"#") || s("GSI1SK") != pk || it["ADJL#shards#follow"] == nil {
			return "follow edge with wrong keys or no shard stamp"
		}
	case pk != sk || s("GSI1PK") != pk || s("GSI1SK") != pk:
		return "entity item without its index keys"
	}
	return ""
}

// serveRecordURL is the address `adjl local serve` recorded beside data.
func serveRecordURL(t *testing.T, data string) string {
	t.Helper()
	b, err := os.ReadFile(data + "-serve.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.URL
}

// serve starts `adjl local serve` on the workspace's data file and returns
// it once it serves, with its URL.
func (w *workspace) serve() (*exec.Cmd, string) {
	w.t.Helper()
	rec := w.data() + "-serve.json"
	_ = os.Remove(rec) // a killed server's record
	cmd, _, stderr := w.command(context.Background(), "local", "local", "serve", "--addr", "127.0.0.1:0", "--quiet")
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(rec); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			w.t.Fatalf("adjl local serve did not start in 30s:\n%s", stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, serveRecordURL(w.t, w.data())
}

// stopServe interrupts a server and waits for it.
func stopServe(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	_ = cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("adjl local serve: %v", err)
	}
}
