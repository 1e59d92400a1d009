package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsPrecedence checks flag > ADJL_* env > config file > default
// for each layer in turn, with the config file found in each of its places.
func TestSettingsPrecedence(t *testing.T) {
	type layers struct {
		flag, env, localCfg, xdgCfg, explicitCfg string
	}
	cases := []struct {
		name string
		l    layers
		want string
	}{
		{"default", layers{}, "local"},
		{"xdg config", layers{xdgCfg: "http://xdg:1"}, "http://xdg:1"},
		{"local config beats xdg", layers{localCfg: "http://local:1", xdgCfg: "http://xdg:1"}, "http://local:1"},
		{"--config beats local config", layers{explicitCfg: "http://explicit:1", localCfg: "http://local:1"}, "http://explicit:1"},
		{"env beats config", layers{env: "aws", localCfg: "http://local:1"}, "aws"},
		{"flag beats env", layers{flag: "http://flag:1", env: "aws", localCfg: "http://local:1"}, "http://flag:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := isolate(t)
			dir := t.TempDir()
			var args []string
			if c.l.flag != "" {
				args = append(args, "--endpoint", c.l.flag)
			}
			if c.l.env != "" {
				t.Setenv("ADJL_ENDPOINT", c.l.env)
			}
			if c.l.localCfg != "" {
				writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "endpoint: "+c.l.localCfg+"\n")
			}
			if c.l.xdgCfg != "" {
				writeFile(t, filepath.Join(home, ".config", "adjl", "config.yaml"), "endpoint: "+c.l.xdgCfg+"\n")
			}
			if c.l.explicitCfg != "" {
				p := filepath.Join(t.TempDir(), "my.yaml")
				writeFile(t, p, "endpoint: "+c.l.explicitCfg+"\n")
				args = append(args, "--config", p)
			}
			r := adjl(t, runOpts{dir: dir}, append(args, "version")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			if got := r.app.set.Endpoint; got != c.want {
				t.Errorf("endpoint = %q, want %q", got, c.want)
			}
		})
	}
}

// TestSettingsFromEachSource covers the other settings, and records where
// each came from.
func TestSettingsFromEachSource(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"),
		"output: yaml\nregion: eu-west-1\ndata: cfg.db\n")
	t.Setenv("ADJL_OUTPUT", "json")
	r := adjl(t, runOpts{dir: dir}, "--verbose", "version")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	s := r.app.set
	if s.Output != "json" || s.Region != "eu-west-1" || s.Data != "cfg.db" || !s.Verbose {
		t.Errorf("settings = %+v", s)
	}
	if s.ConfigFile == "" {
		t.Error("config file not reported as used")
	}
	for name, want := range map[string]string{
		"output":   "environment ADJL_OUTPUT",
		"region":   "config file " + filepath.Join(".adjl", "config.yaml") + " line 2",
		"verbose":  "flag --verbose",
		"endpoint": "default",
	} {
		if got := s.origin[name]; got != want {
			t.Errorf("origin of %s = %q, want %q", name, got, want)
		}
	}
}

// TestConfigFileHoldsOnlySettings: a config file says where the table is
// and how to print, not what one command does; anything else is refused
// with its line, and a bad value names the file it came from.
func TestConfigFileHoldsOnlySettings(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"endpoint: local\nlimit: 7\n", `:2: unknown setting "limit"`},
		{"endpont: aws\n", `:1: unknown setting "endpont"`},
		{"explain: true\n", `:1: unknown setting "explain"`},
		{"output: json\noutput: csv\n", `:2: output is set twice (first at line 1)`},
		{"region: [a, b]\n", `:1: region needs a single value`},
		{"- endpoint\n", `:1: want settings as name: value lines`},
		{"endpoint: [\n", `invalid YAML`},
		{"output: xml\n", `invalid output format "xml" (config file .adjl/config.yaml line 1)`},
		{"endpoint: nowhere\n", `invalid endpoint "nowhere" (config file .adjl/config.yaml line 1)`},
	} {
		isolate(t)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), tc.content)
		r := adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "get", "STU#a91")
		if r.code != ExitUsage || !strings.Contains(r.err, tc.want) {
			t.Errorf("config %q: exit %d, stderr %q; want 2 and %q", tc.content, r.code, r.err, tc.want)
		}
	}
	// An empty file is no settings, not an error.
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "# nothing yet\n")
	if r := adjl(t, runOpts{dir: dir}, "version"); r.code != 0 {
		t.Errorf("empty config: exit %d: %s", r.code, r.err)
	}
}

// TestSchemaPathBeforeParse: the schema path comes from the same layers, and
// is known before cobra parses (the relation verbs depend on it).
func TestSchemaPathBeforeParse(t *testing.T) {
	school := example(t, "school.yaml")
	social := example(t, "social.yaml")
	t.Run("env", func(t *testing.T) {
		isolate(t)
		t.Setenv("ADJL_SCHEMA", school)
		r := adjl(t, runOpts{}, "enroll", "--help")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
	})
	t.Run("flag beats env", func(t *testing.T) {
		isolate(t)
		t.Setenv("ADJL_SCHEMA", school)
		r := adjl(t, runOpts{}, "--schema="+social, "follow", "--help")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
		if r := adjl(t, runOpts{}, "--schema", social, "enroll", "--help"); r.code != ExitUsage {
			t.Errorf("enroll with the social schema: exit %d, want 2", r.code)
		}
	})
	t.Run("config", func(t *testing.T) {
		isolate(t)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "schema: "+school+"\n")
		r := adjl(t, runOpts{dir: dir}, "schema", "validate")
		if r.code != 0 || r.out != school+": valid (2 entities, 1 relation)\n" {
			t.Errorf("exit %d, out %q, err %q", r.code, r.out, r.err)
		}
	})
	t.Run("flag after the command", func(t *testing.T) {
		isolate(t)
		r := adjl(t, runOpts{}, "members", "--schema", school, "--help")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
	})
}

