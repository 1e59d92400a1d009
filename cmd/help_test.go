package cmd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
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
	// Dynamic completion (what the scripts call) offers the schema's verbs,
	// relations, entities and declared attributes.
	for _, c := range []struct{ args, want []string }{
		{[]string{"en"}, []string{"enroll", "enrolled"}},
		{[]string{"link", ""}, []string{"enrollment"}},
		{[]string{"enroll", "a", "b", "--set", ""}, []string{"grade="}},
		{[]string{"put", ""}, []string{"student", "course"}},
		{[]string{"export", ""}, []string{"enrollment", "student"}},
	} {
		r := adjl(t, runOpts{}, append([]string{"--schema", school, "__complete"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(r.out, w) {
				t.Errorf("__complete %q = %q, want %s", c.args, r.out, w)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "version")
	if r.code != 0 || !strings.HasPrefix(r.out, "adjl ") {
		t.Errorf("version: %d %q", r.code, r.out)
	}
}

// TestExitCodesHelpTopic: the table is one command away and lists every code.
func TestExitCodesHelpTopic(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "help", "exit-codes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, code := range []int{ExitOK, ExitFalse, ExitUsage, ExitSchema, ExitTable, ExitConflict, ExitUnreachable, ExitThrottled, ExitInternal, ExitInterrupted} {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^ +%d  \S`, code)).MatchString(r.out) {
			t.Errorf("exit code %d missing from adjl help exit-codes:\n%s", code, r.out)
		}
	}
	if root := adjl(t, runOpts{}, "--help"); !strings.Contains(root.out, "'adjl help exit-codes'") {
		t.Errorf("root help does not point to the exit-code table")
	}
}

// TestBuiltinsRefuseUnknownWords: an unknown word after cobra's own
// commands (completion tcsh) is a usage error, not help and exit 0.
func TestBuiltinsRefuseUnknownWords(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "completion", "tcsh")
	if r.code != ExitUsage || !strings.Contains(r.err, `unknown command "tcsh" for "adjl completion"`) ||
		!strings.Contains(r.err, "(want one of: bash, fish, powershell, zsh)") {
		t.Errorf("completion tcsh: exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "fooo")
	if r.code != ExitUsage || !strings.HasSuffix(r.err, "hint: 'adjl --help' lists the commands\n") {
		t.Errorf("unknown command: exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "__complete", "-o", "")
	if !strings.Contains(r.out, "ndjson\n") {
		t.Errorf("-o does not complete its formats: %q", r.out)
	}
}

// TestUsageHintNamesTheCommand: a usage error raised inside a command shows
// that command's usage line.
func TestUsageHintNamesTheCommand(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", "foo", "members", "math204")
	want := "adjl: invalid endpoint \"foo\" (flag --endpoint): want local, aws, or a URL such as http://127.0.0.1:8000\nhint: usage: adjl members COURSE [flags] (see 'adjl members --help')\n"
	if r.code != ExitUsage || r.err != want {
		t.Errorf("exit %d\n got %q\nwant %q", r.code, r.err, want)
	}
}

// TestUnknownHelpTopic: an unknown help topic is a usage error, not the
// root usage and exit 0.
func TestUnknownHelpTopic(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "help", "nosuch")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, `adjl: unknown help topic "nosuch"`) || r.out != "" {
		t.Errorf("exit %d, stdout %d bytes, stderr %q", r.code, len(r.out), r.err)
	}
	for _, args := range [][]string{{"help", "table", "create"}, {"help", "exit-codes"}, {"help"}} {
		if r := adjl(t, runOpts{}, args...); r.code != 0 || r.out == "" {
			t.Errorf("%v: exit %d: %s", args, r.code, r.err)
		}
	}
}

// TestUnknownFlagBeforeCommand: an unknown flag before the command is
// named as such, not taken for the value of a global flag.
func TestUnknownFlagBeforeCommand(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--bogus", "get", "STU#a")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: unknown flag: --bogus\n") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "-x", "enroll", "a", "b")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: unknown shorthand flag: 'x' in -x\n") {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
	// Unknown command words are still named.
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "-o", "json", "enrol", "a", "b")
	if r.code != ExitUsage || !strings.Contains(r.err, `unknown command "enrol"`) {
		t.Errorf("exit %d: %q", r.code, r.err)
	}
}

// TestPutSetCompletion: put completes --set with the named entity's attributes.
func TestPutSetCompletion(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "__complete", "put", "course", "c1", "--set", "")
	if !strings.Contains(r.out, "title=\n") || !strings.Contains(r.out, "credits=\n") || strings.Contains(r.out, "email=") {
		t.Errorf("__complete put course --set: %q", r.out)
	}
}

