package rowfile

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// jsonCells are NDJSON values of every JSON type, and strings of the
// shapes each attribute kind reads; "" stands for the field left out.
var jsonCells = []string{
	"", `null`, `""`, `" "`, `"x"`, `"a91"`, `"STU#a91"`, `"CRS#m1"`, `" a"`, `"a\t"`, `"a\u0085"`, `"\u007f"`,
	`0`, `-1.5e3`, `1e400`, `7`, `"7"`, `" 7 "`, `"1e400"`, `"x7"`,
	`true`, `false`, `"true"`, `"FALSE"`, `"yes"`,
	`[]`, `[""]`, `["a"]`, `["a","a",""]`, `["a",1]`, `[null]`, `[[]]`, `"a,b"`, `" , "`,
	`"2010-02-03"`, `"2010-13-40"`, `"2026-01-01T10:00:00Z"`, `"2026-01-01 10:00"`,
	`{}`, `{"a":1}`,
}

// csvCells are CSV fields as written in the file; "-" stands for the
// column left out of the header.
var csvCells = []string{
	"-", "", `""`, " ", "x", "a91", "STU#a91", "CRS#m1", " a", "a\t", "null", "\x7f",
	"0", "-1.5e3", "1e400", " 7 ", "x7", "true", "FALSE", "yes", "1", `"a,b"`, `" , "`, `""""`,
	"2010-02-03", "2010-13-40", "2026-01-01T10:00:00Z", "[]", `"[""a""]"`, "{}",
}

// TestCellVerdicts pins the row or the error a reader gives for a row
// whose one column holds each of jsonCells (NDJSON) or csvCells (CSV), the
// other key columns holding valid keys, for every column of an entity and
// of a relation.
func TestCellVerdicts(t *testing.T) {
	rel, stu := school()
	valid := map[string]string{"from": "a1", "to": "c1", "id": "a1"}
	var b strings.Builder
	for _, tg := range []Target{{Entity: stu}, {Relation: rel}} {
		cols := exampleHeader(tg)
		for _, col := range cols {
			for _, v := range jsonCells {
				var fields []string
				for _, c := range cols {
					switch {
					case c == col && v != "":
						fields = append(fields, fmt.Sprintf("%q:%s", c, v))
					case c != col && valid[c] != "":
						fields = append(fields, fmt.Sprintf("%q:%q", c, valid[c]))
					}
				}
				line := "{" + strings.Join(fields, ",") + "}"
				fmt.Fprintf(&b, "%s\t%s\n", line, readVerdict(t, NDJSON, tg, line+"\n"))
			}
			for _, v := range csvCells {
				var head, rec []string
				for _, c := range cols {
					switch {
					case c == col && v != "-":
						head, rec = append(head, c), append(rec, v)
					case c != col && valid[c] != "":
						head, rec = append(head, c), append(rec, valid[c])
					}
				}
				file := strings.Join(head, ",") + "\n" + strings.Join(rec, ",") + "\n"
				fmt.Fprintf(&b, "%q\t%s\n", file, readVerdict(t, CSV, tg, file))
			}
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "cells.golden"), []byte(b.String()), *update, "./rowfile")
}

// readVerdict is the rows and the errors read from in, on one line.
func readVerdict(t *testing.T, format Format, tg Target, in string) string {
	t.Helper()
	rows, bad := readAll(t, format, tg, in)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("row %q %q %q %#v", r.ID, r.From, r.To, r.Attrs))
	}
	for _, e := range bad {
		out = append(out, fmt.Sprintf("error %s (fatal %v)", e.Error(), e.Fatal))
	}
	return strings.Join(out, "; ")
}
