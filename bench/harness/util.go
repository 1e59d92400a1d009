package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

func trimNL(b []byte) []byte { return []byte(strings.TrimSpace(string(b))) }

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// dynaliteVersion reads the installed dynalite's package.json.
func dynaliteVersion(benchDir string) string {
	b, err := os.ReadFile(filepath.Join(benchDir, "node_modules", "dynalite", "package.json"))
	if err != nil {
		return "?"
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return "?"
	}
	return p.Version
}