// TestPutUnsetCompletion: put completes --unset with the named entity's
// attribute names, and offers nothing (not even files) for an unknown entity.
func TestPutUnsetCompletion(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "__complete", "put", "course", "c1", "--unset", "")
	if !strings.HasPrefix(r.out, "title\ncredits\n:4\n") {
		t.Errorf("__complete put course --unset: %q", r.out)
	}
	r = adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "__complete", "put", "teacher", "t1", "--unset", "")
	if !strings.HasPrefix(r.out, ":4\n") {
		t.Errorf("__complete put teacher --unset: %q", r.out)
	}
}

// TestRootHelpWithoutSchema: the first `adjl --help` in an empty directory
// says why no relation verbs are listed.
func TestRootHelpWithoutSchema(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--help")
	if !strings.Contains(r.out, "Note: no schema loaded (looked for ./adjl.yaml), so no relation verbs are listed;\nname a schema with --schema") {
		t.Errorf("root help without a schema:\n%s", r.out)
	}
	if r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--help"); strings.Contains(r.out, "Note: ") {
		t.Errorf("root help with a schema still says none is loaded")
	}
}

func TestSuggestionsForTypos(t *testing.T) {
	s := newSession(t, "school.yaml")
	for typed, want := range map[string]string{
		"memebrs": "did you mean members?",
		"tabel":   "did you mean table?",
		"enrol":   "did you mean enroll or enrolled?",
		"mem":     "did you mean members?",
	} {
		r := s.expect(ExitUsage, typed, "x")
		if !strings.Contains(r.err, want) {
			t.Errorf("%s: %q, want %q", typed, r.err, want)
		}
	}
	r := s.expect(ExitUsage, "table", "craete")
	if !strings.Contains(r.err, "did you mean create?") {
		t.Errorf("table craete: %q", r.err)
	}
	r = s.expect(ExitUsage, "completion", "tcsh")
	if strings.Contains(r.err, "did you mean") {
		t.Errorf("completion tcsh suggests: %q", r.err)
	}
	if got := editDistance("tabel", "table"); got != 1 {
		t.Errorf("a swap is one edit: %d", got)
	}
}

// TestBuiltinCommandsAreReserved: the names the schema refuses as relation
// verbs are exactly adjl's built-in top-level commands, so no verb can
// shadow one and no name is reserved for nothing.
func TestBuiltinCommandsAreReserved(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "version")
	r.app.root.InitDefaultHelpCmd()
	r.app.root.InitDefaultCompletionCmd()
	var commands []string
	for _, c := range r.app.root.Commands() {
		if strings.HasPrefix(c.Name(), "__") {
			continue // cobra's hidden completion requests
		}
		commands = append(commands, c.Name())
		if !slices.Contains(schema.BuiltinCommands, c.Name()) {
			t.Errorf("adjl %s is not in schema.BuiltinCommands", c.Name())
		}
	}
	for _, name := range schema.BuiltinCommands {
		if !slices.Contains(commands, name) {
			t.Errorf("schema.BuiltinCommands reserves %q, which is no adjl command", name)
		}
	}
}
