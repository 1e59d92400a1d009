package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func loadSchool(t *testing.T) *schema.Schema {
	t.Helper()
	sch, err := schema.Load(example(t, "school.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// edge builds a stored enrollment edge item.
func edge(stu, crs, grade string) ops.Item {
	it := ops.Item{
		"PK": s(stu), "SK": s("ENROLL#" + crs), "GSI1PK": s(crs), "GSI1SK": s(stu), "type": s("enrollment"),
	}
	if grade != "" {
		it["grade"] = s(grade)
		it["enrolledOn"] = s("2026-09-01")
	}
	return it
}

// renderList prints a reverse list of math204 through the printer for format.
func renderList(t *testing.T, format string, tty bool, withEntity bool, next string) string {
	t.Helper()
	sch := loadSchool(t)
	a := &app{sch: sch}
	var out bytes.Buffer
	p := newPrinter(format, &IOStreams{Out: &out, OutTTY: tty}, 25)
	l := &listArgs{rel: sch.Relation("enrollment"), dir: ops.Reverse, key: "CRS#math204", opts: listOptions{withEntity: withEntity}}
	var entity ops.Item
	if withEntity {
		entity = ops.Item{"PK": s("CRS#math204"), "SK": s("CRS#math204"), "GSI1PK": s("CRS#math204"),
			"GSI1SK": s("CRS#math204"), "type": s("course"), "title": s("Algebra"), "credits": n("6"),
			"studentCount": n("12345678901234567890")}
	}
	if err := a.beginList(p, l, entity); err != nil {
		t.Fatal(err)
	}
	for _, it := range []ops.Item{edge("STU#a91", "CRS#math204", "A"), edge("STU#b07", "CRS#math204", ""), edge("STU#c\tx", "CRS#math204", "B+")} {
		if err := a.printRow(p, l, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.endList(next); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestListFormatsGolden(t *testing.T) {
	for _, c := range []struct {
		name, format string
		tty, entity  bool
	}{
		{"list_table_tty.txt", "table", true, false},
		{"list_table_piped.txt", "table", false, false},
		{"list_table_tty_entity.txt", "table", true, true},
		{"list.json", "json", false, false},
		{"list_entity.json", "json", false, true},
		{"list.ndjson", "ndjson", false, true},
		{"list.csv", "csv", false, false},
		{"list.yaml", "yaml", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, renderList(t, c.format, c.tty, c.entity, "CURSOR123"))
		})
	}
}

func TestListJSONShape(t *testing.T) {
	var doc struct {
		Entity map[string]json.RawMessage   `json:"entity"`
		Items  []map[string]json.RawMessage `json:"items"`
		Next   string                       `json:"next"`
	}
	out := renderList(t, "json", false, true, "CURSOR123")
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Items) != 3 || doc.Next != "CURSOR123" {
		t.Fatalf("items %d next %q", len(doc.Items), doc.Next)
	}
	if string(doc.Items[0]["student"]) != `"STU#a91"` || string(doc.Items[0]["grade"]) != `"A"` {
		t.Errorf("first item = %v", doc.Items[0])
	}
	// Numbers keep every digit.
	if got := string(doc.Entity["studentCount"]); got != "12345678901234567890" {
		t.Errorf("studentCount = %s", got)
	}
	// Key columns come first: the other side's key, then schema order.
	first := strings.Index(out, `"student"`)
	if g := strings.Index(out, `"grade"`); first < 0 || g < first {
		t.Errorf("column order wrong:\n%s", out)
	}
	// Empty list is still valid JSON with an items array.
	var buf bytes.Buffer
	p := &jsonPrinter{w: &buf}
	p.beginList(nil, nil)
	p.endList("")
	if buf.String() != "{\n  \"items\": []\n}\n" {
		t.Errorf("empty list = %q", buf.String())
	}
}

func TestPipedTableHasNoHeader(t *testing.T) {
	out := renderList(t, "table", false, false, "")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 rows, got %q", out)
	}
	if lines[0] != "STU#a91\tA\t2026-09-01" {
		t.Errorf("row 0 = %q", lines[0])
	}
	if lines[2] != `STU#c\tx`+"\tB+\t2026-09-01" {
		t.Errorf("a tab inside a value must not split the row: %q", lines[2])
	}
	tty := renderList(t, "table", true, false, "")
	if !strings.HasPrefix(tty, "STUDENT") || !strings.Contains(tty, "GRADE") {
		t.Errorf("terminal table lacks a header:\n%s", tty)
	}
}

func TestForwardColumns(t *testing.T) {
	sch := loadSchool(t)
	rel := sch.Relation("enrollment")
	if got := listColumns(rel, ops.Forward, sch.Table.Index); strings.Join(got, ",") != "course,grade,enrolledOn" {
		t.Errorf("forward columns = %v", got)
	}
	// A reverse list shows only what the index projects; a forward list
	// reads the base table, which has everything.
	for _, tc := range []struct {
		index schema.Index
		dir   ops.Direction
		want  string
	}{
		{schema.Index{Projection: schema.ProjectionAll}, ops.Reverse, "student,grade,enrolledOn"},
		{schema.Index{Projection: schema.ProjectionKeysOnly}, ops.Reverse, "student"},
		{schema.Index{Projection: schema.ProjectionInclude, Include: []string{"enrolledOn"}}, ops.Reverse, "student,enrolledOn"},
		{schema.Index{Projection: schema.ProjectionKeysOnly}, ops.Forward, "course,grade,enrolledOn"},
	} {
		if got := strings.Join(listColumns(rel, tc.dir, tc.index), ","); got != tc.want {
			t.Errorf("%s %v columns = %s, want %s", tc.index.Projection, tc.dir, got, tc.want)
		}
	}
	rec, err := edgeRecord(schema.DefaultLayout, rel, ops.Forward, edge("STU#a91", "CRS#math204", "A"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := rec.get("course"); v != "CRS#math204" {
		t.Errorf("forward key = %v", v)
	}
}

func TestEntityRecordOrder(t *testing.T) {
	sch := loadSchool(t)
	rec, err := entityRecord(sch, ops.Item{"PK": s("STU#a91"), "SK": s("STU#a91"), "type": s("student"),
		"email": s("ana@example.com"), "courseCount": n("2"), "name": s("Ana"),
		"tags": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rec {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "key,type,name,email,courseCount,tags" {
		t.Errorf("fields = %s", got)
	}
	var buf bytes.Buffer
	(&tablePrinter{w: &buf}).object(rec)
	golden(t, "entity_piped.txt", buf.String())
	buf.Reset()
	(&yamlPrinter{w: &buf}).object(rec)
	golden(t, "entity.yaml", buf.String())
}

// TestRecordsInInvertedLayout: rows leave out the layout's key attributes
// whatever they are named; an entity item, which records no type in the
// inverted layout, shows the entity its prefix names, unless it declares a
// "type" attribute of its own (free in that layout), which shows as is.
func TestRecordsInInvertedLayout(t *testing.T) {
	sch, err := schema.Parse("legacy.yaml", []byte(`version: 1
table: {name: legacy, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}
entities:
  student: {prefix: "STU#", attributes: {name: string}}
  course: {prefix: "CRS#", attributes: {type: string}}
relations:
  enrollment: {from: student, to: course, edge: "", attributes: {grade: string}}
`))
	if err != nil {
		t.Fatal(err)
	}
	fields := func(rec orderedObject) string {
		var out []string
		for _, f := range rec {
			out = append(out, fmt.Sprintf("%s=%v", f.Name, f.Value))
		}
		return strings.Join(out, " ")
	}
	rec, err := entityRecord(sch, ops.Item{"pk": s("STU#a91"), "sk": s("STU#a91"), "name": s("Ana"), "courseCount": n("1")})
	if err != nil {
		t.Fatal(err)
	}
	if got := fields(rec); got != "key=STU#a91 type=student name=Ana courseCount=1" {
		t.Errorf("student = %s", got)
	}
	rec, err = entityRecord(sch, ops.Item{"pk": s("CRS#m"), "sk": s("CRS#m"), "type": s("seminar")})
	if err != nil {
		t.Fatal(err)
	}
	if got := fields(rec); got != "key=CRS#m type=seminar" {
		t.Errorf("course = %s", got)
	}
	rel := sch.Relation("enrollment")
	for _, dir := range []ops.Direction{ops.Forward, ops.Reverse} {
		rec, err := edgeRecord(sch.Layout(), rel, dir, ops.Item{"pk": s("STU#a91"), "sk": s("CRS#m"), "grade": s("A")})
		if err != nil {
			t.Fatal(err)
		}
		want := map[ops.Direction]string{ops.Forward: "course=CRS#m grade=A", ops.Reverse: "student=STU#a91 grade=A"}[dir]
		if got := fields(rec); got != want {
			t.Errorf("edge %v = %s, want %s", dir, got, want)
		}
	}
}

func TestCSVRefusesEntity(t *testing.T) {
	var buf bytes.Buffer
	err := (&csvPrinter{w: newCSV(&buf)}).beginList([]string{"a"}, orderedObject{{"key", "x"}})
	if ExitCode(err) != ExitUsage {
		t.Errorf("csv with entity: %v", err)
	}
}

// TestTerminalTableChunks: with --all on a terminal, rows are printed every
// page (pageSize rows) and the header only once.
func TestTerminalTableChunks(t *testing.T) {
	var buf bytes.Buffer
	p := &tablePrinter{w: &buf, tty: true, pageSize: 2}
	p.beginList([]string{"student"}, nil)
	for _, k := range []string{"STU#1", "STU#2", "STU#3"} {
		p.row(orderedObject{{"student", k}})
		if k == "STU#2" && !strings.Contains(buf.String(), "STU#2") {
			t.Error("a full page was not printed before the list ended")
		}
	}
	p.endList("")
	if got := buf.String(); got != "STUDENT\nSTU#1\nSTU#2\nSTU#3\n" {
		t.Errorf("chunks = %q", got)
	}
	buf.Reset()
	p.beginList([]string{"student"}, nil)
	p.endList("")
	if buf.String() != "(no items)\n" {
		t.Errorf("empty = %q", buf.String())
	}
}

func TestTableOutputEscapesControlCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain Zoë 名前", "plain Zoë 名前"},
		{"a\tb\nc\rd", `a\tb\nc\rd`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\a and del\x7f", `bell\x07 and del\x7f`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"rtl \u202eevil\u202c", `rtl \u202eevil\u202c`},
		{"iso \u2066x\u2069 ls \u2028 ps \u2029", `iso \u2066x\u2069 ls \u2028 ps \u2029`},
		{"marks \u200e\u200f\u061c zw \u200b\ufeff\u2060\u00ad", `marks \u200e\u200f\u061c zw \u200b\ufeff\u2060\u00ad`},
		{"emoji \U0001F468\u200d\U0001F469 joins", "emoji \U0001F468\u200d\U0001F469 joins"},
		{`back\slash`, `back\slash`},
	} {
		if got := escapeControls(tc.in); got != tc.want {
			t.Errorf("escapeControls(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Piped (TSV) and terminal tables both escape; JSON keeps the value exact.
	rec := orderedObject{{"key", "STU#a91"}, {"name", "x\x1b[2Jy"}}
	for _, tty := range []bool{false, true} {
		var buf bytes.Buffer
		p := &tablePrinter{w: &buf, tty: tty}
		if err := p.object(rec); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "\x1b") || !strings.Contains(buf.String(), `x\x1b[2Jy`) {
			t.Errorf("tty=%v: %q", tty, buf.String())
		}
	}
	var buf bytes.Buffer
	if err := (&jsonPrinter{w: &buf}).object(rec); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["name"] != "x\x1b[2Jy" {
		t.Errorf("json: %q %v", buf.String(), err)
	}
}

// TestRenderTableAlignsByDisplayWidth: columns line up in terminal cells,
// wide characters counting two, with no trailing blanks.
func TestRenderTableAlignsByDisplayWidth(t *testing.T) {
	var b strings.Builder
	err := renderTable(&b, []string{"course", "title", "note"}, [][]string{
		{"CRS#math204", "数学", "x"},
		{"CRS#a", "Algebra", ""},
		{"CRS#b\tc", "é", "y"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "COURSE        TITLE     NOTE\n" +
		"CRS#math204   数学      x\n" +
		"CRS#a         Algebra\n" +
		"CRS#b\\tc      é         y\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
