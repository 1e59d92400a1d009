package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/schema"
)

// Targets for sharded relations.
const (
	shardAllRatio   = 1.2
	shardFirstRatio = 1.5
	streamRSSMB     = 64
	shardCount      = 8
	celebrity       = "TARGET#bob"
)

// socialSchema is the follower graph of examples/social.yaml with the
// benchmark's own table name and shard count.
func socialSchema(table string, shards int) string {
	return fmt.Sprintf(`version: 1
table:
  name: %s
  billing: PAY_PER_REQUEST
  index: {name: GSI1, projection: ALL}
entities:
  user: {prefix: "USR#", attributes: {name: string}}
relations:
  follows:
    from: {entity: user, prefix: "ACTOR#"}
    to: {entity: user, prefix: "TARGET#"}
    edge: ""
    verbs: {link: follow, unlink: unfollow, check: follows, forward: following, reverse: followers}
    counters: {from: followingCount, to: followerCount}
    shards: %d
`, table, shards)
}

// benchShard measures the sharding targets through the real CLI against an
// engine served on loopback: reverse --all and first page, sharded N=8 vs
// unsharded, and the peak RSS of streaming a large celebrity partition.
func benchShard(ctx context.Context, cfg *config, bin string, binOK bool, rep *report, stderr io.Writer) {
	names := []struct{ name, target string }{
		{"reverse --all N=8 / unsharded", fmt.Sprintf("≤ %.2fx", shardAllRatio)},
		{"first page N=8 / unsharded", fmt.Sprintf("≤ %.2fx", shardFirstRatio)},
		{"peak RSS of followers --all -o ndjson", fmt.Sprintf("< %d MB", streamRSSMB)},
	}
	skipAll := func(reason string) {
		for _, n := range names {
			rep.Checks = append(rep.Checks, skipped(areaSharding, n.name, n.target, reason))
		}
	}
	work, whyNot := cliWorkDir(binOK, "shard")
	if whyNot != "" {
		skipAll(whyNot)
		return
	}
	defer os.RemoveAll(work)
	sharded, flat := filepath.Join(work, "sharded.yaml"), filepath.Join(work, "flat.yaml")
	os.WriteFile(sharded, []byte(socialSchema("social_sharded", shardCount)), 0o644)
	os.WriteFile(flat, []byte(socialSchema("social_flat", 1)), 0o644)
	if reason := cliMissing(ctx, bin, sharded, work); reason != "" {
		skipAll(reason)
		return
	}
	var t *target
	var err error
	if cfg.adjlMode != "inproc" && hasServe(bin) {
		t, err = startAdjlServe(ctx, bin, cfg.outDir, "adjl-serve-shard.log")
	} else {
		t, err = startAdjlInProcess(ctx)
	}
	if err != nil {
		skipAll("cannot start the engine: " + err.Error())
		return
	}
	defer t.Stop()
	cli := &cliRunner{bin: bin, endpoint: t.Endpoint, home: work}
	const sec = "Sharded reverse listing through the CLI (adjl followers TARGET#bob)"

	// Reverse --all and first page, sharded vs unsharded, same edges. Runs
	// alternate between the two layouts so that the machine's load changes
	// hit both alike; each figure is the median.
	for _, sc := range []string{flat, sharded} {
		progress(stderr, "shard: loading %d edges (%s)", cfg.shardEdges, filepath.Base(sc))
		if err := cli.loadEdges(ctx, sc, cfg.shardEdges); err != nil {
			skipAll(err.Error())
			return
		}
	}
	type listing struct {
		name string
		args []string
		runs int
	}
	listings := []listing{
		{"--all -o ndjson", []string{"--all", "-o", "ndjson"}, cfg.listRuns},
		{"first page -o json", []string{"-o", "json"}, 2*cfg.listRuns + 1},
	}
	ratios := make([]float64, len(listings))
	for li, l := range listings {
		progress(stderr, "shard: %d × adjl followers %s, unsharded and N=%d alternately", l.runs, l.name, shardCount)
		times := map[string][]time.Duration{}
		last := map[string]cliResult{}
		for range l.runs {
			for _, sc := range []string{flat, sharded} {
				res, err := cli.run(ctx, sc, l.args...)
				if err != nil {
					skipAll(err.Error())
					return
				}
				if li == 0 && res.lines < cfg.shardEdges {
					skipAll(fmt.Sprintf("--all printed %d lines for %d edges (%s)", res.lines, cfg.shardEdges, filepath.Base(sc)))
					return
				}
				times[sc] = append(times[sc], res.elapsed)
				last[sc] = res
			}
		}
		med := map[string]time.Duration{}
		for _, sc := range []string{flat, sharded} {
			slices.Sort(times[sc])
			med[sc] = times[sc][len(times[sc])/2]
			label := "unsharded"
			if sc == sharded {
				label = fmt.Sprintf("N=%d", shardCount)
			}
			detail := fmt.Sprintf("median of %d process runs (includes process start), peak RSS %.1f MB",
				l.runs, float64(last[sc].maxRSSKB)/1024)
			if li == 0 {
				detail = fmt.Sprintf("%d edges, %d lines, ", cfg.shardEdges, last[sc].lines) + detail
			}
			rep.Figures = append(rep.Figures, figure{Section: sec, Name: l.name + ", " + label, Value: fmtDur(med[sc]), Detail: detail})
		}
		ratios[li] = med[sharded].Seconds() / med[flat].Seconds()
	}
	rep.Checks = append(rep.Checks,
		atMost(areaSharding, names[0].name, ratios[0], shardAllRatio, "x"),
		atMost(areaSharding, names[1].name, ratios[1], shardFirstRatio, "x"))

	// Peak memory while streaming a large sharded celebrity partition.
	if cfg.rssEdges <= 0 {
		reason := "quick mode (use -rss-edges N)"
		if !cfg.quick {
			reason = "-rss-edges is negative"
		}
		rep.Checks = append(rep.Checks, skipped(areaSharding, names[2].name, names[2].target, reason))
		return
	}
	big := filepath.Join(work, "big.yaml")
	os.WriteFile(big, []byte(socialSchema("social_big", shardCount)), 0o644)
	progress(stderr, "shard: loading %d edges for the memory run", cfg.rssEdges)
	if err := cli.loadEdges(ctx, big, cfg.rssEdges); err != nil {
		rep.Checks = append(rep.Checks, skipped(areaSharding, names[2].name, names[2].target, err.Error()))
		return
	}
	progress(stderr, "shard: streaming %d edges", cfg.rssEdges)
	res, err := cli.run(ctx, big, "--all", "-o", "ndjson")
	if err != nil {
		rep.Checks = append(rep.Checks, skipped(areaSharding, names[2].name, names[2].target, err.Error()))
		return
	}
	if res.lines < cfg.rssEdges {
		rep.Checks = append(rep.Checks, skipped(areaSharding, names[2].name, names[2].target,
			fmt.Sprintf("--all printed %d lines for %d edges", res.lines, cfg.rssEdges)))
		return
	}
	mb := float64(res.maxRSSKB) / 1024
	rep.Figures = append(rep.Figures, figure{Section: sec, Name: fmt.Sprintf("--all -o ndjson, N=%d, %d edges", shardCount, cfg.rssEdges),
		Value: fmtNum(mb, "MB") + " peak RSS", Detail: fmt.Sprintf("%s wall, %d lines", fmtDur(res.elapsed), res.lines)})
	c := atMost(areaSharding, names[2].name, mb, streamRSSMB, "MB")
	c.Target = names[2].target
	if mb >= streamRSSMB {
		c.Verdict = fail
	}
	rep.Checks = append(rep.Checks, c)
}

