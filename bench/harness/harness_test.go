package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestPercentileNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if got := percentile(d, 50); got != 50*time.Millisecond {
		t.Errorf("p50 = %s, want 50ms", got)
	}
	if got := percentile(d, 99); got != 99*time.Millisecond {
		t.Errorf("p99 = %s, want 99ms", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %s, want 0", got)
	}
}

func TestRunConcurrentStopsAtRequestBudget(t *testing.T) {
	var calls atomic.Int64
	seen := make([]atomic.Bool, 100)
	st := runConcurrent(context.Background(), 4, budget{Requests: 100, Duration: time.Minute}, func(_ context.Context, _, seq int) error {
		calls.Add(1)
		if seen[seq].Swap(true) {
			t.Errorf("sequence %d handed out twice", seq)
		}
		if seq%10 == 0 {
			return errors.New("boom")
		}
		return nil
	})
	if calls.Load() != 100 || st.Requests != 100 {
		t.Fatalf("calls = %d, requests = %d, want 100", calls.Load(), st.Requests)
	}
	if st.Errors != 10 || st.FirstErr == nil {
		t.Errorf("errors = %d (first %v), want 10", st.Errors, st.FirstErr)
	}
	if st.PerSec() <= 0 {
		t.Errorf("rate = %f, want > 0", st.PerSec())
	}
}

