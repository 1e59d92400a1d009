package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/internal/faultproxy"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// faultTarget is an engine behind a fault proxy on loopback.
type faultTarget struct {
	w      *workspace
	direct string // the engine itself
	proxy  string
	p      *faultproxy.Proxy
	// retried counts the commands a transient failure (exit 6 or 7) made
	// a script run again, by exit code.
	retried map[int]int
}

// newFaultTarget puts a proxy with cfg in front of the engine at direct.
func newFaultTarget(t *testing.T, w *workspace, direct string, cfg faultproxy.Config) *faultTarget {
	t.Helper()
	p, err := faultproxy.New(direct, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return &faultTarget{w: w, direct: direct, proxy: srv.URL, p: p, retried: map[int]int{}}
}

// run runs a command through the proxy as a script would: a documented
// transient failure (exit 6: unreachable or failing, 7: throttled after
// the retries) runs it again, up to 30 times; any other code ends it.
// Exit 10, a panic or an error message without "adjl:" fails the test.
func (f *faultTarget) run(args ...string) result {
	f.w.t.Helper()
	for range 30 {
		r := f.w.runOn(context.Background(), f.proxy, args...)
		if r.code == 10 || strings.Contains(r.stderr, "goroutine ") || (r.code > 1 && !strings.Contains(r.stderr, "adjl: ")) {
			f.w.t.Errorf("under faults: %v", r)
			return r
		}
		if r.code != 6 && r.code != 7 {
			return r
		}
		f.retried[r.code]++
	}
	f.w.t.Fatalf("adjl %s still failing after 30 runs", strings.Join(args, " "))
	return result{}
}

// must is run that must end with exit 0.
func (f *faultTarget) must(args ...string) string {
	f.w.t.Helper()
	r := f.run(args...)
	if r.code != 0 {
		f.w.t.Fatalf("under faults: %v", r)
	}
	return r.stdout
}

// TestCommandsUnderInjectedFaults puts a fault proxy on loopback in front
// of `adjl local serve` and runs every kind of command through it while
// 10% of the requests (the rate docs/guarantees.md states) get a fault drawn
// from all of them: 400 ThrottlingException, 400
// ProvisionedThroughputExceededException, 500 InternalServerError, the
// connection closed before the request is forwarded, or after it was
// applied (the answer lost), and - for BatchWriteItem and BatchGetItem -
// part of the batch answered unprocessed. Each command must end correctly
// or with a documented exit code (6 or 7, after which a script runs it
// again): table create; a concurrent storm of links and unlinks whose
// acknowledged outcomes must all hold (a link whose answer was lost
// reports created, through its ClientRequestToken, and counts once);
// lists paged with cursors, which must return each edge exactly once;
// import; export; counters repair; delete --cascade; checks. Counters are
// verified exact on the engine itself afterwards. A second proxy answers
// every other batch in part, for one of the imports and a counters repair.
//
// On moto the storm runs in one process (see TestConcurrentLinkStorm), and
// moto ignores ClientRequestToken (dyntest's NoIdempotencyTokens quirk): a
// transaction whose answer was lost is cancelled on the retry, so a link
// reports "unchanged" although it created the edge. Counters still count
// it once; the ledger treats such an "unchanged" as of unknown outcome.
func TestCommandsUnderInjectedFaults(t *testing.T) {
	size := stressSizes()
	seed := stressSeed(t)
	t.Run("serve", func(t *testing.T) {
		w := newWorkspace(t, "local")
		srv, engine := w.serve()
		defer stopServe(t, srv)
		commandsUnderFaults(t, w, engine, faultScenario{procs: size.faultProcs, ops: size.faultOps, importRows: size.faultImportRows,
			lists: size.faultLists, rate: size.faultRate, seed: seed}, newLedger())
	})
	t.Run("moto", func(t *testing.T) {
		ep := referenceEndpoint(t)
		l := newLedger()
		l.unchangedHidesCreate = true
		commandsUnderFaults(t, newWorkspace(t, ep), ep, faultScenario{procs: size.motoProcs, ops: size.motoFaultOps, importRows: size.motoFaultImportRows,
			lists: size.motoFaultLists, rate: size.faultRate, seed: seed}, l)
	})
}

// faultScenario sizes commandsUnderFaults.
type faultScenario struct {
	procs, ops int     // the storm
	importRows int     // rows per import
	lists      int     // lists paged
	rate       float64 // share of requests faulted
	seed       uint64
}

// commandsUnderFaults is TestCommandsUnderInjectedFaults on the engine at
// engine.
func commandsUnderFaults(t *testing.T, w *workspace, engine string, c faultScenario, l *ledger) {
	procs, ops, importRows, rate, seed := c.procs, c.ops, c.importRows, c.rate, c.seed
	f := newFaultTarget(t, w, engine, faultproxy.Config{Rate: rate, Seed: seed})
	start := time.Now()

	// table create, twice: the second finds the table as the schema says.
	for range 2 {
		f.must("table", "create", "--wait")
		f.must("--schema", "social.yaml", "table", "create", "--wait")
	}
	for _, sc := range []string{"school.yaml", "social.yaml"} {
		r := w.runOn(context.Background(), engine, "--schema", sc, "table", "describe", "-o", "json")
		if r.code != 0 || !strings.Contains(r.stdout, `"matchesSchema": true`) {
			t.Errorf("table created under faults: %v", r)
		}
	}

	// A storm: every acknowledged outcome holds.
	w.storm(context.Background(), f.proxy, procs, ops, seed, l)
	l.allowCodes(t, 0, 6, 7)
	w.checkStorm(engine, l)
	t.Logf("storm of %d x %d through the proxy: %s", procs, ops, l.summary())

	// Lists with cursors: each edge exactly once, in the engine's order.
	pages := 0
	lists := [][]string{
		{"members", "CRS#c1"}, {"--schema", "social.yaml", "followers", "u1"}, {"--schema", "social.yaml", "followers", "u3", "--desc"},
		{"members", "CRS#c2"}, {"courses", "STU#s1"}, {"--schema", "social.yaml", "following", "u2"},
	}
	for _, list := range lists[:c.lists] {
		want := listItems(t, w.runOn(context.Background(), engine, append(list, "--all", "-o", "json")...))
		var got []string
		cursor := ""
		for pages < 10_000 {
			args := append(slices.Clone(list), "--limit", "1", "-o", "json")
			if cursor != "" {
				args = append(args, "--cursor", cursor)
			}
			var page struct {
				Items []map[string]any `json:"items"`
				Next  string           `json:"next"`
			}
			if err := json.Unmarshal([]byte(f.must(args...)), &page); err != nil {
				t.Fatal(err)
			}
			pages++
			for _, it := range page.Items {
				b, _ := json.Marshal(it)
				got = append(got, string(b))
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v paged under faults:\n%v\nwant\n%v", list, got, want)
		}
		if all := listItems(t, f.run(append(list, "--all", "-o", "json")...)); !slices.Equal(all, want) {
			t.Errorf("%v --all under faults: %v, want %v", list, all, want)
		}
	}

	// import, retried with --resume: through the proxy, and through one
	// that answers every other batch in part.
	unprocessed := newFaultTarget(t, w, engine, faultproxy.Config{Decide: func(op string, n int) (faultproxy.Fault, bool) {
		return faultproxy.Unprocessed, (op == "BatchWriteItem" || op == "BatchGetItem") && n%2 == 1
	}})
	n := importRows
	for i, target := range []*faultTarget{f, unprocessed} {
		var rows strings.Builder
		rows.WriteString("from,to,grade\n")
		for j := range n {
			fmt.Fprintf(&rows, "i%d%04d,c%d,%c\n", i, j, j%4, 'A'+j%5)
		}
		input := fmt.Sprintf("%s/rows%d.csv", w.dir, i)
		writeFile(t, input, []byte(rows.String()))
		target.must("import", "enrollment", input, "--quiet", "--resume")
	}
	exported := w.runOn(context.Background(), engine, "export", "enrollment", "-o", "csv", "--quiet")
	for i := range 2 {
		for j := range n {
			if row := fmt.Sprintf("STU#i%d%04d,CRS#c%d,%c,\n", i, j, j%4, 'A'+j%5); !strings.Contains(exported.stdout, row) {
				t.Errorf("imported row %q missing", row)
			}
		}
	}

	// export through the proxy: the same rows as from the engine (its
	// parallel scan writes them in no set order).
	if got, want := sortedLines(f.must("export", "enrollment", "-o", "csv", "--quiet")), sortedLines(exported.stdout); got != want {
		t.Errorf("export under faults differs:\n%s", diffLines(got, want))
	}
	w.countersExact(engine)

	// counters repair: counters made wrong behind adjl's back come back.
	api := newClient(engine, nil)
	for _, c := range []struct{ table, pk, name string }{
		{w.tables["school"], "CRS#c0", "studentCount"}, {w.tables["school"], "STU#s2", "courseCount"},
		{w.tables["social"], "ACTOR#u0", "followingCount"},
	} {
		_, err := api.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(c.table),
			Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: c.pk}, "SK": &types.AttributeValueMemberS{Value: c.pk}},
			UpdateExpression: aws.String("SET #c = :v"), ExpressionAttributeNames: map[string]string{"#c": c.name},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "999"}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	f.must("counters", "repair", "--quiet")
	unprocessed.must("--schema", "social.yaml", "counters", "repair", "--quiet")
	w.countersExact(engine)

	// delete --cascade: after a lost answer the rerun finds nothing (exit 1).
	for _, key := range []string{"STU#s3", "CRS#c3"} {
		if r := f.run("delete", key, "--cascade"); r.code != 0 && r.code != 1 {
			t.Errorf("delete under faults: %v", r)
		}
	}
	w.countersExact(engine)
	w.checkItems(engine)

	// Checks answer what the engine holds.
	for _, pair := range [][2]string{{"s1", "c1"}, {"s4", "c2"}, {"i0001", "c1"}} {
		want := w.runOn(context.Background(), engine, "enrolled", pair[0], pair[1]).code
		if got := f.run("enrolled", pair[0], pair[1]).code; got != want {
			t.Errorf("enrolled %s %s: exit %d under faults, %d on the engine", pair[0], pair[1], got, want)
		}
	}

	t.Logf("%d cursor pages; commands run again after exit 6: %d, after exit 7: %d; %v in all",
		pages, f.retried[6]+unprocessed.retried[6], f.retried[7]+unprocessed.retried[7], time.Since(start).Round(time.Millisecond))
	t.Logf("requests through the proxy (rate %.0f%%), with the faults injected:\n%s", 100*rate, f.p.Summary())
	t.Logf("requests through the proxy answering every other batch in part:\n%s", unprocessed.p.Summary())
	inj := f.p.Injected()
	inj[faultproxy.Unprocessed] += unprocessed.p.Injected()[faultproxy.Unprocessed]
	for _, fault := range faultproxy.All {
		if inj[fault] == 0 {
			t.Errorf("no %s fault was injected: raise the sizes", fault)
		}
	}
}

