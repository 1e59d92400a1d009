package rowfile

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
)

func school() (*schema.Relation, *schema.Entity) {
	stu := &schema.Entity{Name: "student", Prefix: "STU#", Attributes: []schema.Attribute{
		{Name: "name", Kind: schema.KindString}, {Name: "age", Kind: schema.KindNumber},
		{Name: "active", Kind: schema.KindBool}, {Name: "tags", Kind: schema.KindStrings},
		{Name: "born", Kind: schema.KindDate}, {Name: "seen", Kind: schema.KindDatetime}}}
	crs := &schema.Entity{Name: "course", Prefix: "CRS#"}
	rel := &schema.Relation{Name: "enrollment", From: schema.Side{Entity: stu, Prefix: "STU#"},
		To: schema.Side{Entity: crs, Prefix: "CRS#"}, Edge: "ENROLL#", Shards: 1,
		Attributes: []schema.Attribute{{Name: "grade", Kind: schema.KindString}, {Name: "credits", Kind: schema.KindNumber}}}
	return rel, stu
}

// readAll reads every row and every line error.
func readAll(t *testing.T, format Format, tg Target, in string) ([]Row, []*LineError) {
	t.Helper()
	r, err := NewReader(strings.NewReader(in), "in."+string(format), format, tg)
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return nil, []*LineError{le}
		}
		t.Fatal(err)
	}
	var rows []Row
	var bad []*LineError
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, bad
		}
		var le *LineError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("not a line error: %v", err)
		}
		if err != nil {
			bad = append(bad, le)
			if le.Fatal {
				return rows, bad
			}
			continue
		}
		rows = append(rows, row)
	}
}

