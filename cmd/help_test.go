package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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

// TestEveryCommandHasExamples walks the whole tree, groups, cobra's help
// and completion commands and the help topics included: each has Example
// lines, and each line is a command as a user types it.
func TestEveryCommandHasExamples(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "version")
	if r.code != 0 {
		t.Fatal(r.err)
	}
	typed := regexp.MustCompile(`^(adjl|aws|source) `)
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		for _, s := range c.Commands() {
			walk(s)
		}
		if c == r.app.root || c.Name() == cobra.ShellCompRequestCmd || c.Name() == cobra.ShellCompNoDescRequestCmd {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example lines", c.CommandPath())
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if !strings.HasPrefix(line, "  ") || !typed.MatchString(strings.TrimSpace(line)) {
				t.Errorf("%s: example %q is not a command line", c.CommandPath(), line)
			}
		}
	}
	walk(r.app.root)
	for _, p := range []string{"adjl enroll", "adjl table", "adjl table create", "adjl completion bash", "adjl help", "adjl exit-codes", "adjl local serve"} {
		if !seen[p] {
			t.Errorf("the walk missed %s", p)
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
