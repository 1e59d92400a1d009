package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// referenceDir holds the generated command reference (Markdown); absolute,
// as tests chdir into temp directories.
var referenceDir = func() string {
	d, err := filepath.Abs(filepath.Join("..", "docs", "reference"))
	if err != nil {
		panic(err)
	}
	return d
}()

// referenceHeader starts every generated page, so nobody edits one by hand.
const referenceHeader = "<!-- Generated from adjl's commands: go test ./cmd -run TestReferenceIsCurrent -update. Do not edit. -->\n\n"

// TestReferenceIsCurrent generates docs/reference/ with cobra's doc package
// (the built-in commands, as the man pages have them) plus the exit-code
// table of adjl help exit-codes, and compares them with the repository's;
// go test ./cmd -run TestReferenceIsCurrent -update rewrites them.
func TestReferenceIsCurrent(t *testing.T) {
	root := builtinCommands(t)
	markdownLong(root)
	gen := t.TempDir()
	prepend := func(string) string { return referenceHeader }
	if err := doc.GenMarkdownTreeCustom(root, gen, prepend, func(link string) string { return link }); err != nil {
		t.Fatal(err)
	}
	got := readDir(t, gen)
	got["exit-codes.md"] = []byte(referenceHeader + exitCodesMarkdown())
	checkGenerated(t, got, referenceDir, "docs/reference", "TestReferenceIsCurrent")
	for _, page := range []string{"adjl.md", "adjl_import.md", "adjl_local_serve.md", "adjl_schema.md"} {
		if _, ok := got[page]; !ok {
			t.Errorf("no %s among the generated pages", page)
		}
	}
	if !strings.Contains(string(got["adjl_schema.md"]), "relations.NAME.requireEntities") {
		t.Errorf("adjl_schema.md lacks the schema's field reference")
	}
}

// exitCodesMarkdown renders exitCodeDocs, the table adjl help exit-codes
// prints, as a Markdown table.
func exitCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("## adjl exit codes\n\n")
	b.WriteString("adjl's exit code tells a script what happened; the message on stderr says why\nand, where it can, how to fix it (`adjl help exit-codes` prints this table).\n\n")
	b.WriteString("| code | meaning | example |\n|---|---|---|\n")
	for _, d := range exitCodeDocs {
		example := ""
		if d.example != "" {
			// adjl members CRS#math204 (before adjl table create): the
			// command in code, the circumstance in words.
			command, when, _ := strings.Cut(d.example, " (")
			example = "`" + strings.ReplaceAll(command, "|", `\|`) + "`"
			if when != "" {
				example += " (" + when
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s |\n", d.code, strings.ReplaceAll(d.meaning, "|", `\|`), example)
	}
	return b.String()
}

// markdownLong rewrites the help text of cmd and its subcommands as
// Markdown: runs of indented lines (aligned tables, sample YAML) become
// fenced text blocks, which keep their layout, and a < elsewhere is
// escaped, as Markdown would read <attributes> as an HTML tag.
func markdownLong(cmd *cobra.Command) {
	cmd.Long = helpToMarkdown(cmd.Long)
	for _, c := range cmd.Commands() {
		markdownLong(c)
	}
}

// helpToMarkdown converts one help text (see markdownLong).
func helpToMarkdown(help string) string {
	lines := strings.Split(help, "\n")
	var b bytes.Buffer
	for i := 0; i < len(lines); {
		if !indented(lines[i]) {
			b.WriteString(strings.ReplaceAll(lines[i], "<", `\<`) + "\n")
			i++
			continue
		}
		// An indented run, with the blank lines inside it.
		end := i
		for j := i; j < len(lines); j++ {
			if indented(lines[j]) {
				end = j + 1
			} else if strings.TrimSpace(lines[j]) != "" {
				break
			}
		}
		if i > 0 && strings.TrimSpace(lines[i-1]) != "" {
			b.WriteString("\n")
		}
		b.WriteString("```text\n")
		for _, l := range lines[i:end] {
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "\t"), "  ") + "\n")
		}
		b.WriteString("```\n")
		if end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			b.WriteString("\n")
		}
		i = end
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// indented reports whether a help line is part of a laid-out block.
func indented(line string) bool {
	return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")
}

// TestSettingsTableMatchesTheFlags checks the settings table of
// docs/usage.md against the global flags: one row per flag, with the
// ADJL_* variable that sets it and the flag's default.
func TestSettingsTableMatchesTheFlags(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join(referenceDir, "..", "usage.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(guide), "<!-- settings: tested by TestSettingsTableMatchesTheFlags -->\n")
	if !ok {
		t.Fatal("docs/usage.md has no settings table marker")
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "/"), "|")
		if m := longFlag.FindStringSubmatch(cells[1]); m != nil {
			rows[m[1]] = cells[2:]
		}
	}
	root := builtinCommands(t)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		row, ok := rows[f.Name]
		if !ok {
			t.Errorf("docs/usage.md: no row for --%s", f.Name)
			return
		}
		delete(rows, f.Name)
		env := "ADJL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if !strings.Contains(row[0], "`"+env+"`") {
			t.Errorf("docs/usage.md: --%s's variable is %s, the row says %q", f.Name, env, row[0])
		}
		if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(row[1], "`"+f.DefValue+"`") {
			t.Errorf("docs/usage.md: --%s's default is %s, the row says %q", f.Name, f.DefValue, row[1])
		}
	})
	for name := range rows {
		t.Errorf("docs/usage.md: a row for --%s, which is no global flag", name)
	}
}

var longFlag = regexp.MustCompile("`--([a-z-]+)")