func TestCSVQuotingRFC4180(t *testing.T) {
	rel, _ := school()
	in := "from,to,grade\n" +
		"a91,math204,\"A, with honours\"\n" +
		"STU#b02,CRS#art1,\"say \"\"hi\"\"\"\n" +
		"c03,bio2,\"two\nlines\"\n" +
		"d04,x,B\n"
	rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
	if len(bad) != 0 {
		t.Fatalf("errors: %v", bad)
	}
	want := []Row{
		{Line: 2, From: "STU#a91", To: "CRS#math204", Attrs: []Attr{{"grade", "A, with honours"}}},
		{Line: 3, From: "STU#b02", To: "CRS#art1", Attrs: []Attr{{"grade", `say "hi"`}}},
		{Line: 4, From: "STU#c03", To: "CRS#bio2", Attrs: []Attr{{"grade", "two\nlines"}}},
		{Line: 6, From: "STU#d04", To: "CRS#x", Attrs: []Attr{{"grade", "B"}}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows:\n got %#v\nwant %#v", rows, want)
	}
}

func TestCSVBadLinesReportFileAndLine(t *testing.T) {
	rel, _ := school()
	in := "to,from,credits\r\n" + // any column order, CRLF line ends
		"math204,a91,5\r\n" +
		"math204,CRS#a91,5\r\n" + // wrong prefix for the from side
		"math204,a92,five\r\n" + // not a number
		"math204,a93\r\n" + // too few fields
		"math204,a\"94,1\r\n" + // bare quote
		",a95,1\r\n" + // empty key
		"math204,a96,1e400\r\n" // out of DynamoDB's range
	rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
	if len(rows) != 1 || rows[0].From != "STU#a91" || !reflect.DeepEqual(rows[0].Attrs, []Attr{{"credits", schema.Number("5")}}) {
		t.Fatalf("rows: %#v", rows)
	}
	var got []string
	for _, e := range bad {
		got = append(got, e.Error())
	}
	want := []string{
		`in.csv:3: from: key "CRS#a91": prefix "CRS#" does not belong here (expected STU#<id> or <id>)`,
		`in.csv:4: credits is a number: "five" is not a number`,
		`in.csv:5: 2 fields, but the header has 3 (to,from,credits); quote a value that holds a comma`,
		`in.csv:6: a quote (") inside an unquoted field; quote the whole field and double the quote ("a ""b"" c")`,
		`in.csv:7: to is empty`,
		`in.csv:8: credits is a number: "1e400" is outside DynamoDB's number range (1E-130 to 9.9E+125 in magnitude)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if bad[0].Raw != "math204,CRS#a91,5" {
		t.Errorf("raw of a rejected line: %q", bad[0].Raw)
	}
}

func TestCSVHeaderErrorsAreFatal(t *testing.T) {
	rel, _ := school()
	for in, want := range map[string]string{
		"":                        `in.csv:1: empty file: want a header line such as from,to,grade,credits`,
		"from,to,colour\n":        `in.csv:1: unknown column "colour"; relation enrollment takes from,to,grade,credits`,
		"from,grade\n":            `in.csv:1: the header has no "to" column; relation enrollment takes from,to,grade,credits`,
		"from,to,to\n":            `in.csv:1: column "to" appears twice in the header`,
		"\ufefffrom,to\na,b\n":    "",
		"from,to,grade\n\na,b,\n": "",
	} {
		_, bad := readAll(t, CSV, Target{Relation: rel}, in)
		got := ""
		if len(bad) > 0 {
			got = bad[0].Error()
			if !bad[0].Fatal {
				t.Errorf("%q: not fatal", in)
			}
		}
		if got != want {
			t.Errorf("%q:\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestCSVByteOrderMarkBeforeAQuotedHeader: spreadsheet and PowerShell
// exports write a byte-order mark and quote every field, header included;
// the mark is skipped before the quote is read, and a file holding only the
// mark is an empty file.
func TestCSVByteOrderMarkBeforeAQuotedHeader(t *testing.T) {
	rel, _ := school()
	rows, bad := readAll(t, CSV, Target{Relation: rel}, "\ufeff\"from\",\"to\"\r\n\"a1\",\"c1\"\r\n")
	if len(bad) != 0 || len(rows) != 1 || rows[0].From != "STU#a1" || rows[0].To != "CRS#c1" || rows[0].Line != 2 {
		t.Fatalf("rows %#v, errors %v", rows, bad)
	}
	rows, bad = readAll(t, CSV, Target{Relation: rel}, "\"\ufefffrom\",to\na1,c1\n")
	if len(bad) != 0 || len(rows) != 1 {
		t.Fatalf("a mark inside the first field's quotes: rows %#v, errors %v", rows, bad)
	}
	_, bad = readAll(t, CSV, Target{Relation: rel}, "\ufeff")
	if want := "in.csv:1: empty file: want a header line such as from,to,grade,credits"; len(bad) != 1 || bad[0].Error() != want {
		t.Fatalf("a file of only a byte-order mark: errors %v, want %s", bad, want)
	}
}

func TestNDJSONTypedValues(t *testing.T) {
	_, stu := school()
	in := `{"id":"a91","name":"Ana","age":12345678901234567890123,"active":true,"tags":["x","y","x"],"born":"2010-02-03","seen":"2026-01-01T10:00:00Z"}
{"id":"STU#b02","age":"7","active":"false","tags":"p, q"}

{"id":"c03","name":null}
`
	rows, bad := readAll(t, NDJSON, Target{Entity: stu}, in)
	if len(bad) != 0 {
		t.Fatalf("errors: %v", bad)
	}
	want := []Row{
		{Line: 1, ID: "STU#a91", Attrs: attrsOf(stu, map[string]any{"name": "Ana", "age": schema.Number("12345678901234567890123"), "active": true,
			"tags": []string{"x", "y"}, "born": "2010-02-03", "seen": "2026-01-01T10:00:00Z"})},
		{Line: 2, ID: "STU#b02", Attrs: attrsOf(stu, map[string]any{"age": schema.Number("7"), "active": false, "tags": []string{"p", "q"}})},
		{Line: 4, ID: "STU#c03", Attrs: attrsOf(stu, map[string]any{})},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows:\n got %#v\nwant %#v", rows, want)
	}
}

func TestNDJSONBadLines(t *testing.T) {
	_, stu := school()
	in := `{"id":"a1"}
{"id":"a2","colour":"red"}
{"id":"a3","age":true}
not json
{"id":5}
{"id":"a6","tags":[]}
{"id":"a7","born":"2010-13-40"}
["a8"]
{"id":"a9"} {"id":"a10"}
{"id":"a11","active":1}
{"id":"a12","name":"x","name":"y"}
{"id":"a13","tags":["x",5]}
{"name":"no id"}
{"id":null}
`
	rows, bad := readAll(t, NDJSON, Target{Entity: stu}, in)
	if len(rows) != 1 {
		t.Fatalf("rows: %#v", rows)
	}
	var got []string
	for _, e := range bad {
		got = append(got, e.Error())
	}
	want := []string{
		`in.ndjson:2: unknown field "colour"; entity student takes id, name, age, active, tags, born, seen`,
		`in.ndjson:3: age is a number: got true; give a number`,
		`in.ndjson:4: not a JSON object: invalid character 'o' in literal null (expecting 'u') (at byte 2)`,
		`in.ndjson:5: id must be a string key, not a number`,
		`in.ndjson:6: tags is a set of strings: the array has no elements; DynamoDB string sets cannot be empty`,
		`in.ndjson:7: born is a date: "2010-13-40" is not a date like 2025-09-01`,
		`in.ndjson:8: not a JSON object: got a JSON array`,
		`in.ndjson:9: more than one JSON value on the line`,
		`in.ndjson:10: active is a bool: got the number 1; write it as a string`,
		`in.ndjson:11: field "name" appears twice; keep one`,
		`in.ndjson:12: tags is a set of strings: element 2 of the array is a number, not a string`,
		`in.ndjson:13: id is missing`,
		`in.ndjson:14: id is null; give the key as a string`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNDJSONByteOrderMarkSkipped(t *testing.T) {
	_, stu := school()
	rows, bad := readAll(t, NDJSON, Target{Entity: stu}, "\ufeff{\"id\":\"a1\"}\r\n{\"id\":\"a2\"}\r\n")
	if len(bad) != 0 || len(rows) != 2 || rows[0].ID != "STU#a1" {
		t.Fatalf("rows %#v, errors %v", rows, bad)
	}
}

// TestEmptyStringIsAValueInNDJSONOnly: NDJSON's "" for a string attribute
// is the empty string (what --set NAME= stores and export -o ndjson writes),
// while null, a missing field and an empty CSV cell are no value; "" for an
// attribute of another type stays no value.
func TestEmptyStringIsAValueInNDJSONOnly(t *testing.T) {
	rel, _ := school()
	rows, bad := readAll(t, NDJSON, Target{Relation: rel},
		`{"from":"a1","to":"c1","grade":"","credits":""}`+"\n"+
			`{"from":"a2","to":"c1","grade":null}`+"\n"+
			`{"from":"a3","to":"c1"}`+"\n")
	if len(bad) != 0 || len(rows) != 3 {
		t.Fatalf("rows %#v, errors %v", rows, bad)
	}
	if got := rows[0].Attrs; len(got) != 1 || got[0] != (Attr{"grade", ""}) {
		t.Errorf(`{"grade":"","credits":""}: attributes %#v, want grade "" only`, got)
	}
	for _, r := range rows[1:] {
		if len(r.Attrs) != 0 {
			t.Errorf("line %d: attributes %#v, want none", r.Line, r.Attrs)
		}
	}
	rows, bad = readAll(t, CSV, Target{Relation: rel}, "from,to,grade,credits\na1,c1,,\n")
	if len(bad) != 0 || len(rows) != 1 || len(rows[0].Attrs) != 0 {
		t.Fatalf("CSV empty cells: rows %#v, errors %v", rows, bad)
	}
}

// TestCSVRejectedRecordsKeepTheirBytes: a rejects file holds the bad
// records as they were written, so that it can be fixed and imported again.
func TestCSVRejectedRecordsKeepTheirBytes(t *testing.T) {
	rel, _ := school()
	in := "from,to,grade\r\n" +
		"a1,c1,\xff\r\n" + // not UTF-8
		"a2,c1,\"x\"\"y\"\r\n" +
		"\r\n" +
		"a3,c1,\"bad\"x\r\n" + // text after the closing quote
		"a4,c1,\"two\r\nlines\",extra\r\n" + // too many fields, over two lines
		"a5,c1,A" // no line end
	rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
	if len(rows) != 2 || rows[0].From != "STU#a2" || rows[1].From != "STU#a5" {
		t.Fatalf("rows: %#v", rows)
	}
	var raws, msgs []string
	for _, e := range bad {
		raws = append(raws, e.Raw)
		msgs = append(msgs, e.Error())
	}
	wantRaw := []string{"a1,c1,\xff", `a3,c1,"bad"x`, "a4,c1,\"two\r\nlines\",extra"}
	if !reflect.DeepEqual(raws, wantRaw) {
		t.Errorf("raw records:\n got %q\nwant %q", raws, wantRaw)
	}
	if len(msgs) != 3 || !strings.HasPrefix(msgs[1], "in.csv:5: ") ||
		!strings.HasPrefix(msgs[2], "in.csv:6: 4 fields") || !strings.HasSuffix(msgs[2], "(the record runs from line 6 to 7: a quoted field holds line breaks)") {
		t.Errorf("messages:\n%s", strings.Join(msgs, "\n"))
	}
}

// TestCSVQuoteOpenToTheEndIsFatal: a quote never closed takes in every line
// after it; those rows must not vanish from both the import and the rejects.
func TestCSVQuoteOpenToTheEndIsFatal(t *testing.T) {
	rel, _ := school()
	in := "from,to,grade\na1,c1,\xff\na2,c1,\"x\"\"y\"\na3,c1,\"unterminated\na4,c1,A\na5,c1,B\n"
	rows, bad := readAll(t, CSV, Target{Relation: rel}, in)
	if len(rows) != 1 || len(bad) != 2 || !bad[1].Fatal {
		t.Fatalf("rows %#v, errors %v", rows, bad)
	}
	want := `in.csv:4: a quoted field opened on this line is never closed: it takes in the rest of the file, lines 4 to 6 (2 lines after it); close the quote, and double a quote inside a field ("a ""b"" c")`
	if got := bad[1].Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// On the last line it takes in nothing: an ordinary bad line.
	_, bad = readAll(t, CSV, Target{Relation: rel}, "from,to,grade\na1,c1,\"open\n")
	if len(bad) != 1 || bad[0].Fatal || bad[0].Line != 2 || bad[0].Raw != `a1,c1,"open` {
		t.Fatalf("errors %#v", bad)
	}
}

func TestSelfEdgeWithoutEdgePrefixRefused(t *testing.T) {
	user := &schema.Entity{Name: "user", Prefix: "USER#"}
	rel := &schema.Relation{Name: "knows", From: schema.Side{Entity: user, Prefix: "USER#"}, To: schema.Side{Entity: user, Prefix: "USER#"}, Shards: 1}
	_, bad := readAll(t, CSV, Target{Relation: rel}, "from,to\nann,ann\n")
	if len(bad) != 1 || !strings.Contains(bad[0].Msg, "cannot link USER#ann to itself") {
		t.Fatalf("got %v", bad)
	}
}

func TestOversizedItemRefused(t *testing.T) {
	rel, _ := school()
	_, bad := readAll(t, CSV, Target{Relation: rel}, "from,to,grade\na,b,"+strings.Repeat("x", 410_000)+"\n")
	if len(bad) != 1 || !strings.Contains(bad[0].Msg, "over DynamoDB's 400 KB item limit") {
		t.Fatalf("got %v", bad)
	}
}

// TestWriteThenReadGivesTheSameRows is the file half of import(export(x)) = x.
func TestWriteThenReadGivesTheSameRows(t *testing.T) {
	_, stu := school()
	rows := []Row{
		{ID: "STU#a91", Attrs: attrsOf(stu, map[string]any{"name": `Ana "A", Jr.` + "\nsecond line", "age": schema.Number("-1.5E+3"), "active": false,
			"tags": []string{"z", "a"}, "born": "2010-02-03", "seen": "2026-01-01T10:00:00.123+02:00"})},
		{ID: "STU#b,02", Attrs: attrsOf(stu, map[string]any{"age": schema.Number("99999999999999999999999999999999999999")})},
		{ID: "STU#c03", Attrs: attrsOf(stu, map[string]any{})},
	}
	for _, f := range []Format{CSV, NDJSON} {
		file, err := writeFile(f, Target{Entity: stu}, rows...)
		if err != nil {
			t.Fatal(err)
		}
		got, bad := readAll(t, f, Target{Entity: stu}, file)
		if len(bad) > 0 {
			t.Fatalf("%s: %v\n%s", f, bad, file)
		}
		for i := range got {
			got[i].Line = 0
		}
		want := []Row{rows[0], rows[1], rows[2]}
		m := rows[0].AttrMap()
		m["tags"] = []string{"a", "z"}
		want[0].Attrs = attrsOf(stu, m)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v\nfile:\n%s", f, got, want, file)
		}
	}
}

