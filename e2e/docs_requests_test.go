package e2e

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/adjl/adjl/cmd"
)

// requestsDoc is the page whose request tables TestDocumentedRequests runs.
const requestsDoc = "docs/guarantees.md"

// requestRow is one row of a documented request table: a command line and
// the requests it sends, in order.
type requestRow struct {
	args     []string
	requests []string
	line     int
}

// requestTable is the rows under one <!-- requests: EXAMPLE --> marker.
type requestTable struct {
	example string // school or social
	rows    []requestRow
}

// TestDocumentedRequests runs the request tables of docs/guarantees.md top
// to bottom, each on its example schema, through a recording endpoint, and
// asserts that every command sends exactly the requests its row lists. The
// rows name the examples' tables (school, social); each runs on a table of
// its own.
func TestDocumentedRequests(t *testing.T) {
	doc, err := readRepoFile(requestsDoc)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := requestTables(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 2 {
		t.Fatalf("%s: %d request tables, want one per example", requestsDoc, len(tables))
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			endpoint, rec := recordingServer(t, b)
			schemas := inRecordedDir(t, endpoint)
			for _, tbl := range tables {
				path, ok := schemas[tbl.example]
				if !ok {
					t.Fatalf("%s: no example %q", requestsDoc, tbl.example)
				}
				for _, row := range tbl.rows {
					args := append([]string{"--schema", path}, row.args...)
					var stdout, stderr bytes.Buffer
					if code := cmd.Run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
						t.Fatalf("%s:%d: adjl %s: exit %d\n%s%s", requestsDoc, row.line, strings.Join(row.args, " "), code, stdout.String(), stderr.String())
					}
					if got, want := strings.Join(rec.take(), ", "), strings.Join(row.requests, ", "); got != want {
						t.Errorf("%s:%d: adjl %s sent %s; the row says %s", requestsDoc, row.line, strings.Join(row.args, " "), got, want)
					}
				}
			}
		})
	}
}

var (
	requestsMarker = regexp.MustCompile(`^<!-- requests: (\w+) -->$`)
	// | `adjl enroll a91 math204` | TransactWriteItems | ... |
	requestRowLine = regexp.MustCompile("^\\| `adjl ([^`]+)` \\| ([^|]+) \\|")
	repeatedOp     = regexp.MustCompile(`^(\w+) ×(\d+)$`)
)

// requestTables parses the tables that follow <!-- requests: EXAMPLE -->
// markers. A table's first column is the command in code, its second the
// requests, comma-separated, "Query ×4" for four Queries.
func requestTables(doc string) ([]requestTable, error) {
	var tables []requestTable
	var cur *requestTable
	for i, line := range strings.Split(doc, "\n") {
		if m := requestsMarker.FindStringSubmatch(line); m != nil {
			tables = append(tables, requestTable{example: m[1]})
			cur = &tables[len(tables)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(cur.rows) > 0 {
				cur = nil // the table ended
			}
			continue
		}
		m := requestRowLine.FindStringSubmatch(line)
		if m == nil {
			continue // the header and its rule
		}
		row := requestRow{args: strings.Fields(m[1]), line: i + 1}
		for _, op := range strings.Split(m[2], ",") {
			op = strings.TrimSpace(op)
			n := 1
			if r := repeatedOp.FindStringSubmatch(op); r != nil {
				op = r[1]
				n, _ = strconv.Atoi(r[2])
			}
			for range n {
				row.requests = append(row.requests, op)
			}
		}
		cur.rows = append(cur.rows, row)
	}
	for _, tbl := range tables {
		if len(tbl.rows) == 0 {
			return nil, fmt.Errorf("%s: the %s request table has no rows", requestsDoc, tbl.example)
		}
	}
	return tables, nil
}
