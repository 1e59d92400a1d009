package cmd

import (
	"regexp"
	"strings"
	"testing"
)

// TestRelationVerbHelp: every generated verb has Short/Long help and
// Example lines written with the relation's real prefixes.
func TestRelationVerbHelp(t *testing.T) {
	isolate(t)
	cases := []struct {
		schema string
		verb   string
		want   []string
	}{
		{"school.yaml", "enroll", []string{"Examples:", "adjl enroll STU#", " CRS#", "--set grade=", "Usage:\n  adjl enroll STUDENT COURSE"}},
		{"school.yaml", "unenroll", []string{"adjl unenroll STU#", " CRS#"}},
		{"school.yaml", "enrolled", []string{"adjl enrolled STU#", "exit", "not linked"}},
		{"school.yaml", "courses", []string{"adjl courses STU#", "--limit", "begins_with(SK, \"ENROLL#CRS#\")"}},
		{"school.yaml", "members", []string{"adjl members CRS#", "--consistent is refused", "--with-entity"}},
		{"social.yaml", "follow", []string{"adjl follow ACTOR#", " TARGET#", "Usage:\n  adjl follow ACTOR TARGET"}},
		{"social.yaml", "followers", []string{"adjl followers TARGET#"}},
	}
	for _, c := range cases {
		r := adjl(t, runOpts{}, "--schema", example(t, c.schema), c.verb, "--help")
		if r.code != 0 {
			t.Errorf("%s --help: exit %d: %s", c.verb, r.code, r.err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.out, w) {
				t.Errorf("%s --help lacks %q:\n%s", c.verb, w, r.out)
			}
		}
	}
}

// TestEveryCommandHasExamples walks the whole tree.
func TestEveryCommandHasExamples(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "version")
	if r.code != 0 {
		t.Fatal(r.err)
	}
	skip := map[string]bool{"help": true, "completion": true, "table": true, "schema": true, "local": true}
	for _, c := range r.app.root.Commands() {
		if c.Name() == "completion" || c.Name() == "help" {
			continue // cobra's own
		}
		cmds := c.Commands()
		if len(cmds) == 0 {
			if skip[c.Name()] || c.Hidden {
				continue
			}
			if !strings.HasPrefix(strings.TrimSpace(c.Example), "adjl ") {
				t.Errorf("%s has no Example lines", c.CommandPath())
			}
			continue
		}
		for _, s := range cmds {
			if !strings.Contains(s.Example, "adjl ") && s.Name() != "help" {
				t.Errorf("%s has no Example lines", s.CommandPath())
			}
		}
	}
}

func TestRootHelpListsVerbs(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--help")
	if !regexp.MustCompile(`Relation verbs \(from .*school.yaml\):\n  courses `).MatchString(r.out) {
		t.Errorf("root help lacks the relation group:\n%s", r.out)
	}
	r = adjl(t, runOpts{}, "--help")
	if strings.Contains(r.out, "Relation verbs") {
		t.Errorf("root help without a schema shows an empty relation group")
	}
}

func TestCompletionIncludesVerbs(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := adjl(t, runOpts{}, "--schema", school, "completion", sh)
		if r.code != 0 || !strings.Contains(r.out, "adjl") {
			t.Errorf("completion %s: exit %d", sh, r.code)
		}
	}
	// Dynamic completion (what the scripts call) offers the schema's verbs.
	r := adjl(t, runOpts{}, "--schema", school, "__complete", "en")
	if !strings.Contains(r.out, "enroll") || !strings.Contains(r.out, "enrolled") {
		t.Errorf("__complete en = %q", r.out)
	}
	r = adjl(t, runOpts{}, "--schema", school, "__complete", "link", "")
	if !strings.Contains(r.out, "enrollment") {
		t.Errorf("__complete link '' = %q", r.out)
	}
	r = adjl(t, runOpts{}, "--schema", school, "__complete", "enroll", "a", "b", "--set", "")
	if !strings.Contains(r.out, "grade=") {
		t.Errorf("__complete --set = %q", r.out)
	}
}

func TestVersion(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "version")
	if r.code != 0 || !strings.HasPrefix(r.out, "adjl ") {
		t.Errorf("version: %d %q", r.code, r.out)
	}
}