func TestRunConcurrentStopsAtDuration(t *testing.T) {
	start := time.Now()
	st := runConcurrent(context.Background(), 2, budget{Requests: 1 << 30, Duration: 100 * time.Millisecond}, func(context.Context, int, int) error {
		time.Sleep(time.Millisecond)
		return nil
	})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("ran %s for a 100ms budget", el)
	}
	if st.Requests == 0 || st.Requests > 1000 {
		t.Errorf("requests = %d, want a bounded positive count", st.Requests)
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.6: "1,234,568", -12345: "-12,345"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestChecksVerdicts(t *testing.T) {
	if c := atLeast(areaEngine, "r", 10, 10, "x"); c.Verdict != pass || c.Measured != "10.00x" {
		t.Errorf("atLeast equal: %+v", c)
	}
	if c := atLeast(areaEngine, "r", 9.99, 10, "x"); c.Verdict != fail {
		t.Errorf("atLeast below: %+v", c)
	}
	if c := atMost(areaSharding, "r", 1.21, 1.2, "x"); c.Verdict != fail {
		t.Errorf("atMost above: %+v", c)
	}
	if c := atMost(areaSharding, "r", 1.0, 1.2, "x"); c.Verdict != pass {
		t.Errorf("atMost below: %+v", c)
	}
}

func TestReportPrintsOneVerdictLinePerCheck(t *testing.T) {
	r := &report{Header: []string{"head"}}
	r.Figures = append(r.Figures, figure{Section: "S", Name: "n", Value: "1 req/s"})
	r.Checks = append(r.Checks, atLeast(areaEngine, "a/b", 12, 10, "x"), atLeast(areaEngine, "c/d", 2, 3, "x"), skipped(areaSharding, "e", "≤ 1.2x", "no CLI"))
	var buf bytes.Buffer
	r.write(&buf)
	out := buf.String()
	for _, want := range []string{"PASS  engine: a/b", "FAIL  engine: c/d", "SKIP  sharding: e", "skipped: no CLI", "summary: 1 PASS, 1 FAIL, 1 SKIP"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkBatchWriteIngest-2   	       3	 412345678 ns/op	     60631 items/s	 1234 B/op	  56 allocs/op
BenchmarkRawBboltIngest-2     	       3	 150000000 ns/op	    166667 items/s
PASS
ok  	github.com/adjl/adjl/local	3.2s
`)
	res := parseBench(out)
	e, r := res["BenchmarkBatchWriteIngest"], res["BenchmarkRawBboltIngest"]
	if e == nil || r == nil {
		t.Fatalf("parsed %v", res)
	}
	if e.Metrics["items/s"] != 60631 || e.Metrics["allocs/op"] != 56 {
		t.Errorf("engine metrics %v", e.Metrics)
	}
	ratio, ok := benchRatio(e, r)
	if !ok || ratio < 0.363 || ratio > 0.364 {
		t.Errorf("ratio = %f, %v; want 60631/166667", ratio, ok)
	}
	delete(e.Metrics, "items/s")
	if ratio, _ := benchRatio(e, r); ratio < 0.363 || ratio > 0.364 {
		t.Errorf("ns/op ratio = %f, want 150/412.3", ratio)
	}
}

func TestJoinKeyPreservesTupleOrder(t *testing.T) {
	// ("a", "z") must sort before ("ab", "a"): a plain concatenation would not.
	a, b := joinKey("a", "z"), joinKey("ab", "a")
	if bytes.Compare(a, b) >= 0 {
		t.Errorf("joinKey(a,z)=%x not before joinKey(ab,a)=%x", a, b)
	}
	if got := joinKey("x\x00y"); !bytes.Equal(got, []byte{'x', 0, 0xFF, 'y', 0, 1}) {
		t.Errorf("escaping: %x", got)
	}
}

func TestItemBytesEncodesEveryAttribute(t *testing.T) {
	item := map[string]types.AttributeValue{"PK": sv("ACTOR#u1"), "SK": sv("TARGET#t1")}
	b := itemBytes(item)
	// count + 2 × (len "PK" + kind + len value) with one-byte varints.
	want := 1 + (1 + 2 + 1 + 1 + len("ACTOR#u1")) + (1 + 2 + 1 + 1 + len("TARGET#t1"))
	if len(b) != want || b[0] != 2 {
		t.Errorf("itemBytes = %d bytes (%x), want %d starting with count 2", len(b), b, want)
	}
	if !bytes.Contains(b, []byte("ACTOR#u1")) || !bytes.Contains(b, []byte("TARGET#t1")) {
		t.Errorf("itemBytes lacks values: %q", b)
	}
}

func TestEdgeItemKeysAreFixedWidth(t *testing.T) {
	a, b := edgeItem(1, 2), edgeItem(12345678, 999999)
	for _, k := range []string{"PK", "SK", "GSI1PK", "GSI1SK"} {
		if len(str(a[k])) != len(str(b[k])) {
			t.Errorf("%s widths differ: %q vs %q", k, str(a[k]), str(b[k]))
		}
	}
	if str(a["PK"]) != str(a["GSI1SK"]) || str(a["SK"]) != str(a["GSI1PK"]) {
		t.Errorf("edge item does not invert its keys in GSI1: %v", a)
	}
}

func TestRawBboltIngestWritesAllItems(t *testing.T) {
	res, err := rawBboltIngest(context.Background(), t.TempDir(), 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 1000 || res.PerSec() <= 0 {
		t.Errorf("raw ingest = %+v", res)
	}
}

func TestParseFlagsQuickBudgets(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.run.Duration > 5*time.Second || cfg.rssEdges != 0 || cfg.ingestItems > 100_000 {
		t.Errorf("quick budgets too large: %+v", cfg)
	}
	full, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if full.rssEdges != 1_000_000 || full.shardEdges != 100_000 || full.clients != 4 {
		t.Errorf("full budgets: %+v", full)
	}
}

// TestParseFlagsBulkHTTPRounds: the import against the raw loop runs 5
// rounds, 1 in quick mode, whatever -rounds says, unless
// -bulk-http-rounds sets it.
func TestParseFlagsBulkHTTPRounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 5},
		{[]string{"-quick"}, 1},
		{[]string{"-rounds", "2"}, 5},
		{[]string{"-bulk-http-rounds", "3"}, 3},
		{[]string{"-quick", "-bulk-http-rounds", "3"}, 3},
		{[]string{"-bulk-http-rounds", "1"}, 1},
	} {
		cfg, err := parseFlags(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.bulkHTTPRounds != tc.want {
			t.Errorf("%v: %d rounds, want %d", tc.args, cfg.bulkHTTPRounds, tc.want)
		}
	}
}

func TestMedianRunPicksMiddleRate(t *testing.T) {
	mk := func(n int, errs int) runStats { return runStats{Requests: n, Errors: errs, Elapsed: time.Second} }
	s, rates, errs := medianRun([]runStats{mk(300, 0), mk(100, 1), mk(200, 0)})
	if s.Requests != 200 || rates != "300, 99, 200" || errs != 1 {
		t.Errorf("median = %+v, rates %q, errs %d", s, rates, errs)
	}
}

func TestPairBenchmarksMatchesSubBenchmarks(t *testing.T) {
	res := parseBench([]byte(`BenchmarkBatchWriteIngest/file-2     3   5737454 ns/op   4577 items/s
BenchmarkBatchWriteIngest/memory-2   3    612433 ns/op  41532 items/s
BenchmarkRawBboltIngest/file-2       3   1022419 ns/op  24740 items/s
BenchmarkRawBboltIngest/memory-2     3    784402 ns/op  32354 items/s
BenchmarkBatchWriteIngestOther-2     3    100 ns/op
`))
	pairs := pairBenchmarks(res, "BenchmarkBatchWriteIngest", "BenchmarkRawBboltIngest")
	if len(pairs) != 2 || pairs[0].sub != "file" || pairs[1].sub != "memory" {
		t.Fatalf("pairs = %+v", pairs)
	}
	if r, _ := benchRatio(pairs[1].engine, pairs[1].raw); r < 1.28 || r > 1.29 {
		t.Errorf("memory ratio = %f, want 41532/32354", r)
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (python3 (moto) x) S 1 4200 4200 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 3 0 100 0 0"
	pg, cpu, ok := parseStat(line)
	if !ok || pg != 4200 || cpu != 287*clockTick {
		t.Errorf("parseStat = %d, %s, %v; want 4200, 2.87s", pg, cpu, ok)
	}
	if _, _, ok := parseStat("garbage"); ok {
		t.Error("parseStat accepted garbage")
	}
}

func TestGroupCPUCountsThisProcess(t *testing.T) {
	pgid, err := syscall.Getpgid(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	cpu := groupCPU(pgid)
	before := cpu()
	if before <= 0 {
		t.Fatalf("group CPU of this process = %s, want > 0", before)
	}
	// Spin until the kernel has charged a few clock ticks (bounded: a busy
	// machine may give this process little CPU).
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if cpu() >= before+3*clockTick {
			return
		}
	}
	t.Errorf("group CPU did not grow while spinning for 5s: %s -> %s", before, cpu())
}

func TestPollHWMSeesChildPeak(t *testing.T) {
	// A child that touches ~30 MB, says so, and holds it: the reading must
	// be near that, not the harness's own size.
	cmd := exec.Command("python3", "-c", "import sys, time; b = bytearray(30 << 20); b[::4096] = b'x' * len(b[::4096]); print('ready', flush=True); time.sleep(0.5)")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("python3 not available:", err)
	}
	done := make(chan struct{})
	got := make(chan int64, 1)
	go func() { got <- pollHWM(cmd.Process.Pid, done) }()
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	close(done)
	peak := <-got
	cmd.Wait()
	if peak < 30<<10 || peak > 200<<10 {
		t.Errorf("peak = %d kB, want about 30 MB plus the interpreter", peak)
	}
}

func TestRunConcurrentSeparatesClientTransportErrors(t *testing.T) {
	st := runConcurrent(context.Background(), 2, budget{Requests: 10, Duration: time.Minute}, func(_ context.Context, _, seq int) error {
		switch seq {
		case 1:
			return errors.New("deserialization failed, read tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection")
		case 2:
			return errors.New("ValidationException: bad")
		}
		return nil
	})
	if st.Errors != 2 || st.ClientErrors != 1 {
		t.Errorf("errors = %d, client errors = %d; want 2 and 1", st.Errors, st.ClientErrors)
	}
}

func TestParseFlagsClientModes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{clientRaw, clientSDK}},
		{[]string{"-quick"}, []string{clientRaw}},
		{[]string{"-client", "sdk"}, []string{clientSDK}},
		{[]string{"-client", "sdk, raw,sdk"}, []string{clientSDK, clientRaw}},
	} {
		cfg, err := parseFlags(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !slices.Equal(cfg.clientModes, tc.want) {
			t.Errorf("%v: modes %v, want %v", tc.args, cfg.clientModes, tc.want)
		}
	}
	if _, err := parseFlags([]string{"-client", "curl"}, &bytes.Buffer{}); err == nil {
		t.Error("-client curl accepted")
	}
}

func TestMedianIngestPicksMiddleRate(t *testing.T) {
	mk := func(items int, ms int) ingestResult {
		return ingestResult{Items: items, Elapsed: time.Duration(ms) * time.Millisecond}
	}
	med, rounds := medianIngest([]ingestResult{mk(1000, 10), mk(1000, 40), mk(1000, 20)})
	if med.Elapsed != 20*time.Millisecond || rounds != "; rounds: 100,000 / 25,000 / 50,000 (median)" {
		t.Errorf("median %v, rounds %q", med.Elapsed, rounds)
	}
	if med, rounds := medianIngest([]ingestResult{mk(10, 1)}); med.Items != 10 || rounds != "" {
		t.Errorf("one round: %+v %q", med, rounds)
	}
}

func TestPaddedZeroPadsToWidth(t *testing.T) {
	for _, c := range []struct {
		prefix   string
		n, width int
		want     string
	}{
		{"ACTOR#u", 42, 8, "ACTOR#u00000042"},
		{"TARGET#t", 0, 6, "TARGET#t000000"},
		{"TARGET#t", 1234567, 6, "TARGET#t1234567"}, // wider than width: all digits kept
		{"", 7, 1, "7"},
	} {
		if got := padded(c.prefix, c.n, c.width); got != c.want {
			t.Errorf("padded(%q, %d, %d) = %q, want %q", c.prefix, c.n, c.width, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = padded("ACTOR#u", 123, 8) }); n != 1 {
		t.Errorf("padded allocates %.0f times, want 1", n)
	}
}

// TestStartupBaselineBuildsAndRuns: the hello world the start-up section
// compares against builds, prints its line, and is timed as a process.
func TestStartupBaselineBuildsAndRuns(t *testing.T) {
	dir := t.TempDir()
	hello, err := buildHello(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCaptured(context.Background(), dir, hello)
	if err != nil || string(out) != "hello, world\n" {
		t.Fatalf("hello world printed %q, %v", out, err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	wall, cpu, err := timeProcess(context.Background(), dir, null, hello)
	if err != nil || wall <= 0 || cpu < 0 || wall > 10*time.Second {
		t.Errorf("timeProcess: wall %s, cpu %s, %v", wall, cpu, err)
	}
	if _, _, err := timeProcess(context.Background(), dir, null, hello+"-missing"); err == nil {
		t.Error("timing a missing binary did not fail")
	}
}

func TestCLIWorkDir(t *testing.T) {
	if dir, whyNot := cliWorkDir(false, "test"); dir != "" || whyNot != "adjl binary did not build" {
		t.Errorf("without a binary: %q, %q", dir, whyNot)
	}
	dir, whyNot := cliWorkDir(true, "test")
	if whyNot != "" {
		t.Fatal(whyNot)
	}
	defer os.RemoveAll(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !strings.HasPrefix(filepath.Base(dir), "adjl-bench-test-") {
		t.Errorf("work dir %q: %v", dir, err)
	}
}
