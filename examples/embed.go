// Package examples holds the example schemas. They are also the templates
// `adjl init` writes, built into the binary from these very files, so the
// examples and the templates cannot drift apart.
package examples

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Templates lists the template names: the example files without ".yaml".
func Templates() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return out
}

// Template returns the named template's text.
func Template(name string) ([]byte, bool) {
	b, err := files.ReadFile(name + ".yaml")
	return b, err == nil
}