// TestNDJSONSetKeepsAnEmptyStringElement: DynamoDB string sets may hold ""
// (only the set itself cannot be empty), and export -o ndjson writes such an
// element, so an NDJSON array keeps it: ["", "x"] is that set, [""] the set
// of one empty string. Only duplicates are dropped.
func TestNDJSONSetKeepsAnEmptyStringElement(t *testing.T) {
	_, stu := school()
	rows := []Row{
		{ID: "STU#a1", Attrs: attrsOf(stu, map[string]any{"tags": []string{"", "x"}})},
		{ID: "STU#a2", Attrs: attrsOf(stu, map[string]any{"tags": []string{""}})},
	}
	file, err := writeFile(NDJSON, Target{Entity: stu}, rows...)
	if err != nil {
		t.Fatal(err)
	}
	file += `{"id":"a3","tags":["","x",""]}` + "\n"
	got, bad := readAll(t, NDJSON, Target{Entity: stu}, file)
	if len(bad) > 0 {
		t.Fatalf("%v\n%s", bad, file)
	}
	for i := range got {
		got[i].Line = 0
	}
	want := append(rows, Row{ID: "STU#a3", Attrs: attrsOf(stu, map[string]any{"tags": []string{"", "x"}})})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v\nfile:\n%s", got, want, file)
	}
}

