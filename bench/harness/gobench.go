package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// engineBenchmarks are the engine's ingest benchmark and its raw-bbolt
// baseline, each in the bench_test.go of the package it measures, run here
// so that their ratio sits in the same report.
var engineBenchmarks = []struct{ name, pkg string }{
	{"BenchmarkBatchWriteIngest", "local"},
	{"BenchmarkRawBboltIngest", "local/internal/kv"},
}

// benchResult is one line of `go test -bench` output: ns/op and any custom
// metrics (b.ReportMetric), keyed by unit.
type benchResult struct {
	Name    string
	Metrics map[string]float64
}

// benchGoTest runs the engine's ingest benchmarks with `go test -bench` and
// reports their ratio, when both exist.
func benchGoTest(ctx context.Context, cfg *config, rep *report, stderr io.Writer) {
	const name = "go test -bench ingest ratio (local, local/internal/kv)"
	if cfg.quick {
		rep.Checks = append(rep.Checks, skipped(areaEngine, name, "≥ 0.50x", "quick mode"))
		return
	}
	var names, pkgs []string
	for _, b := range engineBenchmarks {
		file := filepath.Join(b.pkg, "bench_test.go")
		src, _ := os.ReadFile(filepath.Join(cfg.root, file))
		if !bytes.Contains(src, []byte("func "+b.name+"(")) {
			rep.Checks = append(rep.Checks, skipped(areaEngine, name, "≥ 0.50x", b.name+" not in "+file+" yet"))
			return
		}
		names = append(names, b.name)
		pkgs = append(pkgs, "./"+b.pkg+"/")
	}
	progress(stderr, "go test -bench %s %s", strings.Join(names, "|"), strings.Join(pkgs, " "))
	args := append([]string{"test", "-run", "^$", "-bench", "^(" + strings.Join(names, "|") + ")$", "-benchtime", "2s", "-count", "1"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.root
	out, err := cmd.CombinedOutput()
	os.WriteFile(filepath.Join(cfg.outDir, "gobench.txt"), out, 0o644)
	if err != nil {
		rep.Checks = append(rep.Checks, skipped(areaEngine, name, "≥ 0.50x", "go test -bench failed: "+firstLine(out, err)))
		return
	}
	const sec = "Engine Go benchmarks (go test -bench, items through HTTPClient vs raw bbolt)"
	pairs := pairBenchmarks(parseBench(out), names[0], names[1])
	if len(pairs) == 0 {
		rep.Checks = append(rep.Checks, skipped(areaEngine, name, "≥ 0.50x", "benchmark output not found (see bench/out/gobench.txt)"))
		return
	}
	for _, p := range pairs {
		for _, b := range []*benchResult{p.engine, p.raw} {
			rep.Figures = append(rep.Figures, figure{Section: sec, Name: b.Name, Value: describeMetrics(b.Metrics)})
		}
		cname := name
		if p.sub != "" {
			cname = fmt.Sprintf("go test -bench ingest ratio, %s (local, local/internal/kv)", p.sub)
		}
		ratio, ok := benchRatio(p.engine, p.raw)
		if !ok {
			rep.Checks = append(rep.Checks, skipped(areaEngine, cname, "≥ 0.50x", "benchmarks report neither items/s nor comparable ns/op"))
			continue
		}
		rep.Checks = append(rep.Checks, atLeast(areaEngine, cname, ratio, ingestRatioTarget, "x"))
	}
}

// benchPair is an engine benchmark and the raw baseline with the same
// sub-benchmark name ("file", "memory", or "" without sub-benchmarks).
type benchPair struct {
	sub         string
	engine, raw *benchResult
}

// pairBenchmarks matches engine/sub with raw/sub, in sub-benchmark order.
func pairBenchmarks(res map[string]*benchResult, engine, raw string) []benchPair {
	var pairs []benchPair
	for name, e := range res {
		sub, ok := strings.CutPrefix(name, engine)
		if !ok || (sub != "" && sub[0] != '/') {
			continue
		}
		if r := res[raw+sub]; r != nil {
			pairs = append(pairs, benchPair{sub: strings.TrimPrefix(sub, "/"), engine: e, raw: r})
		}
	}
	slices.SortFunc(pairs, func(a, b benchPair) int { return strings.Compare(a.sub, b.sub) })
	return pairs
}

// benchRatio is engine throughput over raw throughput: from an items/s
// metric when both report one, else from ns/op (same work per op).
func benchRatio(engine, raw *benchResult) (float64, bool) {
	if a, b := engine.Metrics["items/s"], raw.Metrics["items/s"]; a > 0 && b > 0 {
		return a / b, true
	}
	if a, b := engine.Metrics["ns/op"], raw.Metrics["ns/op"]; a > 0 && b > 0 {
		return b / a, true
	}
	return 0, false
}

// parseBench reads `go test -bench` output lines such as
// "BenchmarkX-2   3   123456 ns/op   61234 items/s   12 B/op".
func parseBench(out []byte) map[string]*benchResult {
	res := map[string]*benchResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		b := &benchResult{Name: name, Metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			b.Metrics[f[i+1]] = v
		}
		res[name] = b
	}
	return res
}

func describeMetrics(m map[string]float64) string {
	var parts []string
	for _, unit := range []string{"items/s", "ns/op", "B/op", "allocs/op"} {
		if v, ok := m[unit]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", thousands(v), unit))
		}
	}
	return strings.Join(parts, "  ")
}
