package goldenfile

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that notes failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheckWritesUnderUpdateThenCompares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("one"), false, "./x")
	if !r.failed {
		t.Error("a missing golden file passed")
	}
	Check(t, path, []byte("one"), true, "./x")
	if b, err := os.ReadFile(path); err != nil || string(b) != "one" {
		t.Fatalf("after -update: %q %v", b, err)
	}
	Check(t, path, []byte("one"), false, "./x")
	r = &recorder{TB: t}
	Check(r, path, []byte("two"), false, "./x")
	if !r.failed {
		t.Error("different output passed")
	}
}
