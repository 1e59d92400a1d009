package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuietDropsHintsAndKeepsErrorsAndWarnings: --quiet removes the
// next-page command and dry-run reminders; errors and warnings stay, and
// stdout does not change.
func TestQuietDropsHintsAndKeepsErrorsAndWarnings(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	school := example(t, "school.yaml")
	for _, args := range [][]string{{"table", "create"}, {"enroll", "a91", "math204"}, {"enroll", "b02", "math204"}} {
		if r := adjl(t, runOpts{dir: dir}, append([]string{"--schema", school}, args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.err)
		}
	}
	loud := adjl(t, runOpts{dir: dir}, "--schema", school, "members", "math204", "--limit", "1")
	quiet := adjl(t, runOpts{dir: dir}, "--schema", school, "-q", "members", "math204", "--limit", "1")
	if !strings.HasPrefix(loud.err, "next page: adjl ") {
		t.Errorf("without --quiet: stderr %q", loud.err)
	}
	if quiet.code != 0 || quiet.err != "" || quiet.out != loud.out {
		t.Errorf("--quiet: exit %d, stderr %q, stdout %q (want %q)", quiet.code, quiet.err, quiet.out, loud.out)
	}
	tagged := filepath.Join(dir, "tagged.yaml")
	b, err := os.ReadFile(school)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tagged, strings.Replace(string(b), "  billing: PAY_PER_REQUEST", "  tags: {team: data}\n  billing: PAY_PER_REQUEST", 1))
	loud = adjl(t, runOpts{dir: dir}, "--schema", tagged, "table", "apply")
	quiet = adjl(t, runOpts{dir: dir}, "--schema", tagged, "--quiet", "table", "apply")
	if !strings.Contains(loud.err, "dry run: nothing changed") {
		t.Errorf("table apply: stderr %q", loud.err)
	}
	if quiet.code != 0 || quiet.err != "" || quiet.out != loud.out {
		t.Errorf("table apply --quiet: exit %d, stderr %q", quiet.code, quiet.err)
	}
	r := adjl(t, runOpts{dir: dir}, "--schema", school, "--quiet", "get", "STU#nobody")
	if r.code != ExitFalse || !strings.HasPrefix(r.err, "adjl: ") {
		t.Errorf("an error under --quiet: exit %d, stderr %q", r.code, r.err)
	}
	r = adjl(t, runOpts{dir: dir}, "--schema", school, "--quiet", "--region", "eu-west-1", "get", "STU#a91")
	if !strings.Contains(r.err, "adjl: warning: region") {
		t.Errorf("a warning under --quiet: stderr %q", r.err)
	}
}
