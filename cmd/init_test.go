package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
)

// TestInitWritesEachTemplate: the file init writes is the example of the same
// name byte for byte (the templates are the example files, embedded), it is
// a valid schema, and what init says is golden.
func TestInitWritesEachTemplate(t *testing.T) {
	isolate(t)
	for _, name := range []string{"school", "social", "blank"} {
		want, err := os.ReadFile(example(t, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		r := adjl(t, runOpts{dir: dir}, "init", name)
		if r.code != 0 || r.err != "" {
			t.Fatalf("init %s: exit %d %s", name, r.code, r.err)
		}
		golden(t, "init_"+name+".txt", r.out)
		got, err := os.ReadFile(filepath.Join(dir, "adjl.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("init %s wrote something other than examples/%s.yaml", name, name)
		}
		if _, err := schema.Parse("adjl.yaml", got); err != nil {
			t.Errorf("init %s wrote an invalid schema: %v", name, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, "adjl.yaml")); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("mode: %v %v", fi.Mode(), err)
		}
		// The schema just written is the default: its commands work at once.
		if r := adjl(t, runOpts{dir: dir}, "schema", "validate"); r.code != 0 {
			t.Errorf("validate after init %s: %s", name, r.err)
		}
	}
}

func TestInitDefaultsToSchoolAndHonoursSchema(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := adjl(t, runOpts{dir: dir}, "init")
	if r.code != 0 || !strings.HasPrefix(r.out, "wrote ./adjl.yaml (the school template)\n") {
		t.Errorf("bare init: exit %d %q %s", r.code, r.out, r.err)
	}
	r = adjl(t, runOpts{dir: dir}, "--schema", "models/social.yaml", "init", "social")
	if r.code != ExitUsage || !strings.Contains(r.err, "cannot write models/social.yaml") {
		t.Errorf("init into a missing directory: exit %d %s", r.code, r.err)
	}
	os.Mkdir(filepath.Join(dir, "models"), 0o755)
	r = adjl(t, runOpts{dir: dir}, "--schema", "models/social.yaml", "init", "social")
	if r.code != 0 || !strings.Contains(r.out, "next: adjl --schema models/social.yaml schema show") {
		t.Errorf("init --schema: exit %d %q %s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(dir, "models", "social.yaml")); err != nil {
		t.Error(err)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "adjl.yaml")
	if err := os.WriteFile(path, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := adjl(t, runOpts{dir: dir}, "init", "social")
	if r.code != ExitUsage || !strings.Contains(r.err, "adjl.yaml already exists; init leaves it as it is") ||
		!strings.Contains(r.err, "hint: pass --force to overwrite it") {
		t.Errorf("init over a file: exit %d %s", r.code, r.err)
	}
	if got, _ := os.ReadFile(path); string(got) != "mine\n" {
		t.Errorf("the file was changed: %q", got)
	}
	r = adjl(t, runOpts{dir: dir}, "init", "social", "--force")
	got, _ := os.ReadFile(path)
	if r.code != 0 || !strings.HasPrefix(string(got), "# adjl schema: a follower graph") {
		t.Errorf("init --force: exit %d %s; file %q", r.code, r.err, got[:min(len(got), 40)])
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".adjl-init-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	for _, args := range [][]string{{"init", "shop"}, {"init", "school", "social"}} {
		if r := adjl(t, runOpts{dir: dir}, args...); r.code != ExitUsage {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
}
