package cmd

import "testing"

// TestCountOutputPerFormat: --count prints the number alone by default (so
// test "$(adjl members X --count)" = 2 works), a CSV file with its header
// under -o csv like every other CSV adjl writes, and {"count": N} otherwise.
func TestCountOutputPerFormat(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204")
	s.ok("enroll", "a92", "math204")
	for _, c := range []struct{ format, want string }{
		{"table", "2\n"},
		{"csv", "count\n2\n"},
		{"json", "{\n  \"count\": 2\n}\n"},
		{"ndjson", "{\"count\":2}\n"},
		{"yaml", "count: 2\n"},
	} {
		if got := s.ok("-o", c.format, "members", "math204", "--count"); got != c.want {
			t.Errorf("-o %s: stdout %q, want %q", c.format, got, c.want)
		}
	}
}