func TestBadConfigFile(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--config", "/nonexistent/adjl.yaml", "version")
	if r.code != ExitUsage {
		t.Errorf("missing --config file: exit %d, want 2: %s", r.code, r.err)
	}
	t.Setenv("ADJL_OUTPUT", "xml")
	r = adjl(t, runOpts{}, "version")
	if r.code != ExitUsage || !strings.Contains(r.err, `invalid output format "xml" (environment ADJL_OUTPUT)`) {
		t.Errorf("ADJL_OUTPUT=xml: exit %d, want 2: %s", r.code, r.err)
	}
}

// TestConfigFileReadIsBounded: a config path naming something endless or
// huge is refused as a config file, not read until memory runs out.
func TestConfigFileReadIsBounded(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--config", "/dev/zero", "version")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: /dev/zero:1: the file is over 65536 bytes; a config file holds a few settings") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}

// TestConfigFileYAMLForms: a setting may name an anchor defined on another
// (it is one value all the same), numbers are kept as typed, and settings in
// a second YAML document are refused rather than silently ignored.
func TestConfigFileYAMLForms(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "region: &r eu-west-1\nprofile: *r\ndata: 0x10\n")
	r := adjl(t, runOpts{dir: dir}, "version")
	if r.code != 0 {
		t.Fatalf("anchor and alias: exit %d: %s", r.code, r.err)
	}
	if s := r.app.set; s.Region != "eu-west-1" || s.Profile != "eu-west-1" || s.Data != "0x10" {
		t.Errorf("settings = %+v", s)
	}
	for _, tc := range []struct{ content, want string }{
		{"endpoint: local\n---\nendpoint: aws\n", `:3: a config file holds one YAML document`},
		{"region: &r [a, b]\nprofile: *r\n", `:1: region needs a single value`},
	} {
		isolate(t)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), tc.content)
		r := adjl(t, runOpts{dir: dir}, "version")
		if r.code != ExitUsage || !strings.Contains(r.err, tc.want) {
			t.Errorf("config %q: exit %d, stderr %q; want 2 and %q", tc.content, r.code, r.err, tc.want)
		}
	}
	// A document end marker, or an empty document after it, holds nothing.
	for _, content := range []string{"---\nendpoint: local\n...\n", "endpoint: local\n---\n# later\n"} {
		isolate(t)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), content)
		if r := adjl(t, runOpts{dir: dir}, "version"); r.code != 0 {
			t.Errorf("config %q: exit %d: %s", content, r.code, r.err)
		}
	}
}

// TestEmptyEnvironmentVariableIsUnset: viper treats ADJL_OUTPUT= as unset,
// so the value comes from the config file, and messages must say so.
func TestEmptyEnvironmentVariableIsUnset(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"), "output: xml\n")
	t.Setenv("ADJL_OUTPUT", "")
	r := adjl(t, runOpts{dir: dir}, "--schema", example(t, "school.yaml"), "get", "STU#a91")
	if want := `invalid output format "xml" (config file .adjl/config.yaml line 1)`; r.code != ExitUsage || !strings.Contains(r.err, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.err, want)
	}
}

// TestBoolEnvironmentVariablesMustParse: ADJL_EXPLAIN=yes is not a boolean
// viper understands (it reads it as false), so it would send the requests
// it was meant only to print; every boolean variable refuses it the same way.
func TestBoolEnvironmentVariablesMustParse(t *testing.T) {
	for _, name := range []string{"ADJL_EXPLAIN", "ADJL_CAPACITY", "ADJL_VERBOSE", "ADJL_DEBUG", "ADJL_QUIET", "ADJL_NO_COLOR"} {
		isolate(t)
		t.Setenv(name, "yes")
		r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "enroll", "a91", "math204")
		setting := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, "ADJL_")), "_", "-")
		want := `invalid ` + setting + ` value "yes" (environment ` + name + `): want true or false (or 1 or 0)`
		if r.code != ExitUsage || !strings.Contains(r.err, want) {
			t.Errorf("%s=yes: exit %d, stderr %q; want 2 and %q", name, r.code, r.err, want)
		}
		if hint := "hint: set " + name + "=true or " + name + "=false, or unset " + name + "\n"; !strings.HasSuffix(r.err, hint) {
			t.Errorf("%s=yes: stderr %q; want the hint %q", name, r.err, hint)
		}
		t.Setenv(name, "1")
		if r := adjl(t, runOpts{}, "version"); r.code != 0 {
			t.Errorf("%s=1: exit %d: %s", name, r.code, r.err)
		}
	}
}
