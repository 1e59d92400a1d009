package schema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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

// FuzzKeys: every key the user can type is either refused with a *KeyError
// or turned into a key that starts with the side's prefix, is valid UTF-8
// without characters a terminal hides, fits DynamoDB's sort-key limit, and
// comes back unchanged when typed again; ResolveKey finds the entity of
// every key a side accepts.
func FuzzKeys(f *testing.F) {
	for _, s := range []string{"a91", "STU#a91", "CRS#math204", "stu#a91", "XYZ#1", "a#1", "", " a", "a\u202eb",
		"ACTOR#alice", "TARGET#bob", "Target#bob", "STU#", "#", "##", "\xff", "STU#\x00", "ENROLL#CRS#x"} {
		f.Add(s)
	}
	var schemas []*Schema
	for _, name := range []string{"school.yaml", "social.yaml"} {
		s, err := Load(filepath.Join("..", "examples", name))
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		for _, s := range schemas {
			for _, r := range s.Relations {
				checkKey(t, s, input, r.From.Prefix, MaxSortKeyBytes, r.FromKey)
				checkKey(t, s, input, r.To.Prefix, MaxSortKeyBytes-len(r.Edge), r.ToKey)
			}
			for _, e := range s.Entities {
				checkKey(t, s, input, e.Prefix, MaxSortKeyBytes, e.Key)
			}
			ent, prefix, err := s.ResolveKey(input)
			if err != nil {
				var ke *KeyError
				if !errors.As(err, &ke) || ke.Reason == "" {
					t.Fatalf("ResolveKey(%q): %T %v, want *KeyError", input, err, err)
				}
				continue
			}
			if ent == nil || !strings.HasPrefix(input, prefix) {
				t.Fatalf("ResolveKey(%q) = %v, %q", input, ent, prefix)
			}
		}
	})
}

func checkKey(t *testing.T, s *Schema, input, prefix string, limit int, norm func(string) (string, error)) {
	t.Helper()
	key, err := norm(input)
	if err != nil {
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Reason == "" || ke.Error() == "" {
			t.Fatalf("key %q for %s: %T %v, want *KeyError", input, prefix, err, err)
		}
		return
	}
	if !strings.HasPrefix(key, prefix) || len(key) == len(prefix) {
		t.Fatalf("key %q for %s became %q", input, prefix, key)
	}
	if !utf8.ValidString(key) || len(key) > limit {
		t.Fatalf("key %q for %s became %q (%d bytes, limit %d)", input, prefix, key, len(key), limit)
	}
	for _, r := range key {
		if Invisible(r) != "" {
			t.Fatalf("key %q for %s holds %U", input, prefix, r)
		}
	}
	if again, err := norm(key); err != nil || again != key {
		t.Fatalf("key %q for %s: %q normalises to %q, %v", input, prefix, key, again, err)
	}
	if ent, _, err := s.ResolveKey(key); err != nil || ent == nil {
		t.Fatalf("key %q for %s: ResolveKey(%q) = %v, %v", input, prefix, key, ent, err)
	}
}
