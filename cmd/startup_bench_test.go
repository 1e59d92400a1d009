package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The start-up benchmarks time what adjl does in main, after package
// initialisation: settings, schema, command tree, backend and the command
// itself. bench/harness times whole processes against a hello world.

func benchRun(b *testing.B, dir string, args ...string) {
	b.Helper()
	b.Chdir(dir)
	b.ReportAllocs()
	for b.Loop() {
		a := newApp(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, args)
		if code := a.run(context.Background()); code != ExitOK {
			b.Fatalf("adjl %v exited %d", args, code)
		}
	}
}

func benchDir(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	sch, err := os.ReadFile(filepath.Join(examplesDir, "school.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "adjl.yaml"), sch, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("HOME", dir)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	return dir
}

func BenchmarkRunHelp(b *testing.B) {
	benchRun(b, benchDir(b), "--help")
}

func BenchmarkRunMembersPage(b *testing.B) {
	dir := benchDir(b)
	b.Chdir(dir)
	for _, args := range [][]string{{"table", "create"}, {"enroll", "a91", "math204"}, {"enroll", "b02", "math204"}} {
		a := newApp(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, args)
		if code := a.run(context.Background()); code != ExitOK {
			b.Fatalf("adjl %v exited %d", args, code)
		}
	}
	benchRun(b, dir, "members", "math204")
}
