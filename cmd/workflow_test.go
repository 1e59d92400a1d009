package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkflowSchool(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.okPrints("table school created\n", "table", "create")
	s.okPrints("table school already exists and matches the schema\n", "table", "create")
	s.okPrints("created STU#a91\n", "put", "student", "a91", "--set", "name=Ana")
	s.okPrints("created CRS#math204\n", "put", "course", "CRS#math204", "--set", "title=Algebra", "--set", "credits=6.50")
	s.okPrints("created enrollment STU#a91 -> CRS#math204\n", "enroll", "STU#a91", "CRS#math204", "--set", "grade=A")
	s.okPrints("unchanged enrollment STU#a91 -> CRS#math204\n", "enroll", "a91", "math204")
	s.okPrints("linked\n", "enrolled", "a91", "math204")
	r := s.expect(ExitFalse, "enrolled", "a91", "bio101")
	if r.out != "not linked\n" || r.err != "" {
		t.Errorf("not enrolled: out %q err %q", r.out, r.err)
	}
	var check map[string]any
	if err := json.Unmarshal([]byte(s.ok("enrolled", "a91", "math204", "-o", "json")), &check); err != nil || check["linked"] != true {
		t.Errorf("enrolled -o json: %v %v", check, err)
	}

	// Counters, and numbers printed as stored.
	var course map[string]any
	out := s.ok("get", "CRS#math204", "-o", "json")
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&course); err != nil {
		t.Fatalf("get -o json: %v\n%s", err, out)
	}
	if fmt.Sprint(course["studentCount"]) != "1" || course["title"] != "Algebra" || course["key"] != "CRS#math204" {
		t.Errorf("course = %v", course)
	}
	if c := fmt.Sprint(course["credits"]); c != "6.5" && c != "6.50" {
		t.Errorf("credits = %v", c)
	}
	s.expect(ExitFalse, "get", "STU#nobody")

	// Refused before any request.
	s.expect(ExitUsage, "members", "CRS#math204", "--consistent")
	s.expect(ExitUsage, "enroll", "CRS#math204", "STU#a91")

	// Delete with edges: refused, then --cascade.
	s.expect(ExitConflict, "delete", "STU#a91")
	s.okPrints("deleted enrollment STU#a91 -> CRS#math204\n", "unenroll", "a91", "math204")
	s.okPrints("unchanged enrollment STU#a91 -> CRS#math204\n", "unenroll", "a91", "math204")
	s.expect(ExitFalse, "enrolled", "a91", "math204")
}

// TestPagingFollowsHints pages through members by running exactly the
// command each next-page hint prints, and checks nothing is lost or repeated.
func TestPagingFollowsHints(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	const n = 11
	for i := range n {
		s.ok("enroll", fmt.Sprintf("s%02d", i), "math204")
	}
	seen := map[string]int{}
	args := []string{"members", "CRS#math204", "--limit", "4"}
	prefix := "adjl --schema " + s.schema + " --data " + s.data + " "
	for page := 0; ; page++ {
		if page > n {
			t.Fatal("paging does not end")
		}
		r := s.run(args...)
		if r.code != 0 {
			t.Fatalf("page %d: %s", page, r.err)
		}
		for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
			if line != "" {
				seen[strings.Split(line, "\t")[0]]++
			}
		}
		hint, found := strings.CutPrefix(strings.TrimSpace(r.err), "next page: ")
		if !found {
			break
		}
		if !strings.HasPrefix(hint, prefix) {
			t.Fatalf("hint %q does not repeat the command", hint)
		}
		args = strings.Fields(strings.TrimPrefix(hint, prefix))
	}
	if len(seen) != n {
		t.Errorf("saw %d members, want %d: %v", len(seen), n, seen)
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("%s printed %d times", k, c)
		}
	}

	// --all streams everything, one JSON line per member.
	lines := strings.Split(strings.TrimSpace(s.ok("members", "math204", "--all", "--limit", "3", "-o", "ndjson")), "\n")
	if len(lines) != n {
		t.Errorf("--all printed %d lines, want %d", len(lines), n)
	}
	var doc struct {
		Items []map[string]any `json:"items"`
		Next  string           `json:"next"`
	}
	if err := json.Unmarshal([]byte(s.ok("members", "math204", "--limit", "5", "-o", "json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Items) != 5 || doc.Next == "" {
		t.Errorf("json page: %d items, next %q", len(doc.Items), doc.Next)
	}
	// A cursor from another query is refused.
	s.expect(ExitUsage, "members", "CRS#other", "--cursor", doc.Next)
	s.expect(ExitUsage, "members", "CRS#math204", "--cursor", "garbage")
}

func TestVerboseAndCapacity(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	r := s.run("--verbose", "--capacity", "enroll", "a91", "math204")
	if r.code != 0 {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.err, "backend: local (file "+s.data+")") {
		t.Errorf("--verbose: %q", r.err)
	}
	if !strings.Contains(r.err, "capacity: TransactWriteItems") {
		t.Errorf("--capacity: %q", r.err)
	}
	if strings.Contains(r.out, "capacity") {
		t.Errorf("capacity leaked to stdout: %q", r.out)
	}
}

func TestTableDescribeAndDelete(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.expect(ExitTable, "table", "describe")
	s.ok("table", "create")
	out := s.ok("table", "describe")
	data := s.data
	want := "table\tschool\nstatus\tACTIVE\npartitionKey\tPK\nsortKey\tSK\nindex\tGSI1\nindexPartitionKey\tGSI1PK\n" +
		"indexSortKey\tGSI1SK\nindexStatus\tACTIVE\nprojection\tALL\nlayout\tgeneric\nbillingMode\tPAY_PER_REQUEST\nitemCount\t1\n" +
		"sizeBytes\t"
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\nbackend\tthe embedded engine (data file "+data+")\nmatchesSchema\ttrue\n") {
		t.Errorf("describe:\n%s", out)
	}
	// The same fields, typed, in every format.
	var d struct {
		Table, Status, PartitionKey, Index, Projection, BillingMode string
		ItemCount, SizeBytes                                        int64
		MatchesSchema                                               bool
		Differences                                                 []string
	}
	if err := json.Unmarshal([]byte(s.ok("table", "describe", "-o", "json")), &d); err != nil ||
		d.Table != "school" || d.PartitionKey != "PK" || d.Index != "GSI1" || d.ItemCount != 1 || !d.MatchesSchema || d.Differences != nil {
		t.Errorf("describe -o json: %+v %v", d, err)
	}
	if out := s.ok("table", "describe", "-o", "yaml"); !strings.Contains(out, "matchesSchema: true") {
		t.Errorf("describe -o yaml:\n%s", out)
	}
	s.expect(ExitUsage, "table", "delete")
	s.okPrints("table school deleted\n", "table", "delete", "--yes")
	s.expect(ExitTable, "enrolled", "a", "b")
}

