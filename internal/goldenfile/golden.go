// Package goldenfile compares a test's output with a file under testdata, or
// rewrites the file when the test runs with -update.
package goldenfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path; with update it writes got
// there instead, creating the directory. pkg is the package as go test
// names it ("./diagram"), for the hint.
func Check(t testing.TB, path string, got []byte, update bool, pkg string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test %s -update creates it)", err, pkg)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test %s -update rewrites it):\n--- got\n%s\n--- want\n%s", path, pkg, got, want)
	}
}
