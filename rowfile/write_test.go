package rowfile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// writeCSV writes rows to a CSV file of tg; err is the first refusal.
func writeCSV(tg Target, rows ...Row) (string, error) { return writeFile(CSV, tg, rows...) }

// writeFile writes rows to a file of format f for tg; err is the first
// refusal.
func writeFile(f Format, tg Target, rows ...Row) (string, error) {
	var b bytes.Buffer
	w, err := NewWriter(&b, f, tg)
	if err != nil {
		return "", err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return b.String(), err
		}
	}
	err = w.Flush()
	return b.String(), err
}

// TestCSVCarriesOrRefusesEveryValue is import(export(x)) = x for values at
// the edges of CSV: each either reads back exactly as written, or the
// writer refuses it naming -o ndjson (and the NDJSON writer keeps it).
func TestCSVCarriesOrRefusesEveryValue(t *testing.T) {
	_, stu := school()
	tg := Target{Entity: stu}
	for _, c := range []struct {
		attr    string
		value   any
		carried bool
	}{
		{"name", "cr\r\nlf", false},
		{"name", "\r\n", false},
		{"name", "a\r\r\nb", false},
		{"name", "", false},
		{"name", "lone\rcr", true},
		{"name", "\r", true},
		{"name", "ends\r", true},
		{"name", "\rstarts", true},
		{"name", "lf\nonly", true},
		{"name", "\n", true},
		{"name", "\n\r", true},
		{"name", `say "hi"`, true},
		{"name", `"`, true},
		{"name", `""`, true},
		{"name", " leading", true},
		{"name", "trailing ", true},
		{"name", " ", true},
		{"name", "\t", true},
		{"name", "a,b", true},
		{"name", `\.`, true},
		{"name", "\ufeffbom", true},
		{"tags", []string{"a\r\nb"}, false},
		{"tags", []string{"a,b"}, false},
		{"tags", []string{" a"}, false},
		{"tags", []string{`"q"`, "a\rb", "c\nd"}, true}, // sorted, as written
	} {
		row := Row{ID: "STU#x", Attrs: []Attr{{c.attr, c.value}}}
		file, err := writeCSV(tg, row)
		if !c.carried {
			if err == nil || !strings.Contains(err.Error(), "export with -o ndjson") {
				t.Errorf("%s=%q: got %v, want a refusal naming -o ndjson (file %q)", c.attr, c.value, err, file)
			}
			if c.value == "" {
				continue // NDJSON import reads "" as no value, like an empty CSV cell
			}
			var nd bytes.Buffer
			w, _ := NewWriter(&nd, NDJSON, tg)
			if err := w.Write(row); err != nil {
				t.Errorf("ndjson %s=%q: %v", c.attr, c.value, err)
			}
			w.Flush()
			if got, bad := readAll(t, NDJSON, tg, nd.String()); len(bad) > 0 || len(got) != 1 || !reflect.DeepEqual(got[0].Attrs, row.Attrs) {
				t.Errorf("ndjson %s=%q: read %v, errors %v", c.attr, c.value, got, bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%q: %v", c.attr, c.value, err)
			continue
		}
		got, bad := readAll(t, CSV, tg, file)
		if len(bad) > 0 || len(got) != 1 || !reflect.DeepEqual(got[0].Attrs, row.Attrs) {
			t.Errorf("%s=%q: wrote %q, read %v, errors %v", c.attr, c.value, file, got, bad)
		}
	}
}