// TestNDJSONEscapedLineOfAnItemThatFits: JSON escapes take up to six bytes
// for one byte of the value (\u0001), and encoders write them freely
// (Python's ensure_ascii, Go's \u003c), so a line of over 1 MiB may hold an
// item under DynamoDB's 400 KB: it is read, not refused for its length.
func TestNDJSONEscapedLineOfAnItemThatFits(t *testing.T) {
	rel, _ := school()
	line := `{"from":"a","to":"b","grade":"` + strings.Repeat(`\u00e9`, 190_000) + `"}` + "\n" // 1.1 MB, a 380 KB value
	rows, bad := readAll(t, NDJSON, Target{Relation: rel}, line)
	if len(bad) != 0 || len(rows) != 1 {
		t.Fatalf("rows %d, errors %v", len(rows), bad)
	}
	if v, _ := rows[0].Attr("grade"); v != strings.Repeat("\u00e9", 190_000) {
		t.Errorf("grade of %d bytes", len(v.(string)))
	}
}

// TestNDJSONLineTooLongIsPlacedInTheInput: a line over the limit is not
// kept, but its error says where its bytes are (without the line end), so
// that a rejects file can copy them.
func TestNDJSONLineTooLongIsPlacedInTheInput(t *testing.T) {
	rel, _ := school()
	first := `{"from":"a","to":"b"}` + "\n"
	long := `{"from":"a","to":"b","grade":"` + strings.Repeat("y", maxLineBytes) + `"}`
	for _, end := range []string{"\r\n", "\n", ""} {
		in := first + long + end
		rows, bad := readAll(t, NDJSON, Target{Relation: rel}, in)
		if len(rows) != 1 || len(bad) != 1 || bad[0].Line != 2 || bad[0].Fatal {
			t.Fatalf("%q end: rows %d, errors %v", end, len(rows), bad)
		}
		le := bad[0]
		if le.Raw != "" || le.RawSize == 0 || in[le.RawOffset:le.RawOffset+le.RawSize] != long {
			t.Errorf("%q end: offset %d size %d, want %d %d", end, le.RawOffset, le.RawSize, len(first), len(long))
		}
	}
}

