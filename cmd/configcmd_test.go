package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigShowPrintsEachSettingWithItsOrigin sets one setting in each
// layer and checks config show reports the value and the exact origin.
func TestConfigShowPrintsEachSettingWithItsOrigin(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "# team settings\nregion: eu-west-1\ndata: cfg.db\n")
	t.Setenv("ADJL_PROFILE", "prod")
	r := adjl(t, runOpts{dir: dir}, "--endpoint", "http://127.0.0.1:8000", "config", "show", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	var doc struct {
		Items []struct {
			Setting string `json:"setting"`
			Value   any    `json:"value"`
			Origin  string `json:"origin"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.out)
	}
	got := map[string][2]any{}
	var names []string
	for _, it := range doc.Items {
		got[it.Setting] = [2]any{it.Value, it.Origin}
		names = append(names, it.Setting)
	}
	cfg := filepath.Join(".adjl", "config.yaml")
	for name, want := range map[string][2]any{
		"endpoint": {"http://127.0.0.1:8000", "flag --endpoint"},
		"profile":  {"prod", "environment ADJL_PROFILE"},
		"region":   {"eu-west-1", "config file " + cfg + " line 2"},
		"data":     {"cfg.db", "config file " + cfg + " line 3"},
		"schema":   {"./adjl.yaml", "default"},
		"output":   {"json", "flag --output"},
		"debug":    {false, "default"},
		"config":   {cfg, "default"},
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	want := []string{"capacity", "config", "data", "debug", "endpoint", "explain", "no-color", "output", "profile", "quiet", "region", "schema", "verbose"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("settings = %v, want %v", names, want)
	}
}

func TestConfigShowTableOnATerminal(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{tty: true}, "--quiet", "config", "show")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	lines := strings.Split(r.out, "\n")
	if !strings.HasPrefix(lines[0], "SETTING") || !strings.Contains(lines[0], "ORIGIN") {
		t.Errorf("header = %q", lines[0])
	}
	if !strings.Contains(r.out, "quiet") || !strings.Contains(r.out, "flag --quiet") {
		t.Errorf("--quiet not shown as a flag:\n%s", r.out)
	}
}

// TestConfigPathSaysWhichFileWasRead covers the files looked for in order,
// the one read, one that came second, and a file named by ADJL_CONFIG.
func TestConfigPathSaysWhichFileWasRead(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	xdg := filepath.Join(home, ".config", "adjl", "config.yaml")
	local := filepath.Join(".adjl", "config.yaml")

	r := adjl(t, runOpts{dir: dir}, "config", "path")
	if want := local + "\tnot found\n" + xdg + "\tnot found\n"; r.code != 0 || r.out != want {
		t.Errorf("no files: exit %d, out %q, want %q", r.code, r.out, want)
	}
	writeFile(t, xdg, "output: table\n")
	r = adjl(t, runOpts{dir: dir}, "config", "path")
	if want := local + "\tnot found\n" + xdg + "\tread\n"; r.out != want {
		t.Errorf("xdg only: out %q, want %q", r.out, want)
	}
	writeFile(t, filepath.Join(dir, local), "output: table\n")
	r = adjl(t, runOpts{dir: dir}, "config", "path")
	if want := local + "\tread\n" + xdg + "\tnot read: " + local + " comes first\n"; r.out != want {
		t.Errorf("both: out %q, want %q", r.out, want)
	}
	named := filepath.Join(t.TempDir(), "ci.yaml")
	writeFile(t, named, "endpoint: local\n")
	t.Setenv("ADJL_CONFIG", named)
	r = adjl(t, runOpts{dir: dir}, "config", "path")
	want := named + "\tread (environment ADJL_CONFIG)\n" +
		local + "\tnot looked at: environment ADJL_CONFIG names the file\n" +
		xdg + "\tnot looked at: environment ADJL_CONFIG names the file\n"
	if r.out != want {
		t.Errorf("ADJL_CONFIG: out %q, want %q", r.out, want)
	}
}
