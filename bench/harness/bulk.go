package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/adjl/adjl/examples"
	"github.com/adjl/adjl/schema"
)

// The bulk-data targets (README "Loading data").
const (
	bulkCIEdges      = 2_000
	bulkCIRatio      = 20     // import of bulkCIEdges < 20 × one `adjl enroll`
	bulkFileRate     = 50_000 // edges/s into the embedded data file, counters included
	bulkFileRSSMB    = 150    // peak RSS of that import
	bulkHTTPRatio    = 0.9    // import ≥ 90% of a raw parallel BatchWriteItem loop
	bulkStudentEdges = 20     // courses per student in the generated data set
	bulkCourseSize   = 400    // students per course in the generated data set
	bulkWorkers      = 8      // the import's default writers, and the raw loop's
	bulkSection      = "Bulk import, export and counters"
)

// schoolSchema is examples/school.yaml under the benchmark's table name;
// counters false drops the counters (to show what they cost).
func schoolSchema(table string, counters bool) string {
	text, ok := examples.Template("school")
	if !ok {
		panic("examples: no school template") // embedded at build time
	}
	s := schoolTableName.ReplaceAllLiteralString(string(text), "  name: "+table)
	if !counters {
		s = schoolCounters.ReplaceAllLiteralString(s, "")
	}
	return s
}

// The lines of examples/school.yaml that schoolSchema rewrites.
var (
	schoolTableName = regexp.MustCompile(`(?m)^  name: school\b`)
	schoolCounters  = regexp.MustCompile(`(?m)^    counters: .*\n`)
)

// bulkCourses is the number of courses in a data set of n edges: about 400
// students each, at least 20 (a school-shaped set: 20 courses a student).
func bulkCourses(n int) int { return max(n/bulkCourseSize, bulkStudentEdges) }

// bulkEdge is edge i of a data set of n edges: student i/20 takes 20
// distinct courses (131·k mod C differs for the 20 values of k when C ≥ 20).
func bulkEdge(i, n int) (student, course, grade string) {
	s := i / bulkStudentEdges
	c := (s*37 + (i%bulkStudentEdges)*131) % bulkCourses(n)
	return padded("s", s, 7), padded("c", c, 5), string(rune('A' + i%5))
}

// bulkItem is the item adjl import writes for edge i of n, keyed by the
// schema package.
func bulkItem(rel *schema.Relation, n int) func(i int) map[string]types.AttributeValue {
	return func(i int) map[string]types.AttributeValue {
		st, co, g := bulkEdge(i, n)
		from, _ := rel.FromKey(st)
		to, _ := rel.ToKey(co)
		l := schema.DefaultLayout
		k := l.EdgeKeys(rel, from, to)
		return map[string]types.AttributeValue{
			l.PK: sv(k.PK), l.SK: sv(k.SK), l.IndexPK: sv(k.IndexPK), l.IndexSK: sv(k.IndexSK),
			l.Type: sv(rel.Name), "grade": sv(g),
		}
	}
}

