package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withShards writes a copy of examples/social.yaml with another shard count
// into the session's directory and returns its path.
func (s *session) withShards(n int) string {
	s.t.Helper()
	data, err := os.ReadFile(example(s.t, "social.yaml"))
	if err != nil {
		s.t.Fatal(err)
	}
	out := strings.Replace(string(data), "    shards: 4\n", fmt.Sprintf("    shards: %d\n", n), 1)
	if out == string(data) {
		s.t.Fatal("examples/social.yaml has no `shards: 4` line to replace")
	}
	return writeFile(s.t, filepath.Join(s.dir, fmt.Sprintf("social%d.yaml", n)), out)
}

func TestReshardCommand(t *testing.T) {
	s := newSession(t, "social.yaml")
	s.ok("table", "create")
	for _, u := range []string{"a", "b", "c", "d", "e", "f"} {
		s.ok("follow", u, "bob")
	}
	s.ok("follow", "a", "carol")

	// Usage errors exit 2 before anything is sent.
	for _, args := range [][]string{
		{"reshard", "follow"},
		{"reshard", "nosuch", "--to", "8"},
		{"reshard", "follow", "--to", "0"},
		{"reshard", "follow", "--to", "65"},
		{"reshard"},
	} {
		if r := s.expect(2, args...); r.out != "" {
			t.Errorf("%v printed %q", args, r.out)
		}
	}

	// A dry run counts and changes nothing.
	out := s.ok("reshard", "follow", "--to", "8")
	if !strings.HasPrefix(out, "dry run: relation follow has 7 edges over 2 to-keys; ") || !strings.Contains(out, "TARGET#bob\t6\n") {
		t.Errorf("dry run:\n%s", out)
	}
	s.ok("followers", "bob")

	// The move, with a schema saying 8: the old schema is then refused.
	s8 := s.withShards(8)
	r := s.expect(4, "--schema", s8, "followers", "bob")
	if !strings.Contains(r.err, "the table's follow relation has 4 shards; the schema says 8") || !strings.Contains(r.err, "run `adjl reshard follow --to 8 --yes`") {
		t.Errorf("mismatch before reshard: %s", r.err)
	}
	out = s.ok("--schema", s8, "reshard", "follow", "--to", "8", "--yes", "-o", "json")
	var rep struct {
		From, To, Edges, Moved, Before, After int
		Keys                                  []struct {
			Key           string
			Before, After int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.From != 4 || rep.To != 8 || rep.Edges != 7 || rep.Before != 7 || rep.After != 7 || len(rep.Keys) != 2 || rep.Keys[0].Key != "TARGET#bob" || rep.Keys[0].After != 6 {
		t.Errorf("report %+v", rep)
	}
	if got := s.ok("--schema", s8, "followers", "bob"); strings.Count(got, "ACTOR#") != 6 {
		t.Errorf("followers after reshard:\n%s", got)
	}
	// The old schema: its links are refused by the counter items they
	// touch, and table create compares the metadata item. (Its reverse
	// reads query shards 0-3 of 8, where every edge agrees with both counts
	// and the KEYS_ONLY index returns no stamp: the documented blind spot.)
	for _, args := range [][]string{{"follow", "a", "dave"}, {"table", "create"}} {
		r = s.expect(4, args...)
		if !strings.Contains(r.err, "the table's follow relation has 8 shards; the schema says 4") || !strings.Contains(r.err, "run `adjl reshard follow --to 4 --yes`") {
			t.Errorf("old schema after reshard, %v: %s", args, r.err)
		}
	}
	// A reshard whose target differs from the schema says so.
	r = s.expect(0, "--schema", s8, "reshard", "follow", "--to", "2", "--yes")
	if !strings.Contains(r.err, "note: the schema gives follow shards: 8; set shards: 2") {
		t.Errorf("schema note: %s", r.err)
	}
	if r := s.expect(0, "--schema", s8, "reshard", "follow", "--to", "8", "--yes", "--explain"); !strings.Contains(r.out, "# Scan") {
		t.Errorf("explain:\n%s", r.out)
	}
}

func TestReshardHelpSaysItScans(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "reshard", "--help")
	for _, want := range []string{"admin migration, not a read", "Scan", "Example", "adjl --schema examples/social.yaml reshard follow --to 8 --yes"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("help lacks %q:\n%s", want, r.out)
		}
	}
}
