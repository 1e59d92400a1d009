package cmd

import (
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/adjl/adjl/internal/plainjson"
)

// printer renders command results in the format chosen once from -o, so
// commands never switch on the format themselves (kubectl's printers).
type printer interface {
	// object prints one record: an entity, a check result with attributes.
	object(rec orderedObject) error
	// result prints what a command did: the sentence on the table format
	// ("created enrollment STU#a91 -> CRS#math204"), the record otherwise.
	result(sentence string, rec orderedObject) error
	// beginList starts a list: its columns and, with --with-entity, the
	// list key's own item (empty, not nil, when the key has none: null).
	beginList(cols []string, entity orderedObject) error
	// row prints one list item; streaming formats write it at once.
	row(rec orderedObject) error
	// endList finishes the list; next is the cursor of the following page.
	endList(next string) error
	// carriesNext reports whether the list output itself holds the next
	// page's cursor (JSON and YAML "next"); otherwise the command for the
	// next page goes to stderr.
	carriesNext() bool
}

// newPrinter returns the printer for format. pageSize bounds how many rows
// the terminal table buffers before it prints them.
func newPrinter(format string, ios *IOStreams, pageSize int) printer {
	switch format {
	case "json":
		return &jsonPrinter{w: ios.Out}
	case "ndjson":
		return &ndjsonPrinter{w: ios.Out}
	case "csv":
		return &csvPrinter{w: newCSV(ios.Out)}
	case "yaml":
		return &yamlPrinter{w: ios.Out}
	}
	return &tablePrinter{w: ios.Out, tty: ios.OutTTY, bold: ios.Color, pageSize: pageSize}
}

// cell is a value as one table or CSV cell.
func cell(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		if t {
			return "true"
		}
		return "false"
	case []string:
		return strings.Join(t, ",")
	case []json.Number:
		s := make([]string, len(t))
		for i, n := range t {
			s[i] = n.String()
		}
		return strings.Join(s, ",")
	case []byte:
		return base64.StdEncoding.EncodeToString(t)
	}
	b, err := plainjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonPrinter writes {"items": [...], "next": "..."}, streaming the items.
type jsonPrinter struct {
	w     io.Writer
	count int
}

func (p *jsonPrinter) object(rec orderedObject) error {
	b, err := marshalIndent(rec, "")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.w, "%s\n", b)
	return err
}

func (p *jsonPrinter) result(_ string, rec orderedObject) error { return p.object(rec) }
func (p *jsonPrinter) carriesNext() bool                        { return true }

func (p *jsonPrinter) beginList(_ []string, entity orderedObject) error {
	p.count = 0
	if _, err := io.WriteString(p.w, "{\n"); err != nil {
		return err
	}
	if entity != nil {
		b, err := marshalIndent(entityOrNull(entity), "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(p.w, "  \"entity\": %s,\n", b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(p.w, "  \"items\": [")
	return err
}

func (p *jsonPrinter) row(rec orderedObject) error {
	b, err := marshalIndent(rec, "    ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if p.count == 0 {
		sep = "\n    "
	}
	p.count++
	_, err = fmt.Fprintf(p.w, "%s%s", sep, b)
	return err
}

func (p *jsonPrinter) endList(next string) error {
	closing := "]"
	if p.count > 0 {
		closing = "\n  ]"
	}
	if next != "" {
		n, _ := plainjson.Marshal(next)
		closing += ",\n  \"next\": " + string(n)
	}
	_, err := io.WriteString(p.w, closing+"\n}\n")
	return err
}

func marshalIndent(v any, prefix string) (string, error) {
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		return "", err
	}
	return unescapeHTML(b), nil
}

// ndjsonPrinter writes one JSON value per line: the entity first (as
// {"entity": ...}) when asked for, then each item.
type ndjsonPrinter struct{ w io.Writer }

func (p *ndjsonPrinter) object(rec orderedObject) error           { return p.line(rec) }
func (p *ndjsonPrinter) result(_ string, rec orderedObject) error { return p.line(rec) }
func (p *ndjsonPrinter) carriesNext() bool                        { return false }

func (p *ndjsonPrinter) beginList(_ []string, entity orderedObject) error {
	if entity != nil {
		return p.line(orderedObject{{"entity", entityOrNull(entity)}})
	}
	return nil
}

// entityOrNull is the value a list prints as its entity: null when the
// list's key has no item (an item always has a key and a type), so a
// missing item reads apart from one.
func entityOrNull(entity orderedObject) any {
	if len(entity) == 0 {
		return nil
	}
	return entity
}

func (p *ndjsonPrinter) row(rec orderedObject) error { return p.line(rec) }
func (p *ndjsonPrinter) endList(string) error        { return nil }

func (p *ndjsonPrinter) line(v any) error {
	b, err := plainjson.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.w, "%s\n", b)
	return err
}

// csvPrinter writes a header line and one line per item, flushed per item.
type csvPrinter struct {
	w    *csv.Writer
	cols []string
}

func (p *csvPrinter) object(rec orderedObject) error {
	head := make([]string, len(rec))
	vals := make([]string, len(rec))
	for i, f := range rec {
		head[i], vals[i] = f.Name, cell(f.Value)
	}
	p.w.Write(head)
	p.w.Write(vals)
	p.w.Flush()
	return p.w.Error()
}

func (p *csvPrinter) result(_ string, rec orderedObject) error { return p.object(rec) }
func (p *csvPrinter) carriesNext() bool                        { return false }

func (p *csvPrinter) beginList(cols []string, entity orderedObject) error {
	if entity != nil {
		return &usageError{err: fmt.Errorf("--with-entity cannot be combined with -o csv (one header per file); use -o json, ndjson or yaml")}
	}
	p.cols = cols
	p.w.Write(cols)
	p.w.Flush()
	return p.w.Error()
}

func (p *csvPrinter) row(rec orderedObject) error {
	vals := make([]string, len(p.cols))
	for i, c := range p.cols {
		v, _ := rec.get(c)
		vals[i] = cell(v)
	}
	p.w.Write(vals)
	p.w.Flush()
	return p.w.Error()
}

func (p *csvPrinter) endList(string) error { return nil }

func newCSV(w io.Writer) *csv.Writer { return csv.NewWriter(w) }