// writeBulkCSV writes edges [0, n) as an import file.
func writeBulkCSV(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("from,to,grade\n")
	for i := range n {
		s, c, g := bulkEdge(i, n)
		w.WriteString(s)
		w.WriteByte(',')
		w.WriteString(c)
		w.WriteByte(',')
		w.WriteString(g)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bulkRun is one adjl process: its wall time, peak RSS and -o json output.
type bulkRun struct {
	elapsed  time.Duration
	maxRSSKB int64
	out      map[string]any
}

// runAdjl runs adjl in dir (its default data file is dir/.adjl/data.db) and
// polls its peak RSS; -o json output, if any, is decoded.
func runAdjl(ctx context.Context, bin, dir string, args ...string) (bulkRun, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return bulkRun{}, err
	}
	done := make(chan struct{})
	hwm := make(chan int64, 1)
	go func() { hwm <- pollHWM(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	close(done)
	res := bulkRun{elapsed: time.Since(start), maxRSSKB: <-hwm}
	if err != nil {
		return res, fmt.Errorf("adjl %s: %w: %s", strings.Join(args[:min(2, len(args))], " "), err, firstLine(stderr.Bytes(), err))
	}
	if bytes.HasPrefix(bytes.TrimSpace(stdout.Bytes()), []byte("{")) {
		_ = json.Unmarshal(stdout.Bytes(), &res.out)
	}
	return res, nil
}

// bulkTable is the table newBulkDir creates for name.
func bulkTable(name string) string { return "bulk_" + name }

// newBulkDir is a fresh directory with the school schema as adjl.yaml and
// its table created (on endpoint, or in the directory's data file).
func newBulkDir(ctx context.Context, bin, parent, table, endpoint string, counters bool) (string, error) {
	dir, err := os.MkdirTemp(parent, table+"-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "adjl.yaml"), []byte(schoolSchema(bulkTable(table), counters)), 0o644); err != nil {
		return "", err
	}
	_, err = runAdjl(ctx, bin, dir, "--endpoint", endpoint, "table", "create", "--wait")
	return dir, err
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func durList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtDur(d)
	}
	return strings.Join(parts, " / ")
}

// requestsOf renders the "requests" object of an -o json report (out is
// nil when the run printed none).
func requestsOf(out map[string]any) string {
	m, ok := out["requests"].(map[string]any)
	if !ok {
		return "requests not reported (no -o json report)"
	}
	var parts []string
	total := 0.0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		n, _ := m[k].(float64)
		total += n
		parts = append(parts, fmt.Sprintf("%s %s", thousands(n), k))
	}
	return fmt.Sprintf("%s requests (%s)", thousands(total), strings.Join(parts, ", "))
}

// benchBulk measures the bulk-data targets with the built adjl: a CI-sized
// import against one enroll, a large import into the embedded data file
// (rate and peak RSS), counters verify over it, and imports into HTTP
// endpoints against a raw parallel BatchWriteItem loop.
func benchBulk(ctx context.Context, cfg *config, bin string, binOK bool, rep *report, stderr io.Writer) {
	names := []struct{ name, target string }{
		{fmt.Sprintf("import %d edges / one adjl enroll", bulkCIEdges), fmt.Sprintf("≤ %dx", bulkCIRatio)},
		{"import into the data file, counters included", fmt.Sprintf("≥ %s edges/s", thousands(bulkFileRate))},
		{"peak RSS of that import", fmt.Sprintf("< %d MB", bulkFileRSSMB)},
		{"import / raw BatchWriteItem loop, adjl local serve", fmt.Sprintf("≥ %.2fx", bulkHTTPRatio)},
		{"import / raw BatchWriteItem loop, moto", fmt.Sprintf("≥ %.2fx", bulkHTTPRatio)},
	}
	skipFrom := func(from int, reason string) {
		for _, n := range names[from:] {
			rep.Checks = append(rep.Checks, skipped(areaBulk, n.name, n.target, reason))
		}
	}
	if !binOK {
		skipFrom(0, "adjl binary did not build")
		return
	}
	if out, err := exec.Command(bin, "import", "--help").CombinedOutput(); err != nil {
		skipFrom(0, "`adjl import` not available: "+firstLine(out, err))
		return
	}
	work, err := os.MkdirTemp("", "adjl-bench-bulk-")
	if err != nil {
		skipFrom(0, err.Error())
		return
	}
	defer os.RemoveAll(work)

	// CI-sized: one enroll process against an import of 2,000 edges, both
	// into a fresh embedded data file, medians of runs alternating.
	progress(stderr, "bulk: %d-edge import vs one adjl enroll (embedded data file)", bulkCIEdges)
	ciCSV := filepath.Join(work, "ci.csv")
	if err := writeBulkCSV(ciCSV, bulkCIEdges); err != nil {
		skipFrom(0, err.Error())
		return
	}
	var enrolls, imports []time.Duration
	runs := 3
	if cfg.quick {
		runs = 1
	}
	for r := range runs {
		dir, err := newBulkDir(ctx, bin, work, "ci", "local", true)
		if err != nil {
			skipFrom(0, err.Error())
			return
		}
		for k := range 3 {
			res, err := runAdjl(ctx, bin, dir, "enroll", fmt.Sprintf("e%d", r*3+k), "c1", "--set", "grade=A")
			if err != nil {
				skipFrom(0, err.Error())
				return
			}
			enrolls = append(enrolls, res.elapsed)
		}
		res, err := runAdjl(ctx, bin, dir, "import", "enrollment", ciCSV, "--quiet")
		if err != nil {
			skipFrom(0, err.Error())
			return
		}
		imports = append(imports, res.elapsed)
	}
	enroll, imp := median(enrolls), median(imports)
	rep.Figures = append(rep.Figures,
		figure{Section: bulkSection, Name: "adjl enroll (one edge, one process)", Value: fmtDur(enroll), Detail: "median of " + durList(enrolls)},
		figure{Section: bulkSection, Name: fmt.Sprintf("adjl import, %d edges from CSV", bulkCIEdges), Value: fmtDur(imp),
			Detail: fmt.Sprintf("median of %s; %d enroll processes would take ~%s", durList(imports), bulkCIEdges, fmtDur(enroll*bulkCIEdges))})
	rep.Checks = append(rep.Checks, atMost(areaBulk, names[0].name, imp.Seconds()/enroll.Seconds(), bulkCIRatio, "x"))

	// Large: cfg.bulkEdges into the embedded data file, end to end.
	big := filepath.Join(work, "big.csv")
	progress(stderr, "bulk: writing a %d-edge CSV", cfg.bulkEdges)
	if err := writeBulkCSV(big, cfg.bulkEdges); err != nil {
		skipFrom(1, err.Error())
		return
	}
	// The engine alone, in the same minutes: a raw in-process loop writing
	// the same items into a data file of its own.
	var rawFile time.Duration
	if engineLinked {
		rdir, err := newBulkDir(ctx, bin, work, "bigraw", "local", true)
		if err != nil {
			skipFrom(1, err.Error())
			return
		}
		s, err := schema.Load(filepath.Join(rdir, "adjl.yaml"))
		if err != nil {
			skipFrom(1, err.Error())
			return
		}
		progress(stderr, "bulk: raw in-process BatchWriteItem loop of %d edges into a data file", cfg.bulkEdges)
		rawFile, err = engineFileLoad(ctx, filepath.Join(rdir, ".adjl", "data.db"), s.Table.Name, cfg.bulkEdges, bulkWorkers, bulkItem(s.Relations[0], cfg.bulkEdges))
		if err != nil {
			rep.Notes = append(rep.Notes, "raw data-file loop: "+err.Error())
			rawFile = 0
		}
		os.RemoveAll(rdir)
	}
	dir, err := newBulkDir(ctx, bin, work, "big", "local", true)
	if err != nil {
		skipFrom(1, err.Error())
		return
	}
	progress(stderr, "bulk: adjl import of %d edges into the embedded data file", cfg.bulkEdges)
	res, err := runAdjl(ctx, bin, dir, "import", "enrollment", big, "--quiet", "-o", "json")
	if err != nil {
		skipFrom(1, err.Error())
		return
	}
	rate := float64(cfg.bulkEdges) / res.elapsed.Seconds()
	mb := float64(res.maxRSSKB) / 1024
	st, _ := os.Stat(big)
	rep.Figures = append(rep.Figures, figure{Section: bulkSection, Name: fmt.Sprintf("adjl import, %s edges, data file", thousands(float64(cfg.bulkEdges))),
		Value: fmtNum(rate, "edges/s"), Detail: fmt.Sprintf("%s wall (process start to exit), %.1f MB peak RSS, %s CSV, %s students x %d courses of %d; %v counters recounted; %s",
			fmtDur(res.elapsed), mb, fmtNum(float64(st.Size())/(1<<20), "MB"), thousands(float64(cfg.bulkEdges/bulkStudentEdges)), bulkStudentEdges, bulkCourses(cfg.bulkEdges),
			res.out["counters"], requestsOf(res.out)) + phasesOf(res.out)})
	if rawFile > 0 {
		rep.Figures = append(rep.Figures, figure{Section: bulkSection, Name: fmt.Sprintf("raw BatchWriteItem loop in process, %s edges, data file", thousands(float64(cfg.bulkEdges))),
			Value:  fmtNum(float64(cfg.bulkEdges)/rawFile.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%s open to close, %d writers, the same items without counters; the import ran at %.2fx this", fmtDur(rawFile), bulkWorkers, rawFile.Seconds()/res.elapsed.Seconds())})
	}
	rep.Checks = append(rep.Checks, atLeast(areaBulk, names[1].name, rate, bulkFileRate, "edges/s"))
	c := atMost(areaBulk, names[2].name, mb, bulkFileRSSMB, "MB")
	if mb >= bulkFileRSSMB {
		c.Verdict = fail
	}
	rep.Checks = append(rep.Checks, c)

	progress(stderr, "bulk: adjl counters verify over %d edges", cfg.bulkEdges)
	if res, err := runAdjl(ctx, bin, dir, "counters", "verify", "--quiet", "-o", "json"); err != nil {
		rep.Notes = append(rep.Notes, "counters verify: "+err.Error())
	} else {
		rep.Figures = append(rep.Figures, figure{Section: bulkSection, Name: fmt.Sprintf("adjl counters verify, %s edges", thousands(float64(cfg.bulkEdges))),
			Value: fmtDur(res.elapsed), Detail: fmt.Sprintf("%v counters, %v items scanned, %v wrong, %.1f MB peak RSS, %s",
				res.out["counters"], res.out["items"], len(anySlice(res.out["wrong"])), float64(res.maxRSSKB)/1024, requestsOf(res.out))})
	}

	// HTTP endpoints: the import against a raw SDK loop, same edges, same
	// server, rounds alternating.
	benchBulkHTTP(ctx, cfg, bin, work, rep, stderr, names[3].name, names[3].target, cfg.bulkHTTPEdges, func() (*target, error) {
		return startAdjlServe(ctx, bin, cfg.outDir, "adjl-serve-bulk.log")
	})
	benchBulkHTTP(ctx, cfg, bin, work, rep, stderr, names[4].name, names[4].target, cfg.bulkMotoEdges, func() (*target, error) {
		return startMoto(ctx, cfg.outDir)
	})
}

// importRequests renders an import's requests and phases, from its -o json
// report, beside the loopCalls BatchWriteItem calls of the raw loop.
func importRequests(out map[string]any, loopCalls int) string {
	loop := thousands(float64(loopCalls)) + " BatchWriteItem"
	if _, ok := out["requests"].(map[string]any); !ok {
		return requestsOf(out) + "; the loop's " + loop
	}
	return requestsOf(out) + " against the loop's " + loop + phasesOf(out)
}

// phasesOf renders the "phases" of an import's -o json report.
func phasesOf(out map[string]any) string {
	m, _ := out["phases"].(map[string]any)
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{"check", "write", "counters"} {
		if v, ok := m[k].(float64); ok {
			parts = append(parts, fmt.Sprintf("%s %.1fs", k, v))
		}
	}
	return "; phases: " + strings.Join(parts, ", ")
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// benchBulkHTTP compares, on one server, `adjl import` of n edges (with
// counters, and without them to show their share) with a hand-written loop
// of parallel BatchWriteItem calls through the SDK writing the same items.
func benchBulkHTTP(ctx context.Context, cfg *config, bin, work string, rep *report, stderr io.Writer, name, target string, n int, start func() (*target, error)) {
	if n <= 0 {
		rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, "no edges asked for"))
		return
	}
	t, err := start()
	if err != nil {
		rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
		return
	}
	defer t.Stop()
	csv := filepath.Join(work, fmt.Sprintf("http-%d.csv", n))
	if err := writeBulkCSV(csv, n); err != nil {
		rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
		return
	}
	tr := newTransport(bulkWorkers)
	defer tr.CloseIdleConnections()
	cl := newClient(t.Endpoint, &http.Client{Transport: tr})
	rounds := cfg.bulkHTTPRounds
	var raw, rawC, withC, exclusive, without []time.Duration
	var withOut map[string]any // the last import with counters' -o json report
	for r := range rounds {
		progress(stderr, "bulk: %s round %d/%d: raw loop, import, import --exclusive, import without counters (%d edges)", t.Name, r+1, rounds, n)
		// Raw loop: the items adjl writes, keyed by the schema package.
		dir, err := newBulkDir(ctx, bin, work, fmt.Sprintf("raw%d", r), t.Endpoint, true)
		if err != nil {
			rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
			return
		}
		s, err := schema.Load(filepath.Join(dir, "adjl.yaml"))
		if err != nil {
			rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
			return
		}
		t0 := time.Now()
		err = writeBatches(ctx, cl, s.Table.Name, n, bulkWorkers, bulkItem(s.Relations[0], n))
		raw = append(raw, time.Since(t0))
		if err != nil {
			rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, "raw loop: "+err.Error()))
			return
		}
		// What a hand-written loop must add for the same table: each
		// entity's counter, one UpdateItem each, as many at once.
		t0 = time.Now()
		if err := writeCounters(ctx, cl, s.Table.Name, n); err != nil {
			rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, "raw counters: "+err.Error()))
			return
		}
		rawC = append(rawC, raw[len(raw)-1]+time.Since(t0))
		if err := dropTable(ctx, cl, s.Table.Name); err != nil {
			rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
			return
		}
		// The import as a shared table gets it, as a CI step owning its
		// table may run it (--exclusive: counters put back without a
		// condition), and of a relation without counters.
		for i, v := range []struct {
			counters bool
			flags    []string
			into     *[]time.Duration
		}{{true, nil, &withC}, {true, []string{"--exclusive"}, &exclusive}, {false, nil, &without}} {
			table := fmt.Sprintf("imp%d_%d", r, i)
			dir, err := newBulkDir(ctx, bin, work, table, t.Endpoint, v.counters)
			if err != nil {
				rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
				return
			}
			args := append([]string{"--endpoint", t.Endpoint, "import", "enrollment", csv, "--quiet", "-o", "json", "--workers", strconv.Itoa(bulkWorkers)}, v.flags...)
			res, err := runAdjl(ctx, bin, dir, args...)
			if err != nil {
				rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
				return
			}
			*v.into = append(*v.into, res.elapsed)
			if i == 0 {
				withOut = res.out
			}
			if err := dropTable(ctx, cl, bulkTable(table)); err != nil {
				rep.Checks = append(rep.Checks, skipped(areaBulk, name, target, err.Error()))
				return
			}
		}
	}
	mr, mrc, mw, mx, mo := median(raw), median(rawC), median(withC), median(exclusive), median(without)
	sec := bulkSection
	rep.Figures = append(rep.Figures,
		figure{Section: sec, Name: fmt.Sprintf("%s: raw SDK BatchWriteItem loop, %s edges", t.Name, thousands(float64(n))), Value: fmtNum(float64(n)/mr.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%d writers; rounds %s", bulkWorkers, durList(raw))},
		figure{Section: sec, Name: fmt.Sprintf("%s: the same, then one UpdateItem per entity's counter", t.Name), Value: fmtNum(float64(n)/mrc.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%s counters, %d at once: the same table as the import; rounds %s", thousands(float64(n/bulkStudentEdges+bulkCourses(n))), bulkWorkers, durList(rawC))},
		figure{Section: sec, Name: fmt.Sprintf("%s: adjl import, counters included", t.Name), Value: fmtNum(float64(n)/mw.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%.2fx the raw loop, %.2fx the raw loop with counters; whole process incl. the checking pass; %s; rounds %s",
				mr.Seconds()/mw.Seconds(), mrc.Seconds()/mw.Seconds(), importRequests(withOut, (n+24)/25), durList(withC))},
		figure{Section: sec, Name: fmt.Sprintf("%s: adjl import --exclusive, counters included", t.Name), Value: fmtNum(float64(n)/mx.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%.2fx the raw loop, %.2fx the raw loop with counters; counters put back 25 to a BatchWriteItem; rounds %s", mr.Seconds()/mx.Seconds(), mrc.Seconds()/mx.Seconds(), durList(exclusive))},
		figure{Section: sec, Name: fmt.Sprintf("%s: adjl import, relation without counters", t.Name), Value: fmtNum(float64(n)/mo.Seconds(), "edges/s"),
			Detail: fmt.Sprintf("%.2fx the raw loop; rounds %s", mr.Seconds()/mo.Seconds(), durList(without))})
	c := atLeast(areaBulk, name, mr.Seconds()/mw.Seconds(), bulkHTTPRatio, "x")
	c.Note = fmt.Sprintf("vs the raw loop writing the counters too %.2fx; --exclusive %.2fx; without counters %.2fx", mrc.Seconds()/mw.Seconds(), mr.Seconds()/mx.Seconds(), mr.Seconds()/mo.Seconds())
	rep.Checks = append(rep.Checks, c)
}

// dropTable deletes a table a run has measured, so that every run finds the
// server holding what the first did: an in-memory server's heap, and so its
// collector's work, grows with every table it keeps.
func dropTable(ctx context.Context, cl *dynamodb.Client, table string) error {
	if _, err := cl.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("delete table %s: %w", table, err)
	}
	return nil
}

// writeCounters sets the counters the data set of n edges gives each
// student and course with one UpdateItem each, bulkWorkers at once.
func writeCounters(ctx context.Context, cl *dynamodb.Client, table string, n int) error {
	counts := map[string]int{}
	for i := range n {
		s, c, _ := bulkEdge(i, n)
		counts["STU#"+s]++
		counts["CRS#"+c]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(bulkWorkers)
	for _, k := range keys {
		name := "courseCount"
		if strings.HasPrefix(k, "CRS#") {
			name = "studentCount"
		}
		g.Go(func() error {
			_, err := cl.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: map[string]types.AttributeValue{schema.DefaultPK: sv(k), schema.DefaultSK: sv(k)},
				UpdateExpression:          aws.String("SET #c = :n, GSI1PK = :k, GSI1SK = :k, #t = :t"),
				ExpressionAttributeNames:  map[string]string{"#c": name, "#t": schema.DefaultType},
				ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(counts[k])}, ":k": sv(k), ":t": sv("x")},
			})
			return err
		})
	}
	return g.Wait()
}