// cliMissing says why the CLI cannot run the listing yet, or "".
func cliMissing(ctx context.Context, bin, schemaFile, home string) string {
	if _, err := schema.Load(schemaFile); err != nil {
		return "benchmark schema rejected: " + err.Error()
	}
	cmd := exec.CommandContext(ctx, bin, "followers", "--help", "--schema", schemaFile)
	cmd.Env = cliEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "`adjl followers` not available yet: " + firstLine(out, err)
	}
	return ""
}

// cliEnv isolates the CLI from the user's configuration and credentials.
func cliEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ADJL_ENDPOINT=", "AWS_ACCESS_KEY_ID=bench",
		"AWS_SECRET_ACCESS_KEY=bench", "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"}
}

type cliRunner struct {
	bin, endpoint, home string
}

type cliResult struct {
	lines    int
	elapsed  time.Duration
	maxRSSKB int64
}

// run executes `adjl followers TARGET#bob ARGS` against the engine, counting
// stdout lines without keeping them, and records the child's peak RSS.
func (c *cliRunner) run(ctx context.Context, schemaFile string, args ...string) (cliResult, error) {
	argv := append([]string{"followers", celebrity, "--schema", schemaFile, "--endpoint", c.endpoint}, args...)
	cmd := exec.CommandContext(ctx, c.bin, argv...)
	cmd.Env = cliEnv(c.home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return cliResult{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return cliResult{}, fmt.Errorf("start adjl followers: %w", err)
	}
	// Peak RSS: wait4's ru_maxrss would be no use, as a child started by
	// vfork inherits the harness's own high-water mark; VmHWM belongs to the
	// child's address space after exec, so it is polled until the child exits.
	hwm := make(chan int64, 1)
	done := make(chan struct{})
	go func() { hwm <- pollHWM(cmd.Process.Pid, done) }()
	lines := 0
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		_, err := r.ReadSlice('\n')
		if err == nil {
			lines++
			continue
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		break
	}
	close(done)
	peak := <-hwm
	err = cmd.Wait()
	res := cliResult{lines: lines, elapsed: time.Since(start), maxRSSKB: peak}
	if err != nil {
		return res, fmt.Errorf("adjl %v: %w: %s", argv[:2], err, firstLine(stderr.Bytes(), err))
	}
	return res, nil
}

// loadEdges creates the schema's table with `adjl table create` (which
// records the shard count) and writes n follow edges into the celebrity's
// reverse list with BatchWriteItem, keyed by the schema package exactly as
// `adjl follow` keys them. Counters are not maintained: listing ignores them.
func (c *cliRunner) loadEdges(ctx context.Context, schemaFile string, n int) error {
	cmd := exec.CommandContext(ctx, c.bin, "table", "create", "--wait", "--schema", schemaFile, "--endpoint", c.endpoint)
	cmd.Env = cliEnv(c.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("adjl table create: %s", firstLine(out, err))
	}
	s, err := schema.Load(schemaFile)
	if err != nil {
		return err
	}
	rel := s.Relation("follows")
	if rel == nil {
		return errors.New("benchmark schema has no relation follows")
	}
	to, err := rel.ToKey(celebrity)
	if err != nil {
		return err
	}
	tr := newTransport(4)
	defer tr.CloseIdleConnections()
	cl := newClient(c.endpoint, &http.Client{Transport: tr})
	err = writeBatches(ctx, cl, s.Table.Name, n, 4, func(i int) map[string]types.AttributeValue {
		from, _ := rel.FromKey(fmt.Sprintf("u%08d", i))
		l := s.Layout()
		item := map[string]types.AttributeValue{}
		for _, kv := range l.KeyValues(l.EdgeKeys(rel, from, to)) {
			item[kv.Name] = sv(kv.Value)
		}
		if l.Type != "" {
			item[l.Type] = sv(rel.Name)
		}
		return item
	})
	if err != nil {
		return fmt.Errorf("load edges: %w", err)
	}
	return ctx.Err()
}

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// pollHWM reads VmHWM (peak resident set, kB) of pid every 5 ms until done
// is closed and returns the largest value seen. Stdout is drained up to EOF
// before done closes, so the child has produced all its output by then.
func pollHWM(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if kb, ok := readHWM(path); ok && kb > peak {
			peak = kb
		}
		select {
		case <-done:
			if kb, ok := readHWM(path); ok && kb > peak {
				peak = kb
			}
			return peak
		case <-tick.C:
		}
	}
}

// readHWM parses the VmHWM line of a /proc/PID/status file.
func readHWM(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}
