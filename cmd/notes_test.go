package cmd

import (
	"path/filepath"
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