// TestTableMismatch: the social schema names a different table shape under
// the same name; create must exit 4 and list the differences.
func TestTableMismatch(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	other := filepath.Join(t.TempDir(), "school-keys-only.yaml")
	data := strings.Replace(readFile(t, s.schema), "projection: ALL", "projection: KEYS_ONLY", 1)
	writeFile(t, other, data)
	s.schema = other
	r := s.expect(ExitTable, "table", "create")
	if !strings.Contains(r.err, "differs from the schema:\n  - ") {
		t.Errorf("mismatch output: %q", r.err)
	}
}

func TestSocialRoles(t *testing.T) {
	s := newSession(t, "social.yaml")
	s.ok("table", "create")
	s.ok("follow", "alice", "bob")
	s.ok("follow", "carol", "TARGET#bob")
	out := s.ok("followers", "TARGET#bob")
	// The KEYS_ONLY index does not project since: no empty column for it.
	if out != "ACTOR#alice\nACTOR#carol\n" {
		t.Errorf("followers = %q", out)
	}
	s.expect(ExitUsage, "follow", "TARGET#bob", "alice")
	var doc struct {
		Entity map[string]any   `json:"entity"`
		Items  []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(s.ok("followers", "bob", "--with-entity", "-o", "json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Entity["key"] != "TARGET#bob" || fmt.Sprint(doc.Entity["followerCount"]) != "2" || len(doc.Items) != 2 {
		t.Errorf("followers --with-entity = %+v", doc)
	}
	if doc.Items[0]["actor"] != "ACTOR#alice" {
		t.Errorf("first follower = %v", doc.Items[0])
	}
}

func TestOutputFormatsThroughRun(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204", "--set", "grade=A", "--set", "enrolledOn=2026-09-01")
	s.ok("enroll", "b07", "math204")
	s.okPrints("student,grade,enrolledOn\nSTU#a91,A,2026-09-01\nSTU#b07,,\n", "members", "math204", "-o", "csv")
	s.okPrints("items:\n  - course: CRS#math204\n    grade: A\n    enrolledOn: \"2026-09-01\"\n", "courses", "a91", "-o", "yaml")
	if out := s.ok("list", "enrollment", "math204", "--reverse", "-o", "ndjson"); out !=
		"{\"student\":\"STU#a91\",\"grade\":\"A\",\"enrolledOn\":\"2026-09-01\"}\n{\"student\":\"STU#b07\"}\n" {
		t.Errorf("ndjson:\n%s", out)
	}
	r := adjl(t, runOpts{dir: s.dir, tty: true}, "--schema", s.schema, "--data", s.dir+"/data.db", "members", "math204")
	if r.out != "STUDENT   GRADE   ENROLLEDON\nSTU#a91   A       2026-09-01\nSTU#b07\n" {
		t.Errorf("terminal table:\n%q", r.out)
	}
	s.expect(ExitUsage, "members", "math204", "--with-entity", "-o", "csv")
	// Generic forms behave like the verbs.
	s.okPrints("linked\n", "check", "enrollment", "a91", "math204")
	s.okPrints("deleted enrollment STU#b07 -> CRS#math204\n", "unlink", "enrollment", "b07", "math204")
	if out := s.ok("link", "enrollment", "b07", "math204", "-o", "json"); !strings.Contains(out, `"outcome": "created"`) {
		t.Errorf("link -o json: %s", out)
	}
}
