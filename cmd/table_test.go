package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableDescribeComparesRecordedShards: describe says whether the table
// matches the schema, and the shard count the table's metadata item records
// is part of it (relation commands no longer read that item).
func TestTableDescribeComparesRecordedShards(t *testing.T) {
	s := newSession(t, "social.yaml")
	s.ok("table", "create")
	s.ok("follow", "alice", "bob")
	b, err := os.ReadFile(s.schema)
	if err != nil {
		t.Fatal(err)
	}
	s.schema = filepath.Join(s.dir, "social8.yaml")
	writeFile(t, s.schema, strings.Replace(string(b), "\n    shards: 4\n", "\n    shards: 8\n", 1))
	var d struct {
		MatchesSchema bool     `json:"matchesSchema"`
		Differences   []string `json:"differences"`
	}
	out := s.ok("table", "describe", "-o", "json")
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.MatchesSchema || strings.Join(d.Differences, ";") != "the table's follow relation has 4 shards; the schema says 8" {
		t.Errorf("describe under another shard count: %s", out)
	}
	// --explain prints both requests and sends none.
	r := s.run("table", "describe", "--explain")
	if r.code != 0 || strings.Count(r.out, "\naws dynamodb ") != 2 || !strings.HasPrefix(r.out, "# DescribeTable\n") || !strings.Contains(r.out, "\n# GetItem\n") {
		t.Errorf("describe --explain: exit %d\n%s%s", r.code, r.out, r.err)
	}
}
