package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pendingDocs are pages the docs link to that another branch writes; a link
// to one is accepted while the file is missing, and checked once it exists.
var pendingDocs = map[string]bool{
	"docs/ci.md": true,
}

// TestDocLinksResolve checks every relative link of the repository's
// Markdown (README.md, CONTRIBUTING.md, ARCHITECTURE.md, docs/, bench/):
// the file or directory it names exists, and its #anchor is a heading of
// the page it points to, spelled as GitHub spells heading anchors.
func TestDocLinksResolve(t *testing.T) {
	pages := markdownFiles(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(body))
		return anchors[page]
	}
	checked := 0
	for _, page := range pages {
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(string(body)) {
			checked++
			if msg := checkLink(page, l, anchorsOf); msg != "" {
				t.Errorf("%s:%d: link %q: %s", page, l.line, l.target, msg)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found in %d pages: is the link pattern broken?", checked, len(pages))
	}
}

// checkLink returns what is wrong with one link of page, or "".
func checkLink(page string, l link, anchorsOf func(string) map[string]bool) string {
	target, anchor, _ := strings.Cut(l.target, "#")
	dest := page
	if target != "" {
		dest = path.Join(path.Dir(page), target)
		info, err := os.Stat(dest)
		if err != nil {
			if pendingDocs[dest] {
				return ""
			}
			return "no such file " + dest
		}
		if info.IsDir() {
			if anchor != "" {
				return "an anchor on a directory"
			}
			return ""
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	if !anchorsOf(dest)[anchor] {
		return fmt.Sprintf("%s has no heading with anchor #%s", dest, anchor)
	}
	return ""
}

// markdownFiles lists the Markdown pages to check, as slash paths.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"}
	for _, dir := range []string{"docs", "bench"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "out") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".md") {
				pages = append(pages, filepath.ToSlash(p))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// link is one relative link target and the line it is on.
type link struct {
	target string
	line   int
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	urlScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// relativeLinks returns the targets of the Markdown links in body that are
// not URLs, outside code blocks and code spans.
func relativeLinks(body string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			if !urlScheme.MatchString(m[1]) {
				out = append(out, link{target: m[1], line: i + 1})
			}
		}
	}
	return out
}

var (
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	linkText    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the anchors GitHub gives the headings of body (and
// any <a id> in it): the heading text in lower case, without punctuation,
// spaces as hyphens, a repeated one suffixed -1, -2, ...
func headingAnchors(body string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := githubSlug(linkText.ReplaceAllString(m[1], "$1"))
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// githubSlug spells a heading's text as GitHub's anchor for it.
func githubSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestGithubSlug pins the anchor spelling on headings whose anchors the
// README has long linked to on GitHub.
func TestGithubSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Signed requests: `adjl local serve --auth`": "signed-requests-adjl-local-serve---auth",
		"Guarantees and how they are tested":         "guarantees-and-how-they-are-tested",
		"What adjl local serve implements":           "what-adjl-local-serve-implements",
		"PartiQL on the embedded engine":             "partiql-on-the-embedded-engine",
		"Exit codes (0–130)":                         "exit-codes-0130",
	} {
		if got := githubSlug(heading); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}
