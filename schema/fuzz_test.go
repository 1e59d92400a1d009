package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse must never panic, must either return a schema or an
// invalid-schema error (never both, never a bare error), and a schema it
// accepts must be internally consistent.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"../examples", "testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(base))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("version: 1\ntable: &t {name: x, index: *t}\n"))
	f.Add([]byte("version: 1\n---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatal("schema and error both returned")
			}
			if !IsInvalid(err) {
				t.Fatalf("error is not an invalid-schema error: %v", err)
			}
			return
		}
		if s.Version != Version || s.Table.Name == "" || len(s.Entities) == 0 {
			t.Fatalf("accepted incomplete schema %+v", s)
		}
		for _, r := range s.Relations {
			if r.From.Entity == nil || r.To.Entity == nil || r.Shards < 1 || r.Shards > MaxShards {
				t.Fatalf("accepted broken relation %+v", r)
			}
			if e, p, err := s.ResolveKey(r.From.Prefix + "x"); err != nil || e != r.From.Entity || p != r.From.Prefix {
				t.Fatalf("from prefix %q does not resolve to its entity", r.From.Prefix)
			}
		}
		_ = s.AccessPatterns()
	})
}
