package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// manDir holds the generated man pages of adjl's built-in commands;
// absolute, as tests chdir into temp directories.
var manDir = func() string {
	d, err := filepath.Abs(filepath.Join("..", "man"))
	if err != nil {
		panic(err)
	}
	return d
}()

// TestManPagesAreCurrent generates the man pages with cobra's doc package
// (built-in commands: relation verbs depend on the schema and are listed
// by adjl --help) and compares them with man/; go test ./cmd -run
// TestManPagesAreCurrent -update rewrites man/.
func TestManPagesAreCurrent(t *testing.T) {
	root := builtinCommands(t)
	escapeAngleBrackets(root, map[*pflag.Flag]bool{})
	gen := t.TempDir()
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	header := &doc.GenManHeader{Title: "ADJL", Section: "1", Source: "adjl", Manual: "adjl manual", Date: &date}
	if err := doc.GenManTree(root, header, gen); err != nil {
		t.Fatal(err)
	}
	got := readDir(t, gen)
	checkGenerated(t, got, manDir, "man", "TestManPagesAreCurrent")
	for _, page := range []string{"adjl.1", "adjl-browse.1", "adjl-config-show.1", "adjl-put.1"} {
		if _, ok := got[page]; !ok {
			t.Errorf("no %s among %v", page, slices.Sorted(mapsKeys(got)))
		}
	}
}

// builtinCommands returns adjl's command tree without a schema, as the man
// pages and the command reference document it: the built-in commands, and
// a root help that says where the schema's own verbs are listed.
func builtinCommands(t *testing.T) *cobra.Command {
	t.Helper()
	isolate(t)
	r := adjl(t, runOpts{}, "version")
	if r.code != 0 {
		t.Fatal(r.err)
	}
	root := r.app.root
	root.DisableAutoGenTag = true
	// Without a schema the root help says none was found.
	root.Long, _, _ = strings.Cut(root.Long, "\n\nNote:")
	root.Long += "\n\nRelation verbs (enroll, members, ...) come from the schema: adjl --help lists\nthose of yours, adjl VERB --help documents each."
	return root
}

// checkGenerated compares the files generated (by name) with those in dir,
// which the repository holds as rel; with -update it rewrites dir instead.
// test names the test that regenerates them, for the messages.
func checkGenerated(t *testing.T, got map[string][]byte, dir, rel, test string) {
	t.Helper()
	rerun := fmt.Sprintf("run go test ./cmd -run %s -update", test)
	if *update {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range got {
			writeFile(t, filepath.Join(dir, name), string(body))
		}
		return
	}
	want := readDir(t, dir)
	for name, body := range got {
		if w, ok := want[name]; !ok {
			t.Errorf("%s/%s is missing (%s)", rel, name, rerun)
		} else if string(w) != string(body) {
			t.Errorf("%s/%s is stale (%s)", rel, name, rerun)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s/%s is for no command (%s)", rel, name, rerun)
		}
	}
}

// escapeAngleBrackets escapes < in the help texts and flag usages of cmd
// and its subcommands: cobra renders them as Markdown, where <attributes>
// is an HTML tag the man page would lose. Code blocks (lines indented by a
// tab or four spaces, and examples) keep theirs. done holds flags already
// escaped (a persistent flag is shared by every subcommand).
func escapeAngleBrackets(cmd *cobra.Command, done map[*pflag.Flag]bool) {
	lines := strings.Split(cmd.Long, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") {
			lines[i] = strings.ReplaceAll(l, "<", `\<`)
		}
	}
	cmd.Long = strings.Join(lines, "\n")
	for _, fs := range []*pflag.FlagSet{cmd.LocalFlags(), cmd.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !done[f] {
				done[f] = true
				f.Usage = strings.ReplaceAll(f.Usage, "<", `\<`)
			}
		})
	}
	for _, c := range cmd.Commands() {
		escapeAngleBrackets(c, done)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
