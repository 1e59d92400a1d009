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
		"dump-table":  func(ts *testscript.TestScript, neg bool, args []string) { dumpTable(ts, neg, args, b) },
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
	pair := func(k string) (string, string) {
		if toMany {
			return from, k
		}
		return k, to
	}
	link := func(k string) error {
		f, t := pair(k)
		if _, _, err := store.Link(context.Background(), rel, f, t, nil); err != nil {
			return fmt.Errorf("link %s %s: %w", f, t, err)
		}
		return nil
	}
	if b.endpoint == "" {
		ts.Check(parallel(keys, 8, link))
	} else {
		// moto_server copies every table it holds for each TransactWriteItems
		// (and mishandles concurrent ones), so 1,000 links would take minutes:
		// link the first edge for real, then bulk-copy it.
		ts.Check(link(keys[0]))
		ts.Check(bulkLinks(api, s, rel, keys[0], keys[1:], pair, toMany))
	}
	sort.Strings(keys)
	ts.Check(os.WriteFile(ts.MkAbs(args[5]), []byte(strings.Join(keys, "\n")+"\n"), 0o644))
}

// bulkLinks writes the edges of the rest of keys as copies of the first
// key's edge (with their own keys) by BatchWriteItem, and adds their number to
// the shared side's counter. The many side's entity items get no counter:
// scripts using a reference server must not assert them.
func bulkLinks(api ops.API, s *schema.Schema, rel *schema.Relation, first string, rest []string,
	pair func(string) (string, string), toMany bool) error {
	ctx := context.Background()
	edgeKeys := func(k string) (schema.Keys, error) {
		f, t := pair(k)
		fk, err := rel.FromKey(f)
		if err != nil {
			return schema.Keys{}, err
		}
		tk, err := rel.ToKey(t)
		if err != nil {
			return schema.Keys{}, err
		}
		return rel.EdgeKeys(fk, tk), nil
	}
	k0, err := edgeKeys(first)
	if err != nil {
		return err
	}
	got, err := api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.Table.Name),
		Key:       map[string]types.AttributeValue{"PK": str(k0.PK), "SK": str(k0.SK)},
	})
	if err != nil {
		return err
	}
	if got.Item == nil {
		return fmt.Errorf("edge %s %s was not written", k0.PK, k0.SK)
	}
	var reqs []types.WriteRequest
	for _, k := range rest {
		ek, err := edgeKeys(k)
		if err != nil {
			return err
		}
		item := map[string]types.AttributeValue{}
		for name, v := range got.Item {
			item[name] = v
		}
		item["PK"], item["SK"], item["GSI1PK"], item["GSI1SK"] = str(ek.PK), str(ek.SK), str(ek.GSI1PK), str(ek.GSI1SK)
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{s.Table.Name: reqs[:n]},
		})
		if err != nil {
			return err
		}
		reqs = append(out.UnprocessedItems[s.Table.Name], reqs[n:]...)
	}
	// The shared side's item is keyed by its (role) key: the edge's SK without
	// the edge prefix for the to side, the edge's PK for the from side.
	counter, shared := rel.Counters.To, strings.TrimPrefix(k0.SK, rel.Edge)
	if toMany {
		counter, shared = rel.Counters.From, k0.PK
	}
	if counter == "" || len(rest) == 0 {
		return nil
	}
	_, err = api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table.Name),
		Key:                       map[string]types.AttributeValue{"PK": str(shared), "SK": str(shared)},
		UpdateExpression:          aws.String("ADD #c :n"),
		ExpressionAttributeNames:  map[string]string{"#c": counter},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(len(rest))}},
	})
	return err
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

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
	s, err := schema.Load(ts.MkAbs(schemaFile(ts)))
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
	fmt.Fprintln(ts.Stdout(), formatItem(ts, out.Item, "\n"))
}

// dumpTable prints every item of the script's table, one line per item with
// its attributes in name order, sorted: a fingerprint of the whole table for
// "this command changed nothing" checks. It reads with a Scan, which adjl
// itself never sends.
//
//	dump-table
func dumpTable(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: dump-table")
	}
	s, err := schema.Load(ts.MkAbs(schemaFile(ts)))
	ts.Check(err)
	api, closeAPI, err := openBackend(ts, b)
	ts.Check(err)
	defer closeAPI()
	scan, ok := api.(interface {
		Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	})
	if !ok {
		ts.Fatalf("dump-table: the client cannot Scan")
	}
	var lines []string
	var start map[string]types.AttributeValue
	for {
		out, err := scan.Scan(context.Background(), &dynamodb.ScanInput{
			TableName: aws.String(s.Table.Name), ExclusiveStartKey: start, ConsistentRead: aws.Bool(true),
		})
		ts.Check(err)
		for _, it := range out.Items {
			lines = append(lines, formatItem(ts, it, " "))
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	sort.Strings(lines)
	w := ts.Stdout()
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// schemaFile is the schema the script's adjl commands use: $ADJL_SCHEMA or ./adjl.yaml.
func schemaFile(ts *testscript.TestScript) string {
	if f := ts.Getenv("ADJL_SCHEMA"); f != "" {
		return f
	}
	return "adjl.yaml"
}

// formatItem renders an item as name=value pairs in name order, joined by sep.
func formatItem(ts *testscript.TestScript, it map[string]types.AttributeValue, sep string) string {
	var item map[string]any
	ts.Check(attributevalue.UnmarshalMap(it, &item))
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%v", k, item[k])
	}
	return strings.Join(parts, sep)
}
