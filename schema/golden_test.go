package schema

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/adjl/adjl/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update, "./schema")
}

// clip keeps a golden file's line readable when it quotes a long input or
// key: its first 60 bytes (to a character's start) and its length.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	n := 60
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:n], len(s))
}
