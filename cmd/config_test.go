package cmd

import (
	"path/filepath"
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

// TestSettingsFromEachSource covers the other settings and their types.
func TestSettingsFromEachSource(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".adjl", "config.yaml"),
		"output: yaml\nlimit: 7\nregion: eu-west-1\ndata: cfg.db\nconsistent: true\n")
	t.Setenv("ADJL_OUTPUT", "json")
	t.Setenv("ADJL_LIMIT", "9")
	r := adjl(t, runOpts{dir: dir}, "--limit", "11", "version")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	s := r.app.set
	if s.Output != "json" || s.Limit != 11 || s.Region != "eu-west-1" || s.Data != "cfg.db" || !s.Consistent {
		t.Errorf("settings = %+v", s)
	}
	if s.ConfigFile == "" {
		t.Error("config file not reported as used")
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
	t.Setenv("ADJL_LIMIT", "many")
	r = adjl(t, runOpts{}, "version")
	if r.code != ExitUsage {
		t.Errorf("ADJL_LIMIT=many: exit %d, want 2: %s", r.code, r.err)
	}
}
