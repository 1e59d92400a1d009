package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaValidate(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	r := adjl(t, runOpts{}, "schema", "validate", school)
	if r.code != 0 || r.out != school+": valid (2 entities, 1 relation)\n" {
		t.Errorf("validate FILE: %d %q %q", r.code, r.out, r.err)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "social.yaml"), "schema", "validate")
	if r.code != 0 || !strings.HasSuffix(r.out, "social.yaml: valid (1 entity, 1 relation)\n") {
		t.Errorf("validate --schema: %d %q", r.code, r.out)
	}
	r = adjl(t, runOpts{}, "schema", "validate", "/nonexistent.yaml")
	if r.code != ExitUsage {
		t.Errorf("missing file: exit %d: %s", r.code, r.err)
	}
}

func TestSchemaShow(t *testing.T) {
	isolate(t)
	for _, name := range []string{"school.yaml", "social.yaml"} {
		r := adjl(t, runOpts{}, "--schema", example(t, name), "schema", "show", "-o", "json")
		if r.code != 0 {
			t.Fatalf("%s: %s", name, r.err)
		}
		var doc struct {
			Keys     []map[string]string `json:"keys"`
			Patterns []map[string]string `json:"patterns"`
		}
		if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, r.out)
		}
		if len(doc.Keys) == 0 || len(doc.Patterns) == 0 {
			t.Fatalf("%s: empty layout %+v", name, doc)
		}
		for _, p := range doc.Patterns {
			if p["operation"] == "Scan" {
				t.Errorf("%s: pattern %q is a Scan", name, p["name"])
			}
		}
		// The key layout is cmd's; the pattern texts belong to package schema
		// and are checked for shape only.
		out := adjl(t, runOpts{tty: true}, "--schema", example(t, name), "schema", "show").out
		layout, patterns, ok := strings.Cut(out, "\nAccess patterns:\n")
		if !ok || !strings.HasPrefix(patterns, "PATTERN ") || strings.Count(patterns, "\n") != len(doc.Patterns)+1 {
			t.Errorf("%s: patterns table:\n%s", name, patterns)
		}
		golden(t, "schema_layout_"+strings.TrimSuffix(name, ".yaml")+".txt", layout)
	}
	// The school edge row has exactly DESIGN.md's shape.
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "schema", "show")
	if !strings.Contains(r.out, "enrollment\tSTU#student1\tENROLL#CRS#course1\tCRS#course1\tSTU#student1") {
		t.Errorf("edge layout:\n%s", r.out)
	}
	if r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "schema", "show", "-o", "csv"); r.code != ExitUsage {
		t.Errorf("schema show -o csv: exit %d", r.code)
	}
}
