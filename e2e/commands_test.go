package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// commands are the suite's own script commands. They run inside the test
// process, so anything slow for a subprocess per call (seeding 1,000 edges,
// following 143 cursors) stays fast.
func commands(b backend) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"seed-links":   func(ts *testscript.TestScript, neg bool, args []string) { seedLinks(ts, neg, args, b) },
		"page-all":     pageAll,
		"save-cursor":  saveCursor,
		"exits":        exits,
		"item":         func(ts *testscript.TestScript, neg bool, args []string) { rawItem(ts, neg, args, b) },
		"dump-table":   func(ts *testscript.TestScript, neg bool, args []string) { dumpTable(ts, neg, args, b) },
		"create-table": func(ts *testscript.TestScript, neg bool, args []string) { createTable(ts, neg, args, b) },
		"wait-file":    waitFile,
		"set-attr":     func(ts *testscript.TestScript, neg bool, args []string) { setAttr(ts, neg, args, b) },
	}
}

// waitFile waits up to 30 seconds for a file to exist (a background
// `adjl local serve` writing its address record):
//
//	wait-file .adjl/data.db-serve.json
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-file FILE")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within 30s", args[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exits runs a program and asserts its exact exit code, keeping its stdout
// and stderr for the `stdout`, `stderr` and `cmp` lines that follow:
//
//	exits 4 adjl table describe
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits (give the expected code instead)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// saveCursor takes the cursor from the next-page hint of the last command's
// stderr and stores it in $VAR, and a copy with one character changed in
// $VAR_TAMPERED:
//
//	save-cursor VAR
func saveCursor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: save-cursor VAR")
	}
	m := cursorHint.FindStringSubmatch(ts.ReadFile("stderr"))
	if m == nil {
		ts.Fatalf("no next-page hint with --cursor in stderr")
	}
	c := []byte(m[1])
	ts.Setenv(args[0], string(c))
	i := len(c) / 2
	if c[i] == 'A' {
		c[i] = 'B'
	} else {
		c[i] = 'A'
	}
	ts.Setenv(args[0]+"_TAMPERED", string(c))
}

// cursorHint finds the cursor in the next-page hint adjl prints on stderr
// ("... --cursor TOKEN"), quoted or not.
var cursorHint = regexp.MustCompile(`--cursor[= ]+['"]?([^'"\s]+)`)

// pageAll pages through a listing by following adjl's own next-page hints
// until there is none, and fails if a row comes back twice:
//
//	page-all FIELD OUTFILE ADJL-ARGS...
//
// Each page is `adjl ADJL-ARGS... -o ndjson [--cursor C]`; FIELD names the
// JSON field that identifies a row. The fields, in the order received, go to
// OUTFILE; stdout gets "ROWS rows in PAGES pages".
func pageAll(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! page-all")
	}
	if len(args) < 3 {
		ts.Fatalf("usage: page-all FIELD OUTFILE ADJL-ARGS...")
	}
	field, outFile, base := args[0], args[1], args[2:]
	seen := map[string]bool{}
	var rows []string
	cursor := ""
	pages := 0
	for {
		run := append(append([]string{}, base...), "-o", "ndjson")
		if cursor != "" {
			run = append(run, "--cursor", cursor)
		}
		err := ts.Exec("adjl", run...)
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				ts.Fatalf("adjl %s: exit %d\n%s", strings.Join(run, " "), ee.ExitCode(), ts.ReadFile("stderr"))
			}
			ts.Check(err)
		}
		pages++
		sc := bufio.NewScanner(strings.NewReader(ts.ReadFile("stdout")))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			var row map[string]any
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				ts.Fatalf("page %d: not ndjson: %q: %v", pages, line, err)
			}
			v, ok := row[field]
			if !ok {
				ts.Fatalf("page %d: row has no %q: %s", pages, field, line)
			}
			key := fmt.Sprint(v)
			if seen[key] {
				ts.Fatalf("page %d: %s returned twice", pages, key)
			}
			seen[key] = true
			rows = append(rows, key)
		}
		m := cursorHint.FindStringSubmatch(ts.ReadFile("stderr"))
		if m == nil {
			break
		}
		if m[1] == cursor {
			ts.Fatalf("page %d: the next-page hint repeats the cursor it was given", pages)
		}
		cursor = m[1]
		if pages > 100000 {
			ts.Fatalf("paging does not end")
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(outFile), []byte(strings.Join(rows, "\n")+"\n"), 0o644))
	fmt.Fprintf(ts.Stdout(), "%d rows in %d pages\n", len(rows), pages)
}
