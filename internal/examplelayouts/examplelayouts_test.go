package examplelayouts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adjl/adjl/schema"
)

// TestRewriteExamples: every example rewrites into every variant, and the
// result is a valid schema with the variant's layout (and, inverted, no
// shards anywhere).
func TestRewriteExamples(t *testing.T) {
	for _, name := range []string{"school", "social"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range Variants {
			out, err := Rewrite(data, v)
			if err != nil {
				t.Fatalf("%s %s: %v", name, v.Name, err)
			}
			s, err := schema.Parse(name+"-"+v.Name+".yaml", out)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", name, v.Name, err, out)
			}
			l := s.Layout()
			if got := [4]string{l.PK, l.SK, l.IndexPK, l.IndexSK}; got != v.Keys || s.Table.Index.Name != v.Index || l.Inverted() != v.Inverted() {
				t.Errorf("%s %s: layout %+v index %s", name, v.Name, l, s.Table.Index.Name)
			}
			for _, r := range s.Relations {
				if _, n := r.Counter(schema.ToEnd); v.Inverted() && (r.Shards != 1 || n != 1) {
					t.Errorf("%s %s: relation %s keeps shards %d, counter shards %d", name, v.Name, r.Name, r.Shards, n)
				}
			}
		}
	}
	if _, err := Rewrite([]byte("version: 1\n"), Variants[0]); err == nil {
		t.Error("a schema without the index line rewrote")
	}
}
