package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// repoRoot is the repository root, found from this file's location so that
// no test depends on the working directory (some tests change it).
var repoRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("e2e: cannot locate the source directory")
	}
	return filepath.Dir(filepath.Dir(file))
}()

// readRepoFile reads a file given relative to the repository root.
func readRepoFile(rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(repoRoot, rel))
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
