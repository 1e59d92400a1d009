package diagram

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/internal/goldenfile"
	"github.com/adjl/adjl/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func load(t *testing.T, name string) *schema.Schema {
	t.Helper()
	s, err := schema.Load(filepath.Join("..", "examples", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update, "./diagram")
}

func TestRenderGolden(t *testing.T) {
	for _, example := range []string{"school", "social"} {
		s := load(t, example)
		for format, ext := range map[string]string{"mermaid": "mmd", "dot": "dot"} {
			t.Run(example+"/"+format, func(t *testing.T) {
				got, err := Render(s, format)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, example+"."+ext, got)
			})
		}
	}
}

// TestRenderNamesWhatReadsWhat: every relation shows its edge prefix, each
// verb, the side each list reads and through which index, its counters and
// its shards.
func TestRenderNamesWhatReadsWhat(t *testing.T) {
	s := load(t, "social")
	for _, format := range Formats {
		got, err := Render(s, format)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"follow (no edge prefix)", "PK ACTOR#id, SK TARGET#id", "link follow, unlink unfollow, check follows",
			"forward: following reads ACTOR#id via the table", "reverse: followers reads TARGET#id via GSI1",
			"GSI1PK TARGET#id#0..3 (4 shards)", "counters followingCount on ACTOR#, followerCount on TARGET# (8 shards)",
			"key USER#id", "tags: strings",
		} {
			if !strings.Contains(string(got), want) {
				t.Errorf("%s diagram lacks %q:\n%s", format, want, got)
			}
		}
	}
}

func TestRenderEscapesQuotesAndKeywords(t *testing.T) {
	s, err := schema.Parse("q.yaml", []byte(`version: 1
table: {name: qqq}
entities:
  end: {prefix: "END#"}
  node: {prefix: "NODE#"}
relations:
  r: {from: end, to: node, edge: "R#"}
`))
	if err != nil {
		t.Fatal(err)
	}
	mm, _ := Render(s, "mermaid")
	if !strings.Contains(string(mm), "  e_end(\"end") || strings.Contains(string(mm), "\n  end(") {
		t.Errorf("mermaid node ids must not be keywords:\n%s", mm)
	}
	dot, _ := Render(s, "dot")
	if !strings.Contains(string(dot), "e_node [label=") {
		t.Errorf("dot node ids must not be keywords:\n%s", dot)
	}
	if got := mermaidText([]string{`say "hi"`}); got != "say #quot;hi#quot;" {
		t.Errorf("mermaidText = %q", got)
	}
	if got := dotString([]string{`a "b" \c`, "d"}); got != `"a \"b\" \\c\nd"` {
		t.Errorf("dotString = %q", got)
	}
	if _, err := Render(s, "svg"); err == nil || !strings.Contains(err.Error(), "want one of mermaid, dot") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestSchemaGuideShowsTheSchoolDiagram: the Mermaid block under the
// diagram marker of docs/schema.md is what adjl schema diagram draws for the
// school example.
func TestSchemaGuideShowsTheSchoolDiagram(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(guide), "<!-- diagram: examples/school.yaml -->\n```mermaid\n")
	block, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatal("docs/schema.md has no mermaid block under <!-- diagram: examples/school.yaml -->")
	}
	want, err := Render(load(t, "school"), "mermaid")
	if err != nil {
		t.Fatal(err)
	}
	if block != string(want) {
		t.Errorf("the diagram in docs/schema.md is stale; paste the output of adjl --schema examples/school.yaml schema diagram:\n%s", want)
	}
}
