package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
)

func TestReadSetFiles(t *testing.T) {
	dir := t.TempDir()
	bio := writeFile(t, filepath.Join(dir, "bio.txt"), "line one\nline two\n")
	crlf := writeFile(t, filepath.Join(dir, "crlf.txt"), "value\r\n")
	two := writeFile(t, filepath.Join(dir, "two.txt"), "kept\n\n")
	cases := []struct {
		sets  []string
		stdin string
		want  []string
		err   string
	}{
		{sets: []string{"bio=@" + bio}, want: []string{"bio=line one\nline two"}},
		{sets: []string{"bio=@" + crlf}, want: []string{"bio=value"}},
		{sets: []string{"bio=@" + two}, want: []string{"bio=kept\n"}},
		{sets: []string{"bio=@-", "name=Ana"}, stdin: "from stdin\n", want: []string{"bio=from stdin", "name=Ana"}},
		{sets: []string{"handle=@@ana"}, want: []string{"handle=@ana"}},
		{sets: []string{"mail=ana@example.com"}, want: []string{"mail=ana@example.com"}},
		{sets: []string{"a=@-", "b=@-"}, stdin: "x", err: "standard input is already read"},
		{sets: []string{"a=@"}, err: "@ needs a file name"},
		{sets: []string{"a=@" + filepath.Join(dir, "missing")}, err: "no such file"},
		{sets: []string{"a=@" + writeFile(t, filepath.Join(dir, "big"), strings.Repeat("x", maxValueFile+1))}, err: "over 400 KB"},
	}
	for _, c := range cases {
		got, err := readSetFiles(c.sets, strings.NewReader(c.stdin))
		if c.err != "" {
			var u *usageError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &u) {
				t.Errorf("%q: err %v, want a usage error with %q", c.sets, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: %q, %v; want %q", c.sets, got, err, c.want)
		}
	}
}

func TestCheckUnsets(t *testing.T) {
	attrs := []schema.Attribute{{Name: "grade", Kind: schema.KindString}, {Name: "enrolledOn", Kind: schema.KindDate}}
	for _, c := range []struct {
		unsets []string
		sets   map[string]any
		err    string
	}{
		{unsets: []string{"grade", "enrolledOn"}},
		{unsets: []string{"PK"}, err: "key attribute"},
		{unsets: []string{"courseCount"}, err: `unknown attribute "courseCount"; declared: grade, enrolledOn`},
		{unsets: []string{"grade", "grade"}, err: "given twice"},
		{unsets: []string{"grade"}, sets: map[string]any{"grade": "A"}, err: "both set (--set) and removed"},
	} {
		err := checkUnsets(schema.DefaultLayout.Reserved(), attrs, c.unsets, c.sets)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.unsets, err, c.err)
		}
	}
}

// TestSetFromFileAndUnsetThroughRun: put and a link verb read a value from
// a file and from stdin, and --unset removes attributes from the item and
// the edge.
func TestSetFromFileAndUnsetThroughRun(t *testing.T) {
	s := newSession(t, "school.yaml")
	writeFile(t, filepath.Join(s.dir, "title.txt"), "Linear Algebra\n")
	s.ok("table", "create")
	s.ok("put", "course", "math204", "--set", "title=@title.txt", "--set", "credits=5")
	s.ok("enroll", "a91", "math204", "--set", "grade=A", "--set", "enrolledOn=2026-09-01")
	if out := s.ok("get", "CRS#math204", "-o", "json"); !strings.Contains(out, `"title": "Linear Algebra",`) {
		t.Errorf("title from the file: %s", out)
	}
	s.okPrints("updated CRS#math204\n", "put", "course", "math204", "--unset", "credits")
	if out := s.ok("get", "CRS#math204", "-o", "json"); strings.Contains(out, "credits") {
		t.Errorf("credits not removed: %s", out)
	}
	s.okPrints("updated enrollment STU#a91 -> CRS#math204\n", "enroll", "a91", "math204", "--unset", "grade")
	if out := s.ok("enrolled", "a91", "math204", "-o", "json"); strings.Contains(out, "grade") || !strings.Contains(out, "enrolledOn") {
		t.Errorf("edge after --unset grade: %s", out)
	}
	if out := s.ok("get", "CRS#math204", "-o", "json"); !strings.Contains(out, `"studentCount": 1`) {
		t.Errorf("the relink counted: %s", out)
	}
	r := s.run("put", "course", "math204", "--set", "title=@nope.txt")
	if r.code != ExitUsage || !strings.Contains(r.err, "nope.txt") {
		t.Errorf("a missing file: exit %d, %s", r.code, r.err)
	}
}
