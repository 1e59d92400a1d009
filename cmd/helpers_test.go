package cmd

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/internal/goldenfile"
	"github.com/adjl/adjl/ops"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// result is what one adjl invocation produced.
type result struct {
	code     int
	out, err string
	app      *app
}

// runOpts tune one invocation.
type runOpts struct {
	tty    bool
	errTTY bool // stderr is a terminal
	api    ops.API
	dir    string // working directory (default: a fresh temp dir)
	// memLimit stands for debug.SetMemoryLimit (nil: the process's is
	// left alone, as in every test).
	memLimit func(int64) int64
}

// adjl runs the command line in a temporary working directory with
// isolated HOME and XDG_CONFIG_HOME so no real config or data is read.
func adjl(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	t.Chdir(o.dir)
	var out, errb bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb, OutTTY: o.tty, ErrTTY: o.errTTY}
	a := newApp(ios, args)
	a.api = o.api
	a.setMemoryLimit = o.memLimit
	code := a.run(context.Background())
	return result{code: code, out: out.String(), err: errb.String(), app: a}
}

// isolate clears the settings environment for a test.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "ADJL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	// Output is compared as plain text; TestColorOnlyOnTerminalsThatAllowIt
	// turns colour back on.
	t.Setenv("NO_COLOR", "1")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "nonexistent-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "nonexistent-aws-credentials"))
	return home
}

// schoolSchema returns the absolute path of the example schema.
func example(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(examplesDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("example schema: %v", err)
	}
	return p
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join(testdataDir, name), []byte(got), *update, "./cmd")
}

// examplesDir is absolute: tests chdir into temp directories.
var examplesDir = func() string {
	d, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		panic(err)
	}
	return d
}()

// testdataDir is absolute: tests chdir into temp directories.
var testdataDir = func() string {
	d, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return d
}()

// writeFile writes content to path, making its directory, and returns path.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// session runs commands against the embedded engine with one data file.
type session struct {
	t      *testing.T
	dir    string // working directory
	data   string // data file, in dir
	schema string
}

// newSession isolates the settings environment (isolate) and starts a
// session on an example schema in a fresh directory.
func newSession(t *testing.T, schemaFile string) *session {
	isolate(t)
	dir := t.TempDir()
	return &session{t: t, dir: dir, data: filepath.Join(dir, "data.db"), schema: example(t, schemaFile)}
}

func (s *session) run(args ...string) result {
	s.t.Helper()
	full := append([]string{"--schema", s.schema, "--data", s.data}, args...)
	return adjl(s.t, runOpts{dir: s.dir}, full...)
}

// ok runs a command that must succeed and returns its stdout.
func (s *session) ok(args ...string) string {
	s.t.Helper()
	r := s.run(args...)
	if r.code != 0 {
		s.t.Fatalf("adjl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r.out
}

// okPrints runs a command that must succeed and print exactly want.
func (s *session) okPrints(want string, args ...string) {
	s.t.Helper()
	if out := s.ok(args...); out != want {
		s.t.Errorf("adjl %s:\n got %q\nwant %q", strings.Join(args, " "), out, want)
	}
}

func (s *session) expect(code int, args ...string) result {
	s.t.Helper()
	r := s.run(args...)
	if r.code != code {
		s.t.Errorf("adjl %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.out, r.err)
	}
	return r
}

// awsCLIOrSkip is the AWS CLI's path, for a test that drives adjl with it as
// a user would, isolated (see isolate); the test is skipped where the CLI is
// not installed.
func awsCLIOrSkip(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not on PATH")
	}
	isolate(t)
	return path
}
