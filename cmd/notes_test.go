package cmd

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestQuietDropsHintsAndKeepsErrorsAndWarnings: --quiet removes the
// next-page command and dry-run reminders; errors and warnings stay, and
// stdout does not change.
func TestQuietDropsHintsAndKeepsErrorsAndWarnings(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204")
	s.ok("enroll", "b02", "math204")
	loud := s.run("members", "math204", "--limit", "1")
	quiet := s.run("-q", "members", "math204", "--limit", "1")
	if !strings.HasPrefix(loud.err, "next page: adjl ") {
		t.Errorf("without --quiet: stderr %q", loud.err)
	}
	if quiet.code != 0 || quiet.err != "" || quiet.out != loud.out {
		t.Errorf("--quiet: exit %d, stderr %q, stdout %q (want %q)", quiet.code, quiet.err, quiet.out, loud.out)
	}
	tagged := filepath.Join(s.dir, "tagged.yaml")
	writeFile(t, tagged, strings.Replace(readFile(t, s.schema), "  billing: PAY_PER_REQUEST", "  tags: {team: data}\n  billing: PAY_PER_REQUEST", 1))
	loud = adjl(t, runOpts{dir: s.dir}, "--schema", tagged, "--data", s.data, "table", "apply")
	quiet = adjl(t, runOpts{dir: s.dir}, "--schema", tagged, "--data", s.data, "--quiet", "table", "apply")
	if !strings.Contains(loud.err, "dry run: nothing changed") {
		t.Errorf("table apply: stderr %q", loud.err)
	}
	if quiet.code != 0 || quiet.err != "" || quiet.out != loud.out {
		t.Errorf("table apply --quiet: exit %d, stderr %q", quiet.code, quiet.err)
	}
	r := s.run("--quiet", "get", "STU#nobody")
	if r.code != ExitFalse || !strings.HasPrefix(r.err, "adjl: ") {
		t.Errorf("an error under --quiet: exit %d, stderr %q", r.code, r.err)
	}
	r = s.run("--quiet", "--region", "eu-west-1", "get", "STU#a91")
	if !strings.Contains(r.err, "adjl: warning: region") {
		t.Errorf("a warning under --quiet: stderr %q", r.err)
	}
}

// TestQuietIsTheGlobalFlagOnBulkCommands: import, export and counters
// verify/repair take the global -q/--quiet, before or after the command,
// and it drops their progress and export's summary line.
func TestQuietIsTheGlobalFlagOnBulkCommands(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	csv := writeFile(t, filepath.Join(s.dir, "e.csv"), "from,to\na91,math204\nb02,math204\n")
	for _, args := range [][]string{
		{"-q", "import", "enrollment", csv},
		{"import", "enrollment", csv, "-q"},
		{"--quiet", "import", "enrollment", csv, "--unlink"},
		{"import", "enrollment", csv, "--quiet"},
	} {
		if r := s.run(args...); r.code != 0 || r.err != "" {
			t.Errorf("adjl %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.err)
		}
	}
	loud := s.run("export", "enrollment")
	if loud.code != 0 || !strings.HasPrefix(loud.err, "exported 2 rows of enrollment") {
		t.Fatalf("export: exit %d, stderr %q", loud.code, loud.err)
	}
	for _, args := range [][]string{
		{"-q", "export", "enrollment"}, {"export", "enrollment", "-q"}, {"--quiet", "export", "enrollment"}, {"export", "enrollment", "--quiet"},
		{"-q", "counters", "verify"}, {"counters", "verify", "-q"}, {"counters", "repair", "--quiet"}, {"--quiet", "counters", "repair", "enrollment"},
	} {
		r := s.run(args...)
		if r.code != 0 || r.err != "" || slices.Contains(args, "export") && sortedLines(r.out) != sortedLines(loud.out) {
			t.Errorf("adjl %s: exit %d, stderr %q, stdout %q", strings.Join(args, " "), r.code, r.err, r.out)
		}
	}
	for _, cmd := range [][]string{{"import"}, {"export"}, {"counters", "verify"}, {"counters", "repair"}} {
		help := s.ok(append(cmd, "--help")...)
		if strings.Count(help, "--quiet") != 1 || !strings.Contains(help, "-q, --quiet") {
			t.Errorf("adjl %s --help: want only the global -q, --quiet:\n%s", strings.Join(cmd, " "), help)
		}
	}
}

// sortedLines is s's lines in order: export's rows come in no particular
// order.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