func TestCSVWriterRefusesWhatItCannotCarry(t *testing.T) {
	_, stu := school()
	for _, attrs := range []map[string]any{{"name": ""}, {"tags": []string{"a,b"}}, {"tags": []string{" a"}}} {
		w, _ := NewWriter(io.Discard, CSV, Target{Entity: stu})
		err := w.Write(Row{ID: "STU#x", Attrs: attrsOf(stu, attrs)})
		if err == nil || !strings.Contains(err.Error(), "export with -o ndjson") {
			t.Errorf("%v: got %v", attrs, err)
		}
		w2, _ := NewWriter(io.Discard, NDJSON, Target{Entity: stu})
		if err := w2.Write(Row{ID: "STU#x", Attrs: attrsOf(stu, attrs)}); err != nil {
			t.Errorf("ndjson %v: %v", attrs, err)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"a.csv": CSV, "b.CSV": CSV, "c.ndjson": NDJSON, "d.jsonl": NDJSON, "e.json": NDJSON, "f.txt": "", "-": ""} {
		got, _ := FormatOf(name)
		if got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestValuesThatAreNotUTF8Refused(t *testing.T) {
	rel, _ := school()
	for _, c := range []struct {
		format Format
		in     string
	}{
		{CSV, "from,to,grade\nSTU#a,CRS#b,\xe2\n"},
		{NDJSON, "{\"from\":\"STU#a\",\"to\":\"CRS#b\",\"grade\":\"\xe2\"}\n"},
	} {
		rows, bad := readAll(t, c.format, Target{Relation: rel}, c.in)
		if len(rows) != 0 || len(bad) != 1 || !strings.Contains(bad[0].Msg, "byte 0xE2") || !strings.Contains(bad[0].Msg, "not UTF-8") {
			t.Errorf("%s: rows %v, errors %v", c.format, rows, bad)
		}
	}
}

func TestNDJSONLoneSurrogatesRefused(t *testing.T) {
	rel, _ := school()
	for in, bad := range map[string]bool{
		`{"from":"a","to":"b","grade":"\ud800"}`:       true,
		`{"from":"a","to":"b","grade":"x\udc00y"}`:     true,
		`{"from":"a","to":"b","grade":"\ud83d\ude00"}`: false, // a pair: U+1F600
		`{"from":"a","to":"b","grade":"\\ud800"}`:      false, // a backslash, then text
		`{"from":"a","to":"b","grade":"\u00e9\"\\\n"}`: false,
		`{"from":"a","to":"b","grade":"\ud83d\u0041"}`: true,
	} {
		rows, errs := readAll(t, NDJSON, Target{Relation: rel}, in+"\n")
		if got := len(errs) == 1 && strings.Contains(errs[0].Msg, "surrogate"); got != bad || len(rows)+len(errs) != 1 {
			t.Errorf("%s: rows %v, errors %v", in, rows, errs)
		}
	}
}

// attrsOf is m as a Row's Attrs: in the order t declares its attributes,
// nil when empty, as the readers give them.
func attrsOf(t *schema.Entity, m map[string]any) []Attr {
	var out []Attr
	for _, a := range t.Attributes {
		if v, ok := m[a.Name]; ok {
			out = append(out, Attr{a.Name, v})
		}
	}
	return out
}
