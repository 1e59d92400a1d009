package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func loadExample(t *testing.T, name string) *Schema {
	t.Helper()
	s, err := Load(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return s
}

func TestLoadSchoolExample(t *testing.T) {
	s := loadExample(t, "school.yaml")
	if s.Version != 1 || s.Table.Name != "school" || s.Table.Billing != BillingOnDemand {
		t.Errorf("table = %+v, version %d", s.Table, s.Version)
	}
	if want := (Index{Name: "GSI1", Projection: ProjectionAll}); !reflect.DeepEqual(s.Table.Index, want) {
		t.Errorf("index = %+v, want %+v", s.Table.Index, want)
	}
	if len(s.Entities) != 2 || s.Entities[0].Name != "student" || s.Entities[1].Name != "course" {
		t.Fatalf("entities not in file order: %+v", s.Entities)
	}
	stu, crs := s.Entity("student"), s.Entity("course")
	if stu.Prefix != "STU#" || crs.Prefix != "CRS#" {
		t.Errorf("prefixes %q %q", stu.Prefix, crs.Prefix)
	}
	wantAttrs := []Attribute{{"title", KindString}, {"credits", KindNumber}}
	if !reflect.DeepEqual(crs.Attributes, wantAttrs) {
		t.Errorf("course attributes = %+v, want %+v", crs.Attributes, wantAttrs)
	}
	r := s.Relation("enrollment")
	if r == nil {
		t.Fatal("no relation enrollment")
	}
	want := &Relation{
		Name:       "enrollment",
		From:       Side{Entity: stu, Prefix: "STU#"},
		To:         Side{Entity: crs, Prefix: "CRS#"},
		Edge:       "ENROLL#",
		Verbs:      Verbs{Link: "enroll", Unlink: "unenroll", Check: "enrolled", Forward: "courses", Reverse: "members"},
		Attributes: []Attribute{{"grade", KindString}, {"enrolledOn", KindDate}},
		Counters:   Counters{From: "courseCount", To: "studentCount", FromShards: 1, ToShards: 1},
		Shards:     1,
		prefixes:   prefixOwners{"STU#": "student", "CRS#": "course"},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("relation = %+v\nwant       %+v", r, want)
	}
}

func TestLoadSocialExample(t *testing.T) {
	s := loadExample(t, "social.yaml")
	user := s.Entity("user")
	r := s.Relation("follow")
	if user == nil || r == nil {
		t.Fatalf("missing user or follow: %+v", s)
	}
	if r.From != (Side{user, "ACTOR#"}) || r.To != (Side{user, "TARGET#"}) || r.Edge != "" || r.Shards != 4 {
		t.Errorf("follow = %+v", r)
	}
	if r.Verbs != (Verbs{"follow", "unfollow", "follows", "following", "followers"}) {
		t.Errorf("verbs = %+v", r.Verbs)
	}
	if r.Counters != (Counters{From: "followingCount", To: "followerCount", FromShards: 1, ToShards: 8}) {
		t.Errorf("counters = %+v", r.Counters)
	}
	if !r.From.HasRole() || !r.To.HasRole() {
		t.Error("role sides not reported as roles")
	}
	if s.Table.Index.Projection != ProjectionKeysOnly {
		t.Errorf("projection = %s", s.Table.Index.Projection)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
	if IsInvalid(err) {
		t.Error("an unreadable file is not an invalid schema")
	}
}

func TestParseDefaultsAndProvisioned(t *testing.T) {
	src := `version: 1
table:
  name: t.x-1
  billing: PROVISIONED
  capacity: {read: 3, write: 0x10}
  index: {projection: INCLUDE, include: [title, type, n]}
entities:
  a: {prefix: "A#", attributes: {title: string}}
relations:
  r: {from: a, to: {entity: a, prefix: "B#"}, edge: "", counters: {to: n}}
`
	s, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Table{Name: "t.x-1", Billing: BillingProvisioned, ReadUnits: 3, WriteUnits: 16,
		Index: Index{Name: "GSI1", Projection: ProjectionInclude, Include: []string{"title", "type", "n"}}, Layout: DefaultLayout}
	if !reflect.DeepEqual(s.Table, want) {
		t.Errorf("table = %+v, want %+v", s.Table, want)
	}
	r := s.Relation("r")
	if r.Shards != 1 || r.Verbs != (Verbs{}) || r.From.HasRole() || !r.To.HasRole() {
		t.Errorf("relation defaults = %+v", r)
	}
	if s.File != "p.yaml" {
		t.Errorf("File = %q", s.File)
	}
}

func TestParseAcceptsAnchorsAndAliases(t *testing.T) {
	src := `version: 1
table: {name: school}
entities:
  student: {prefix: "STU#", attributes: &common {name: string}}
  teacher: {prefix: "TCH#", attributes: *common}
`
	s, err := Parse("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Entity("teacher").Attributes; !reflect.DeepEqual(got, []Attribute{{"name", KindString}}) {
		t.Errorf("aliased attributes = %+v", got)
	}
}

func TestErrorsUnwrapToFirstError(t *testing.T) {
	_, err := Parse("x.yaml", []byte("version: 2\ntable: {name: ab}\nentities: {}\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) < 2 {
		t.Fatalf("want several errors, got %v", err)
	}
	var first *Error
	if !errors.As(err, &first) || first != es[0] {
		t.Errorf("errors.As(*Error) = %v, want first %v", first, es[0])
	}
	if !IsInvalid(err) {
		t.Error("IsInvalid = false")
	}
	for i := 1; i < len(es); i++ {
		if es[i-1].Line > es[i].Line {
			t.Errorf("errors not in file order: %v", err)
		}
	}
}

func TestLoadEverything(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "everything.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Table.ReadUnits != 5 || s.Table.WriteUnits != 2 || s.Table.Index.Name != "Inverted" {
		t.Errorf("table = %+v", s.Table)
	}
	names := []string{}
	for _, r := range s.Relations {
		names = append(names, r.Name)
	}
	if !reflect.DeepEqual(names, []string{"enrollment", "waitlist", "mentors"}) {
		t.Errorf("relations not in file order: %v", names)
	}
	w := s.Relation("waitlist")
	if w.Shards != 8 || w.From.Prefix != "WAITER#" || w.To.Prefix != "CRS#" || w.Verbs != (Verbs{Link: "wait"}) {
		t.Errorf("waitlist = %+v", w)
	}
	stu := s.Entity("student")
	var prefixes []string
	for _, sd := range s.Sides(stu) {
		prefixes = append(prefixes, string(sd.End)+":"+sd.Prefix)
	}
	want := []string{"from:STU#", "from:WAITER#", "from:MENTOR#", "to:MENTEE#"}
	if !reflect.DeepEqual(prefixes, want) {
		t.Errorf("Sides(student) = %v, want %v", prefixes, want)
	}
	wantKinds := []AttrKind{KindString, KindBool, KindStrings, KindDate}
	for i, a := range stu.Attributes {
		if a.Kind != wantKinds[i] {
			t.Errorf("attribute %s kind %s, want %s", a.Name, a.Kind, wantKinds[i])
		}
	}
}

func TestIsInvalidThroughWrapping(t *testing.T) {
	_, err := Parse("w.yaml", []byte("version: 1\n"))
	wrapped := fmt.Errorf("load schema: %w", err)
	if !IsInvalid(wrapped) {
		t.Error("IsInvalid lost the error through %w")
	}
	if IsInvalid(errors.New("other")) || IsInvalid(nil) {
		t.Error("IsInvalid true for a non-schema error")
	}
	e := &Error{Line: 2, Col: 3, Msg: "m"}
	if e.Error() != "2:3: m" {
		t.Errorf("Error() without file = %q", e.Error())
	}
}

// TestParseBoundsTheWork: a file over 1 MiB, a file that is endless, a few
// kilobytes of aliases that stand for millions of nodes, and an alias inside
// its own anchor are each refused at once with one problem; a file with
// thousands of problems reports the first 100 and how many more.
func TestParseBoundsTheWork(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("version: 1\ntable: {name: school}\nentities:\n  e0: &E {prefix: \"STU#\", attributes: {")
	for i := range 3000 {
		fmt.Fprintf(&bomb, "a%d: string, ", i)
	}
	bomb.WriteString("}}\n")
	for i := 1; i < 3000; i++ {
		fmt.Fprintf(&bomb, "  e%d: *E\n", i)
	}
	huge := "version: 1\n" + strings.Repeat("# padding\n", MaxSchemaBytes/10+1)
	for name, c := range map[string]struct{ data, want string }{
		"over 1 MiB":       {huge, "f.yaml:1:1: the file is over 1048576 bytes; a schema is at most 1 MiB"},
		"alias bomb":       {bomb.String(), "f.yaml:1:1: the schema stands for more than 100000 YAML nodes"},
		"alias in its own": {"version: 1\ntable: &t {name: x, tags: [*t]}\n", "f.yaml:1:1: the schema stands for more than 100000 YAML nodes"},
	} {
		_, err := Parse("f.yaml", []byte(c.data))
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "the file is over 1048576 bytes") {
		t.Errorf("Load(/dev/zero): %v", err)
	}
	var many strings.Builder
	for i := range 500 {
		fmt.Fprintf(&many, "x%d: 1\n", i)
	}
	_, err := Parse("f.yaml", []byte(many.String()))
	var es Errors
	if !errors.As(err, &es) || len(es) != 101 || es[100].Msg != "and 403 more problems after this line; fix these first" {
		t.Errorf("many problems: %d reported, last %v", len(es), es[len(es)-1])
	}
}
