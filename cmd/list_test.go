package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestNextCommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"members", "CRS#math204", "--limit", "10"}, "adjl members CRS#math204 --limit 10 --cursor tok"},
		{[]string{"members", "CRS#math204", "--cursor", "old", "--limit", "10"}, "adjl members CRS#math204 --limit 10 --cursor tok"},
		{[]string{"members", "--cursor=old", "CRS#math204"}, "adjl members CRS#math204 --cursor tok"},
		{[]string{"--schema", "my schema.yaml", "list", "enrollment", "a91"}, "adjl --schema 'my schema.yaml' list enrollment a91 --cursor tok"},
		{[]string{"members", "--", "CRS#x"}, "adjl members --cursor tok -- CRS#x"},
	}
	for _, c := range cases {
		if got := nextCommand(c.args, "tok"); got != c.want {
			t.Errorf("nextCommand(%q)\n got %s\nwant %s", c.args, got, c.want)
		}
	}
	if got := nextCommand([]string{"courses", "a"}, "a'b"); got != `adjl courses a --cursor 'a'\''b'` {
		t.Errorf("cursor quoting: %s", got)
	}
}

// TestAllWithEntityPagesOn: --all --with-entity prints the entity once and
// then every page, continuing with the cursor of the same query.
func TestAllWithEntityPagesOn(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "course", "math204", "--set", "title=Algebra")
	const n = 7
	for i := range n {
		s.ok("enroll", fmt.Sprintf("s%02d", i), "math204")
	}
	out := s.ok("members", "math204", "--all", "--with-entity", "--limit", "2", "-o", "ndjson")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n+1 {
		t.Fatalf("got %d lines, want the entity and %d members:\n%s", len(lines), n, out)
	}
	var first struct {
		Entity map[string]any `json:"entity"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Entity["title"] != "Algebra" {
		t.Errorf("first line is not the course: %s (%v)", lines[0], err)
	}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		k, _ := row["student"].(string)
		if seen[k] || !strings.HasPrefix(k, "STU#s") {
			t.Errorf("unexpected or repeated row %s", l)
		}
		seen[k] = true
	}
	// The JSON document is whole, with no next cursor, and nothing on stderr.
	r := s.expect(ExitOK, "members", "math204", "--all", "--with-entity", "--limit", "3", "-o", "json")
	var doc struct {
		Entity map[string]any   `json:"entity"`
		Items  []map[string]any `json:"items"`
		Next   *string          `json:"next"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, r.out)
	}
	if len(doc.Items) != n || doc.Entity["key"] != "CRS#math204" || doc.Next != nil || r.err != "" {
		t.Errorf("json --all --with-entity: %d items, entity %v, next %v, stderr %q", len(doc.Items), doc.Entity, doc.Next, r.err)
	}
}

// TestListFlagsOnOtherCommands: list flags are flags of the list commands
// only; elsewhere they are refused, saying where they belong.
func TestListFlagsOnOtherCommands(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "student", "a91")
	r := s.expect(ExitUsage, "get", "STU#a91", "--cursor", "abc")
	if !strings.HasPrefix(r.err, "adjl: --cursor applies only to list commands") || r.out != "" {
		t.Errorf("get --cursor: %q", r.err)
	}
	r = s.expect(ExitUsage, "enroll", "a91", "math204", "--all")
	if !strings.HasPrefix(r.err, "adjl: --all applies only to list commands") {
		t.Errorf("enroll --all: %q", r.err)
	}
	r = s.expect(ExitUsage, "put", "student", "a92", "--consistent")
	if !strings.HasPrefix(r.err, "adjl: --consistent applies only to reads: list commands, check verbs and get") {
		t.Errorf("put --consistent: %q", r.err)
	}
	s.expect(ExitFalse, "enrolled", "a91", "math204") // nothing was written
	s.ok("courses", "a91", "--all", "--limit", "3", "--consistent")
	s.ok("list", "enrollment", "CRS#math204", "--reverse", "--all", "--with-entity")
	s.expect(ExitFalse, "enrolled", "a91", "math204", "--consistent", "-o", "json")
	s.ok("get", "STU#a91", "--consistent")
	// They are not settings: the environment does not set them.
	t.Setenv("ADJL_ALL", "true")
	t.Setenv("ADJL_LIMIT", "many")
	s.ok("get", "STU#a91")
}

// TestWithEntityOnlyOnFirstPage: a page reached with --cursor prints no
// entity: it belongs to the first page.
func TestWithEntityOnlyOnFirstPage(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "course", "math204", "--set", "title=Algebra")
	s.ok("enroll", "a1", "math204")
	s.ok("enroll", "a2", "math204")
	var first struct {
		Entity map[string]any `json:"entity"`
		Next   string         `json:"next"`
	}
	if err := json.Unmarshal([]byte(s.ok("members", "math204", "--with-entity", "--limit", "1", "-o", "json")), &first); err != nil {
		t.Fatal(err)
	}
	if first.Entity["title"] != "Algebra" || first.Next == "" {
		t.Fatalf("first page: %+v", first)
	}
	out := s.ok("members", "math204", "--with-entity", "--limit", "1", "-o", "json", "--cursor", first.Next)
	var second map[string]any
	if err := json.Unmarshal([]byte(out), &second); err != nil {
		t.Fatal(err)
	}
	if _, ok := second["entity"]; ok {
		t.Errorf("second page repeats the entity section:\n%s", out)
	}
	s.okPrints("STU#a2\t\t\n", "members", "math204", "--with-entity", "--limit", "1", "--cursor", first.Next)
}

// TestWithEntityMissingItemIsNull: a list key with no item prints its entity
// as null (JSON, NDJSON, YAML), not as an empty object an item could be, and
// says so on stderr; a table prints no empty entity block.
func TestWithEntityMissingItemIsNull(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	const note = "note: CRS#nothing has no item of its own\n"
	for format, want := range map[string]string{
		"json":   "{\n  \"entity\": null,\n  \"items\": []\n}\n",
		"ndjson": "{\"entity\":null}\n",
		"yaml":   "entity: null\nitems: []\n",
		"table":  "",
	} {
		r := s.expect(ExitOK, "members", "nothing", "--with-entity", "-o", format)
		if r.out != want || r.err != note {
			t.Errorf("-o %s: stdout %q, stderr %q; want %q, %q", format, r.out, r.err, want, note)
		}
	}
	if r := s.expect(ExitOK, "members", "nothing", "--with-entity", "-o", "json", "--quiet"); r.err != "" {
		t.Errorf("--quiet still notes: %q", r.err)
	}
}