// sortedLines is s with its lines sorted.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// listItems is a list's items as canonical JSON, in order.
func listItems(t *testing.T, r result) []string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	var out struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	items := make([]string, len(out.Items))
	for i, it := range out.Items {
		b, _ := json.Marshal(it)
		items[i] = string(b)
	}
	return items
}

// TestRetriesBeforeAnExitCode sends commands to an engine behind a proxy
// that fails every request of one operation, and counts what reaches it:
// adjl gives up only after the SDK's four attempts, with exit 7 for
// throttling (each attempt of the link's transaction carrying the same
// token) and exit 6 for server errors and dropped connections.
func TestRetriesBeforeAnExitCode(t *testing.T) {
	w := newWorkspace(t, "local")
	w.createTables()
	srv, engine := w.serve()
	defer stopServe(t, srv)
	for _, c := range []struct {
		fault faultproxy.Fault
		op    string
		args  []string
		code  int
		msg   string
	}{
		{faultproxy.ProvisionedThroughput, "TransactWriteItems", []string{"enroll", "s1", "c1"}, 7, "throttled by the backend after retries"},
		{faultproxy.InternalError, "Query", []string{"courses", "s1"}, 6, "the backend failed after retries"},
		{faultproxy.DropBefore, "GetItem", []string{"enrolled", "s1", "c1"}, 6, "cannot reach the backend"},
	} {
		t.Run(c.fault.String(), func(t *testing.T) {
			f := newFaultTarget(t, w, engine, faultproxy.Config{Decide: func(op string, _ int) (faultproxy.Fault, bool) {
				return c.fault, op == c.op
			}})
			start := time.Now()
			r := w.runOn(context.Background(), f.proxy, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("got %v\nwant exit %d saying %q", r, c.code, c.msg)
			}
			var tokens []string
			for _, e := range f.p.Log() {
				if e.Op == c.op {
					tokens = append(tokens, e.Token)
				}
			}
			if len(tokens) != 4 {
				t.Errorf("%d %s requests reached the proxy, want 4 (the SDK's attempts)", len(tokens), c.op)
			}
			if c.op == "TransactWriteItems" && (tokens[0] == "" || len(slices.Compact(slices.Clone(tokens))) != 1) {
				t.Errorf("tokens of the attempts: %q, want one token for all", tokens)
			}
			t.Logf("exit %d after %d attempts in %v", r.code, len(tokens), time.Since(start).Round(time.Millisecond))
		})
	}
}
