// Command harness measures adjl's embedded DynamoDB-compatible engine against
// the reference implementations (moto's moto_server and dynalite) in one run,
// on this machine, and prints ratios against adjl's performance targets for
// the engine and for sharded relations (bench/README.md lists them). It
// exits 0 whatever the verdicts: the PASS/FAIL lines are
// the result. Run bench/install.sh first; see bench/README.md.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config is the harness's flags, with the budgets of the chosen mode.
type config struct {
	quick          bool
	adjlMode       string // auto, serve, inproc
	targets        string
	clients        int
	rounds         int
	otherEdges     int
	warm, run      budget
	ingestItems    int
	ingestWorker   int
	shardEdges     int
	rssEdges       int
	listRuns       int    // --all runs per layout; first-page runs are 2n+1
	memItems       int    // items in the partition paged for engine memory
	bulkEdges      int    // edges of the large import into the data file
	bulkHTTPEdges  int    // edges imported into adjl local serve, against the raw loop
	bulkMotoEdges  int    // the same into moto
	bulkHTTPRounds int    // rounds of those comparisons
	startupRuns    int    // interleaved runs of each start-up command
	startupOther   string // another adjl binary measured alongside (before/after)
	sections       string
	clientModes    []string // HTTP client modes; the first one's ratios are the verdicts
	build          bool
	outDir         string
	cpuProfile     string
	root           string // repository root
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// Hard stops, well above what the budgets add up to on an idle machine
	// (bench/results/ has run times; the bulk section's 1,000,000-edge import
	// is most of a full run): a machine busy with other work is reported, not
	// hung on.
	limit := 25 * time.Minute
	if cfg.quick {
		limit = 3 * time.Minute
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, limit)
	defer cancelT()

	if err := os.MkdirAll(cfg.outDir, 0o755); err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return 1
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	rep := &report{}
	start := time.Now()
	load0 := loadAvg()
	mode := "full"
	if cfg.quick {
		mode = "quick"
	}
	rep.Header = append(rep.Header,
		fmt.Sprintf("adjl benchmark harness — %s — mode %s — %d CPUs, %s %s/%s",
			start.UTC().Format(time.RFC3339), mode, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH),
		fmt.Sprintf("HTTP workloads: %d concurrent clients (modes %s; verdicts from %s), each run bounded by %s or %d requests (after a %s / %d-request warm-up), %d round(s), loopback only",
			cfg.clients, strings.Join(cfg.clientModes, ","), cfg.clientModes[0], cfg.run.Duration, cfg.run.Requests, cfg.warm.Duration, cfg.warm.Requests, cfg.rounds))

	bin := filepath.Join(cfg.outDir, "adjl")
	binOK := false
	if cfg.build {
		progress(stderr, "building adjl (go build -o %s .)", bin)
		if out, err := buildAdjl(ctx, cfg.root, bin); err != nil {
			rep.Notes = append(rep.Notes, "adjl binary did not build: "+firstLine(out, err))
		} else {
			binOK = true
		}
	} else if _, err := os.Stat(bin); err == nil {
		binOK = true
	}

	if want(cfg.sections, "http") {
		benchHTTP(ctx, cfg, bin, binOK, rep, stderr)
	}
	if want(cfg.sections, "ingest") {
		benchIngest(ctx, cfg, rep, stderr)
	}
	if want(cfg.sections, "gobench") {
		benchGoTest(ctx, cfg, rep, stderr)
	}
	if want(cfg.sections, "memory") {
		benchEngineMemory(ctx, cfg, rep, stderr)
	}
	if want(cfg.sections, "shard") {
		benchShard(ctx, cfg, bin, binOK, rep, stderr)
	}
	if want(cfg.sections, "bulk") {
		benchBulk(ctx, cfg, bin, binOK, rep, stderr)
	}
	if want(cfg.sections, "startup") {
		benchStartup(ctx, cfg, bin, binOK, rep, stderr)
	}
	if ctx.Err() != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("run stopped early: %v (figures after that point are missing)", context.Cause(ctx)))
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("total time %s; load average at start %s, at end %s (other work on the machine skews every figure; the ratios less so)",
		time.Since(start).Round(100*time.Millisecond), load0, loadAvg()))

	var buf bytes.Buffer
	rep.write(&buf)
	stdout.Write(buf.Bytes())
	res := filepath.Join(cfg.outDir, "results.txt")
	if err := os.WriteFile(res, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "harness: write results:", err)
		return 1
	}
	fmt.Fprintln(stderr, "results written to", res)
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	fs.BoolVar(&cfg.quick, "quick", false, "CI smoke mode: small budgets, finishes in under 60 s")
	fs.StringVar(&cfg.adjlMode, "adjl", "auto", "how to run adjl: serve (`adjl local serve --in-memory`), inproc (engine inside the harness), auto (serve if the binary has it)")
	fs.StringVar(&cfg.targets, "targets", "adjl,moto,dynalite", "HTTP targets to measure")
	fs.StringVar(&cfg.sections, "only", "http,ingest,gobench,memory,shard,bulk,startup", "sections to run")
	fs.IntVar(&cfg.clients, "clients", 4, "concurrent clients for the HTTP workloads")
	clientFlag := fs.String("client", "", "HTTP load generator: raw (pre-built JSON over net/http), sdk (aws-sdk-go-v2), or a list such as raw,sdk whose first mode gives the verdicts (default raw,sdk; quick raw)")
	fs.IntVar(&cfg.rounds, "rounds", 0, "rounds over all targets; each figure is the median round (default 3, quick 1)")
	dur := fs.Duration("duration", 0, "time per HTTP run (default 5s, quick 1.5s)")
	reqs := fs.Int("requests", 0, "request cap per HTTP run (default 200000, quick 20000)")
	fs.IntVar(&cfg.ingestItems, "ingest-items", 0, "items per in-memory ingest run; the data-file run writes a fifth (default 500000, quick 20000)")
	fs.IntVar(&cfg.ingestWorker, "ingest-workers", 8, "concurrent BatchWriteItem callers for ingest (a bulk load is I/O-bound: several per core)")
	fs.IntVar(&cfg.shardEdges, "shard-edges", 0, "edges for the sharded listing (default 100000, quick 5000)")
	fs.IntVar(&cfg.rssEdges, "rss-edges", 0, "edges for the streaming peak-memory run (default 1000000; quick mode and negative values skip it)")
	fs.IntVar(&cfg.memItems, "mem-items", 0, "items in the partition paged for the engine-memory check (default 1000000; quick mode and negative values skip it)")
	fs.IntVar(&cfg.bulkEdges, "bulk-edges", 0, "edges of the large import into the embedded data file (default 1000000, quick 20000)")
	fs.IntVar(&cfg.bulkHTTPEdges, "bulk-http-edges", 0, "edges imported into adjl local serve against the raw BatchWriteItem loop (default 200000, quick 10000; negative skips)")
	fs.IntVar(&cfg.bulkMotoEdges, "bulk-moto-edges", 0, "the same into moto (default 5000, quick 1000; negative skips)")
	fs.IntVar(&cfg.bulkHTTPRounds, "bulk-http-rounds", 0, "rounds of the import against the raw loop on each server (default 5, quick 1)")
	fs.IntVar(&cfg.startupRuns, "startup-runs", 0, "interleaved runs of each start-up command; the figures are medians (default 101, quick 21)")
	fs.StringVar(&cfg.startupOther, "startup-compare", "", "another adjl `BINARY` (say, a build of main) whose start-up is measured in the same runs, for before/after figures")
	fs.BoolVar(&cfg.build, "build", true, "build bench/out/adjl from the repository before measuring")
	fs.StringVar(&cfg.outDir, "out", "", "output directory (default <repo>/bench/out)")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write the harness's CPU profile here (with -adjl inproc it includes the engine)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return nil, err
	}
	cfg.root = root
	if cfg.outDir == "" {
		cfg.outDir = filepath.Join(root, "bench", "out")
	}
	if cfg.quick {
		cfg.applySizing(quickSizing)
	} else {
		cfg.applySizing(fullSizing)
	}
	if *clientFlag == "" {
		*clientFlag = "raw,sdk"
		if cfg.quick {
			*clientFlag = clientRaw
		}
	}
	for _, m := range strings.Split(*clientFlag, ",") {
		m = strings.TrimSpace(m)
		if m != clientRaw && m != clientSDK {
			fmt.Fprintf(stderr, "harness: -client %q: want raw, sdk or a list of them\n", *clientFlag)
			return nil, errors.New("bad flags")
		}
		if !slices.Contains(cfg.clientModes, m) {
			cfg.clientModes = append(cfg.clientModes, m)
		}
	}
	if *dur > 0 {
		cfg.run.Duration = *dur
	}
	if *reqs > 0 {
		cfg.run.Requests = *reqs
	}
	if cfg.clients < 1 || cfg.ingestWorker < 1 || cfg.rounds < 1 {
		fmt.Fprintln(stderr, "harness: -clients and -ingest-workers must be at least 1")
		return nil, errors.New("bad flags")
	}
	return cfg, nil
}

