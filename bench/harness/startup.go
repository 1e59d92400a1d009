package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Start-up targets: whole processes, as a user's shell runs them.
const (
	startupTargetMS = 20
	startupEdges    = 30 // more than a page (25), so members prints a next-page hint
)

// startupCase is one command whose process start-up is measured.
type startupCase struct {
	name  string
	bin   string
	args  []string
	lines int // stdout lines it must print (checked once before timing)
}

// benchStartup measures `adjl --help` and a one-page `adjl members` on the
// embedded engine (data file, default schema path) as whole processes,
// against a Go hello world built by the harness in the same run. Runs
// interleave the three commands, rotating which goes first, so the machine's
// changing load hits each alike; the figures are medians.
func benchStartup(ctx context.Context, cfg *config, bin string, binOK bool, rep *report, stderr io.Writer) {
	names := []string{"adjl --help, median wall time", "adjl members (one page, embedded engine), median wall time"}
	target := fmt.Sprintf("< %d ms", startupTargetMS)
	skipAll := func(reason string) {
		for _, n := range names {
			rep.Checks = append(rep.Checks, skipped(areaStartup, n, target, reason))
		}
	}
	work, whyNot := cliWorkDir(binOK, "startup")
	if whyNot != "" {
		skipAll(whyNot)
		return
	}
	defer os.RemoveAll(work)
	hello, err := buildHello(ctx, work)
	if err != nil {
		skipAll("cannot build the hello-world baseline: " + err.Error())
		return
	}
	progress(stderr, "startup: creating the school table and %d enrollments on a data file", startupEdges)
	if err := seedStartup(ctx, cfg.root, bin, work); err != nil {
		skipAll(err.Error())
		return
	}
	cases := []startupCase{
		{name: "go hello world (baseline)", bin: hello, lines: 1},
		{name: "adjl --help", bin: bin, args: []string{"--help"}},
		{name: "adjl members math204 (25 of 30 rows)", bin: bin, args: []string{"members", "math204"}, lines: 25},
	}
	if cfg.startupOther != "" {
		// The same commands with another build, for before/after figures;
		// it reads the data file this build wrote.
		other := filepath.Base(cfg.startupOther)
		cases = append(cases,
			startupCase{name: other + " --help", bin: cfg.startupOther, args: []string{"--help"}},
			startupCase{name: other + " members math204", bin: cfg.startupOther, args: []string{"members", "math204"}, lines: 25})
	}
	for i, c := range cases {
		out, err := runCaptured(ctx, work, c.bin, c.args...)
		if err != nil {
			skipAll(fmt.Sprintf("%s: %v", c.name, err))
			return
		}
		n := strings.Count(string(out), "\n")
		if c.lines > 0 && n != c.lines {
			skipAll(fmt.Sprintf("%s printed %d lines, want %d", c.name, n, c.lines))
			return
		}
		cases[i].lines = n
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		skipAll(err.Error())
		return
	}
	defer null.Close()
	runs := cfg.startupRuns
	progress(stderr, "startup: %d interleaved runs of each of %d commands", runs, len(cases))
	wall := make([][]time.Duration, len(cases))
	cpu := make([][]time.Duration, len(cases))
	for r := range runs {
		for k := range cases {
			i := (r + k) % len(cases)
			w, c, err := timeProcess(ctx, work, null, cases[i].bin, cases[i].args...)
			if err != nil {
				skipAll(fmt.Sprintf("%s: %v", cases[i].name, err))
				return
			}
			wall[i] = append(wall[i], w)
			cpu[i] = append(cpu[i], c)
		}
	}
	const sec = "Process start-up (whole processes, stdout to /dev/null, cwd with ./adjl.yaml and ./.adjl/data.db)"
	med := make([]time.Duration, len(cases))
	for i, c := range cases {
		med[i] = percentile(wall[i], 50)
		detail := fmt.Sprintf("p10 %s, p90 %s, min %s; CPU (user+sys) median %s; %d runs",
			fmtDur(percentile(wall[i], 10)), fmtDur(percentile(wall[i], 90)), fmtDur(slices.Min(wall[i])),
			fmtDur(percentile(cpu[i], 50)), runs)
		if i > 0 {
			detail = fmt.Sprintf("%.2fx hello world, +%s; ", med[i].Seconds()/med[0].Seconds(), fmtDur(med[i]-med[0])) + detail
		}
		rep.Figures = append(rep.Figures, figure{Section: sec, Name: c.name, Value: fmtDur(med[i]), Detail: detail})
	}
	for i, n := range names {
		ms := float64(med[i+1]) / float64(time.Millisecond)
		c := atMost(areaStartup, n, ms, startupTargetMS, "")
		c.Measured = fmt.Sprintf("%.1f ms", ms)
		c.Target = target
		if ms >= startupTargetMS {
			c.Verdict = fail
		}
		c.Note = fmt.Sprintf("hello world %.1f ms in the same run (%.2fx)", float64(med[0])/float64(time.Millisecond), med[i+1].Seconds()/med[0].Seconds())
		rep.Checks = append(rep.Checks, c)
	}
}

// buildHello builds a Go hello world (its own module, no dependencies) into dir.
func buildHello(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "hello-bin")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s", firstLine(out, err))
	}
	return bin, nil
}

// seedStartup writes the school schema as ./adjl.yaml in work, creates its
// table on a data file and enrolls startupEdges students in math204, with
// adjl's own commands.
func seedStartup(ctx context.Context, root, bin, work string) error {
	sch, err := os.ReadFile(filepath.Join(root, "examples", "school.yaml"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "adjl.yaml"), sch, 0o644); err != nil {
		return err
	}
	if out, err := runCaptured(ctx, work, bin, "table", "create"); err != nil {
		return fmt.Errorf("adjl table create: %s", firstLine(out, err))
	}
	for i := range startupEdges {
		if out, err := runCaptured(ctx, work, bin, "enroll", fmt.Sprintf("s%03d", i), "math204", "--set", "grade=A"); err != nil {
			return fmt.Errorf("adjl enroll: %s", firstLine(out, err))
		}
	}
	return nil
}

// runCaptured runs bin in dir with the isolated environment and returns its stdout.
func runCaptured(ctx context.Context, dir, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(dir)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		return errBuf.Bytes(), fmt.Errorf("%w: %s", err, firstLine(errBuf.Bytes(), err))
	}
	return out, nil
}

// timeProcess runs bin once with stdout and stderr on out (a file, so no
// copying goroutine is timed) and returns its wall time, from start to
// reaped, and the CPU time it used.
func timeProcess(ctx context.Context, dir string, out *os.File, bin string, args ...string) (wall, cpu time.Duration, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(dir)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
