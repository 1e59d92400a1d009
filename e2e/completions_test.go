package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/cmd"
)

// completionFiles maps `adjl completion SHELL` to the committed file.
var completionFiles = map[string]string{
	"bash":       "completions/adjl.bash",
	"zsh":        "completions/adjl.zsh",
	"fish":       "completions/adjl.fish",
	"powershell": "completions/adjl.ps1",
}

// adjlRun runs adjl in process and returns its exit code and output.
func adjlRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cmd.Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestCompletionsCurrent fails when a committed completion script differs
// from what `adjl completion` prints for either example schema: run
// scripts/gen-completions.sh after changing the command tree.
func TestCompletionsCurrent(t *testing.T) {
	for shell, file := range completionFiles {
		want, err := readRepoFile(file)
		if err != nil {
			t.Fatalf("%v (run scripts/gen-completions.sh)", err)
		}
		for _, ex := range []string{"school", "social"} {
			schemaPath := filepath.Join(repoRoot, "examples", ex+".yaml")
			code, got, stderr := adjlRun(t, "--schema", schemaPath, "completion", shell)
			if code != 0 {
				t.Fatalf("adjl completion %s: exit %d: %s", shell, code, stderr)
			}
			if got != string(want) {
				t.Errorf("%s is stale for examples/%s.yaml: run scripts/gen-completions.sh", file, ex)
			}
		}
	}
}

// TestCompletionOffersVerbs checks what the committed scripts rely on: the
// hidden __complete command offers the schema's relation verbs and the
// declared --set attributes.
func TestCompletionOffersVerbs(t *testing.T) {
	cases := []struct {
		schema string
		args   []string
		want   []string
	}{
		{"school", []string{"en"}, []string{"enroll", "enrolled"}},
		{"school", []string{"mem"}, []string{"members"}},
		{"school", []string{"enroll", "a91", "math204", "--set", ""}, []string{"grade=", "enrolledOn="}},
		{"social", []string{"fol"}, []string{"follow", "followers", "following", "follows"}},
	}
	for _, c := range cases {
		args := append([]string{"--schema", filepath.Join(repoRoot, "examples", c.schema+".yaml"), "__complete"}, c.args...)
		code, out, stderr := adjlRun(t, args...)
		if code != 0 {
			t.Fatalf("adjl %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if line == "" || strings.HasPrefix(line, ":") {
				continue
			}
			got = append(got, strings.SplitN(line, "\t", 2)[0])
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: completing %q offered %q, want %q", c.schema, c.args, got, c.want)
		}
	}
}
