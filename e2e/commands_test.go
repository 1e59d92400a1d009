package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// commands are the suite's own script commands. They run inside the test
// process, so anything slow for a subprocess per call (seeding 1,000 edges,
// following 143 cursors) stays fast.
func commands(b backend) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"seed-links":  func(ts *testscript.TestScript, neg bool, args []string) { seedLinks(ts, neg, args, b) },
		"page-all":    pageAll,
		"save-cursor": saveCursor,
		"exits":       exits,
		"item":        func(ts *testscript.TestScript, neg bool, args []string) { rawItem(ts, neg, args, b) },
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

// seedLinks links N generated keys to one key through ops.Store, the same
// code path as `adjl <link-verb>`, and writes the generated keys, sorted, to
// OUTFILE for later comparison:
//
//	seed-links SCHEMA RELATION FROM TO N OUTFILE
//
// Exactly one of FROM and TO ends in "*", which is replaced by a zero-padded
// index: `seed-links adjl.yaml enrollment STU#s* CRS#math204 1000 seeded.txt`
// enrolls STU#s0000 .. STU#s0999 in CRS#math204.
func seedLinks(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if neg {
		ts.Fatalf("unsupported: ! seed-links")
	}
	if len(args) != 6 {
		ts.Fatalf("usage: seed-links SCHEMA RELATION FROM TO N OUTFILE")
	}
	s, err := schema.Load(ts.MkAbs(args[0]))
	ts.Check(err)
	rel := s.Relation(args[1])
	if rel == nil {
		ts.Fatalf("no relation %q in %s", args[1], args[0])
	}
	from, to := args[2], args[3]
	fromMany, toMany := strings.HasSuffix(from, "*"), strings.HasSuffix(to, "*")
	if fromMany == toMany {
		ts.Fatalf("seed-links: exactly one of FROM and TO must end in *")
	}
	n, err := strconv.Atoi(args[4])
	ts.Check(err)

	api, closeAPI, err := openBackend(ts, b)
	ts.Check(err)
	defer closeAPI()
	store := ops.New(api, s, ops.Options{})

	keys := make([]string, n)
	width := len(strconv.Itoa(n - 1))
	stem := strings.TrimSuffix(from, "*")
	if toMany {
		stem = strings.TrimSuffix(to, "*")
	}
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%0*d", stem, width, i)
	}
	link := func(k string) error {
		f, t := k, to
		if toMany {
			f, t = from, k
		}
		if _, _, err := store.Link(context.Background(), rel, f, t, nil); err != nil {
			return fmt.Errorf("link %s %s: %w", f, t, err)
		}
		return nil
	}
	// moto_server mishandles concurrent transactions on one item (it answers
	// 500 with an HTML page), so links to a reference server go one at a time.
	workers := 8
	if b.endpoint != "" {
		workers = 1
	}
	ts.Check(parallel(keys, workers, link))
	sort.Strings(keys)
	ts.Check(os.WriteFile(ts.MkAbs(args[5]), []byte(strings.Join(keys, "\n")+"\n"), 0o644))
}

// parallel calls f for every key with at most n calls at once and returns
// the first error (the remaining keys are skipped after one).
func parallel(keys []string, n int, f func(string) error) error {
	jobs := make(chan string)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return firstErr != nil }
	for range n {
		wg.Go(func() {
			for k := range jobs {
				if failed() {
					continue
				}
				if err := f(k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	return firstErr
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

// rawItem prints one stored item exactly as the table holds it, one
// "name=value" line per attribute in name order, bypassing adjl's rendering,
// so scripts can assert the key layout itself:
//
//	item PK SK
//
// With ! it asserts the item does not exist. The table is read from ./adjl.yaml
// unless ADJL_SCHEMA names another schema file.
func rawItem(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if len(args) != 2 {
		ts.Fatalf("usage: item PK SK")
	}
	file := ts.Getenv("ADJL_SCHEMA")
	if file == "" {
		file = "adjl.yaml"
	}
	s, err := schema.Load(ts.MkAbs(file))
	ts.Check(err)
	api, closeAPI, err := openBackend(ts, b)
	ts.Check(err)
	defer closeAPI()
	out, err := api.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(s.Table.Name),
		Key:            map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: args[0]}, "SK": &types.AttributeValueMemberS{Value: args[1]}},
		ConsistentRead: aws.Bool(true),
	})
	ts.Check(err)
	switch {
	case neg && out.Item != nil:
		ts.Fatalf("item %s %s exists", args[0], args[1])
	case neg:
		return
	case out.Item == nil:
		ts.Fatalf("item %s %s not found", args[0], args[1])
	}
	var item map[string]any
	ts.Check(attributevalue.UnmarshalMap(out.Item, &item))
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	w := ts.Stdout()
	for _, k := range names {
		fmt.Fprintf(w, "%s=%v\n", k, item[k])
	}
}