// sizing is how much a run does: quickSizing under -quick, fullSizing
// otherwise. A size set by a flag wins where applySizing says so.
type sizing struct {
	rounds, otherEdges, listRuns int
	warm, run                    budget
	ingestItems, shardEdges      int
	bulkEdges, bulkHTTPEdges     int
	bulkMotoEdges, startupRuns   int
	bulkHTTPRounds               int
	rssEdges, memItems           int
}

var (
	quickSizing = sizing{
		rounds: 1, otherEdges: 100, listRuns: 3,
		warm:        budget{Requests: 100, Duration: 300 * time.Millisecond},
		run:         budget{Requests: 20_000, Duration: 1500 * time.Millisecond},
		ingestItems: 20_000, shardEdges: 5_000,
		bulkEdges: 20_000, bulkHTTPEdges: 10_000, bulkMotoEdges: 1_000, bulkHTTPRounds: 1,
		startupRuns: 21,
	}
	fullSizing = sizing{
		rounds: 3, otherEdges: 1000, listRuns: 5,
		warm:        budget{Requests: 1_000, Duration: time.Second},
		run:         budget{Requests: 200_000, Duration: 5 * time.Second},
		ingestItems: 500_000, shardEdges: 100_000,
		bulkEdges: 1_000_000, bulkHTTPEdges: 200_000, bulkMotoEdges: 5_000, bulkHTTPRounds: 5,
		startupRuns: 101, rssEdges: 1_000_000, memItems: 1_000_000,
	}
)

