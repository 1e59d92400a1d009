package rowfile

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
)

// FuzzReadRows reads any bytes as an import file of each format and target.
// It holds that reading never panics and ends with io.EOF or a fatal
// LineError; every refusal is a LineError with a line number; every row read
// has keys of its sides' prefixes and lines in file order; and the rows read
// write back as NDJSON and read again as the same rows (what export and
// import rely on).
func FuzzReadRows(f *testing.F) {
	for _, seed := range []string{
		"from,to,grade,credits\nSTU#a91,CRS#math204,A,4\na92,math101,\"B, then A\",3\n",
		"from,to\n\"STU#a\"\"91\",CRS#x\n,\nSTU#a,CRS#b,extra\n",
		"id,name,age,active,tags,born,seen\nSTU#a91,Ana,19,true,\"a,b\",2010-02-03,2026-01-01T10:00:00Z\n",
		"id\n\xff\xfe\n",
		`{"from":"STU#a91","to":"CRS#math204","grade":"A","credits":4}` + "\n" + `{"from":"a","to":"b","credits":1e400}` + "\n",
		`{"id":"STU#a91","name":"Ana","tags":["b","a"],"active":false,"age":-1.5E+3}` + "\n{\n[]\nnull\n",
		`{"id":"STU#a91","age":"19","extra":{"x":1}}` + "\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	rel, stu := school()
	targets := []Target{{Relation: rel}, {Entity: stu}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{CSV, NDJSON} {
			for _, tg := range targets {
				rows := readRows(t, format, tg, data)
				for i, r := range rows {
					if r.Line < 1 || i > 0 && r.Line <= rows[i-1].Line {
						t.Fatalf("%s %s: row %d at line %d after line %d", format, tg.Name(), i, r.Line, rows[max(i-1, 0)].Line)
					}
					checkKeys(t, tg, r)
				}
				if len(rows) == 0 {
					continue
				}
				var out bytes.Buffer
				w, err := NewWriter(&out, NDJSON, tg)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					if err := w.Write(r); err != nil {
						t.Fatalf("%s %s: a row read cannot be written: %v (%#v)", format, tg.Name(), err, r)
					}
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				again := readRows(t, NDJSON, tg, out.Bytes())
				canonical(rows)
				canonical(again)
				if !reflect.DeepEqual(rows, again) {
					t.Fatalf("%s %s: rows change when written and read again:\n got %#v\nwant %#v\nfile:\n%s", format, tg.Name(), again, rows, out.String())
				}
			}
		}
	})
}

// readRows reads the valid rows of data, checking that every error is a
// LineError and that reading stops after a fatal one.
func readRows(t *testing.T, format Format, tg Target, data []byte) []Row {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "in", format, tg)
	if err != nil {
		var le *LineError
		if !errors.As(err, &le) || !le.Fatal || le.Line < 1 {
			t.Fatalf("%s %s: opening: %#v", format, tg.Name(), err)
		}
		return nil
	}
	var rows []Row
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Msg == "" {
				t.Fatalf("%s %s: not a line error: %#v", format, tg.Name(), err)
			}
			if le.Fatal {
				return rows
			}
			continue
		}
		rows = append(rows, row)
	}
}

// canonical drops line numbers, sorts string sets, whose order a file does
// not keep, and writes numbers as their JSON literals ("3." as "3").
func canonical(rows []Row) {
	for i := range rows {
		rows[i].Line = 0
		for k, a := range rows[i].Attrs {
			switch v := a.Value.(type) {
			case []string:
				slices.Sort(v)
			case schema.Number:
				rows[i].Attrs[k].Value = schema.Number(v.Literal())
			}
		}
	}
}

func checkKeys(t *testing.T, tg Target, r Row) {
	t.Helper()
	if tg.Relation != nil {
		if !strings.HasPrefix(r.From, tg.Relation.From.Prefix) || len(r.From) == len(tg.Relation.From.Prefix) ||
			!strings.HasPrefix(r.To, tg.Relation.To.Prefix) || len(r.To) == len(tg.Relation.To.Prefix) {
			t.Fatalf("edge row with keys %q, %q", r.From, r.To)
		}
		return
	}
	if !strings.HasPrefix(r.ID, tg.Entity.Prefix) || len(r.ID) == len(tg.Entity.Prefix) {
		t.Fatalf("entity row with key %q", r.ID)
	}
}
