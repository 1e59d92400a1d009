package rowfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/adjl/adjl/internal/plainjson"
	"github.com/adjl/adjl/schema"
)

// Writer writes rows in the format Reader reads, so that reading what was
// written gives the same rows: every declared attribute is a column (CSV)
// or a field (NDJSON), numbers keep their digits, sets are sorted.
type Writer struct {
	t      Target
	format Format
	w      *bufio.Writer
	csv    *csv.Writer
	cols   []string
	rec    []string
}

// NewWriter starts a file of format on w; a CSV file gets its header now
// (buffered: nothing reaches w before Flush or 64 KB of rows).
func NewWriter(w io.Writer, format Format, t Target) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	out := &Writer{t: t, format: format, w: bw, cols: exampleHeader(t)}
	switch format {
	case CSV:
		out.csv = csv.NewWriter(bw)
		out.rec = make([]string, len(out.cols))
		if err := out.csv.Write(out.cols); err != nil {
			return nil, err
		}
	case NDJSON:
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	return out, nil
}

// CellError is a value the CSV writer refuses because reading the file back
// would not give that value; NDJSON carries it.
type CellError struct {
	Row string // "STU#a91" or "STU#a91 -> CRS#math204"
	Msg string
}

func (e *CellError) Error() string {
	return fmt.Sprintf("%s: %s; export with -o ndjson, which keeps it", e.Row, e.Msg)
}

// Write writes one row. A value CSV cannot carry so that it reads back the
// same (an empty string, a CR LF line break, a set element holding a comma
// or edge spaces) is a *CellError, and nothing of the row is written.
func (w *Writer) Write(r Row) error {
	if w.format == NDJSON {
		return w.writeJSON(r)
	}
	keys := []string{r.ID}
	if w.t.Relation != nil {
		keys = []string{r.From, r.To}
	}
	copy(w.rec, keys)
	for i, a := range w.t.Attributes() {
		v, _ := r.Attr(a.Name)
		cell, msg := csvCell(a, v)
		if msg != "" {
			return &CellError{Row: rowName(r, w.t), Msg: msg}
		}
		w.rec[len(keys)+i] = cell
	}
	return w.csv.Write(w.rec)
}

func rowName(r Row, t Target) string {
	if t.Relation != nil {
		return r.From + " -> " + r.To
	}
	return r.ID
}

// csvCell is the cell of v, or msg says why no cell reads back as v. CSV
// readers (Go's among them) read a CR LF inside a quoted field as LF, so a
// value holding one would come back changed; a lone CR or LF, quotes and
// edge spaces of a string come back as written.
func csvCell(a schema.Attribute, v any) (cell, msg string) {
	switch x := v.(type) {
	case nil:
		return "", ""
	case string:
		switch {
		case x == "":
			return "", fmt.Sprintf("attribute %s is an empty string, which a CSV cell cannot tell from no value", a.Name)
		case strings.Contains(x, "\r\n"):
			return "", fmt.Sprintf("attribute %s holds a CR LF line break, which CSV reads back as LF", a.Name)
		}
		return x, ""
	case schema.Number:
		return string(x), ""
	case bool:
		if x {
			return "true", ""
		}
		return "false", ""
	case []string:
		for _, e := range x {
			if strings.Contains(e, ",") || strings.Contains(e, "\r\n") || strings.TrimSpace(e) != e || e == "" {
				return "", fmt.Sprintf("set %s has the element %q, which a comma-separated cell cannot carry", a.Name, e)
			}
		}
		s := slices.Clone(x)
		slices.Sort(s)
		return strings.Join(s, ","), ""
	}
	return "", fmt.Sprintf("attribute %s: unsupported value %T", a.Name, v)
}

func (w *Writer) writeJSON(r Row) error {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(name string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		enc, err := plainjson.Marshal(name)
		if err != nil {
			return err
		}
		b.Write(enc)
		b.WriteByte(':')
		if n, ok := v.(schema.Number); ok {
			v = json.Number(n.Literal())
		}
		if s, ok := v.([]string); ok {
			s = slices.Clone(s)
			slices.Sort(s)
			v = s
		}
		enc, err = plainjson.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(enc)
		return nil
	}
	if w.t.Relation != nil {
		field("from", r.From)
		field("to", r.To)
	} else {
		field("id", r.ID)
	}
	for _, a := range w.t.Attributes() {
		if v, ok := r.Attr(a.Name); ok && v != nil {
			if err := field(a.Name, v); err != nil {
				return fmt.Errorf("%s: attribute %s: %w", rowName(r, w.t), a.Name, err)
			}
		}
	}
	b.WriteString("}\n")
	_, err := w.w.Write(b.Bytes())
	return err
}

// Flush writes what is buffered.
func (w *Writer) Flush() error {
	if w.csv != nil {
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	}
	return w.w.Flush()
}