// applySizing fills cfg from s: the sizes with flags keep a value the flag
// set (a positive one; for those taken by zeroDefault, a negative one too,
// which skips), the others are s's.
func (cfg *config) applySizing(s sizing) {
	cfg.rounds = orDefault(cfg.rounds, s.rounds)
	cfg.otherEdges = s.otherEdges
	cfg.warm, cfg.run = s.warm, s.run
	cfg.ingestItems = orDefault(cfg.ingestItems, s.ingestItems)
	cfg.shardEdges = orDefault(cfg.shardEdges, s.shardEdges)
	cfg.listRuns = s.listRuns
	cfg.bulkEdges = orDefault(cfg.bulkEdges, s.bulkEdges)
	cfg.bulkHTTPEdges = zeroDefault(cfg.bulkHTTPEdges, s.bulkHTTPEdges)
	cfg.bulkMotoEdges = zeroDefault(cfg.bulkMotoEdges, s.bulkMotoEdges)
	cfg.bulkHTTPRounds = orDefault(cfg.bulkHTTPRounds, s.bulkHTTPRounds)
	cfg.startupRuns = orDefault(cfg.startupRuns, s.startupRuns)
	cfg.rssEdges = zeroDefault(cfg.rssEdges, s.rssEdges)
	cfg.memItems = zeroDefault(cfg.memItems, s.memItems)
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// zeroDefault is d when v is unset (0); a negative v is kept (it skips).
func zeroDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func want(list, s string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// repoRoot finds the directory holding adjl's go.mod from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/adjl/adjl\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the harness inside the adjl repository (no go.mod for github.com/adjl/adjl found)")
		}
		dir = parent
	}
}

// cliWorkDir is a new temporary directory, for the caller to remove, for a
// section that runs the adjl binary; or, when the section cannot run, why
// not (the binary did not build, no directory).
func cliWorkDir(binOK bool, section string) (dir, whyNot string) {
	if !binOK {
		return "", "adjl binary did not build"
	}
	dir, err := os.MkdirTemp("", "adjl-bench-"+section+"-")
	if err != nil {
		return "", err.Error()
	}
	return dir, ""
}

func buildAdjl(ctx context.Context, root, bin string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	return cmd.CombinedOutput()
}

func firstLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if s == "" {
		return err.Error()
	}
	return s
}

func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// loadAvg is the 1/5/15-minute load average, to show how busy the machine was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
