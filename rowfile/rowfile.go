// Package rowfile reads and writes the files `adjl import` and `adjl export`
// exchange: CSV with a header line (RFC 4180 quoting) or NDJSON (one JSON
// object per line), one row per edge of a relation or per item of an entity.
// Keys are checked exactly as the relation verbs check them and values are
// typed by the schema, so a file that reads without error can be written
// without a request being refused for its content. It does no I/O beyond the
// reader and writer it is given, and knows nothing of DynamoDB.
package rowfile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adjl/adjl/schema"
)

// Format is a file format.
type Format string

// Formats.
const (
	CSV    Format = "csv"
	NDJSON Format = "ndjson"
)

// FormatOf picks the format from a file name's extension (.csv, .ndjson,
// .jsonl, .json); ok is false when the extension says nothing.
func FormatOf(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return CSV, true
	case ".ndjson", ".jsonl", ".json":
		return NDJSON, true
	}
	return "", false
}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch Format(strings.ToLower(s)) {
	case CSV:
		return CSV, nil
	case NDJSON, "jsonl":
		return NDJSON, nil
	}
	return "", fmt.Errorf("unknown format %q: want csv or ndjson", s)
}

// Target is what the rows hold: the edges of a relation or the items of an
// entity. Exactly one of the fields is set.
type Target struct {
	Relation *schema.Relation
	Entity   *schema.Entity
	// Unlink reads rows that name edges to remove: an ordered relation's
	// sort value is then not required.
	Unlink bool
}

// Name is the relation's or entity's name.
func (t Target) Name() string {
	if t.Relation != nil {
		return t.Relation.Name
	}
	return t.Entity.Name
}

// Attributes are the declared attributes a row may carry.
func (t Target) Attributes() []schema.Attribute {
	if t.Relation != nil {
		return t.Relation.Attributes
	}
	return t.Entity.Attributes
}

// KeyColumns are the columns naming the item: from and to for an edge, id
// for an entity item.
func (t Target) KeyColumns() []string {
	if t.Relation != nil {
		return []string{"from", "to"}
	}
	return []string{"id"}
}

// Row is one valid row: full (prefixed) keys and typed attribute values, of
// the types schema.ParseSets gives (string, schema.Number, bool, []string).
// An attribute missing from Attrs is absent from the item.
type Row struct {
	Line     int    // first line of the row in the file (1-based)
	From, To string // edge rows
	ID       string // entity rows: the full key, e.g. STU#a91
	// Attrs are the row's values in the order the target declares its
	// attributes, each name once. A slice, not a map: an import reads every
	// row twice, and a map a row was the largest share of its allocations.
	Attrs []Attr
}

// Attr is one attribute value of a Row.
type Attr struct {
	Name  string
	Value any
}

// Attr returns the row's value of the named attribute.
func (r Row) Attr(name string) (any, bool) {
	for _, a := range r.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return nil, false
}

// AttrMap is Attrs as a map from name to value.
func (r Row) AttrMap() map[string]any {
	m := make(map[string]any, len(r.Attrs))
	for _, a := range r.Attrs {
		m[a.Name] = a.Value
	}
	return m
}

// LineError is a row that cannot be imported, or a header that cannot be
// read: FILE:LINE: message.
type LineError struct {
	File string
	Line int
	Msg  string
	// Raw is the row's text as it is in the file, without its line end (a
	// CSV record may span lines), for a rejects file. Empty for header errors.
	Raw string
	// RawOffset and RawSize place the row's text in the input (bytes from
	// its start, without the line end) when it is too long to hold in Raw:
	// RawSize > 0 says so, and Raw is then empty.
	RawOffset, RawSize int64
	// Fatal: reading cannot go on (a bad header, an unreadable file).
	Fatal bool
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// maxItemBytes is DynamoDB's item size limit.
const maxItemBytes = 400 * 1024

// cell is one value of a row: text (every CSV cell, a JSON string) or
// another decoded JSON value (a number, true/false, an array, an object,
// or nil for null). Text is not boxed in an interface: that allocated for
// every cell of every row, read twice by an import.
type cell struct {
	text      string
	isText    bool
	jsonValue any // when !isText; nil is JSON null
}

func textCell(s string) cell { return cell{text: s, isText: true} }

// row builds a Row from the cells of a row, checking keys and values.
// cellAt returns the cell of known column i (see exampleHeader: the key
// columns, then the declared attributes); ok is false when the file has no
// such column. jsonCells: the cells are NDJSON's.
func (t Target) row(line int, jsonCells bool, cellAt func(i int) (c cell, ok bool)) (Row, string) {
	r := Row{Line: line}
	size := 0
	key := func(i int, col string, norm func(string) (string, error)) (string, string) {
		c, ok := cellAt(i)
		switch {
		case !ok:
			return "", fmt.Sprintf("%s is missing", col)
		case !c.isText && c.jsonValue == nil:
			return "", fmt.Sprintf("%s is null; give the key as a string", col)
		case !c.isText:
			return "", fmt.Sprintf("%s must be a string key, not %s", col, jsonKind(c.jsonValue))
		case c.text == "":
			return "", fmt.Sprintf("%s is empty", col)
		}
		k, err := norm(c.text)
		if err != nil {
			return "", fmt.Sprintf("%s: %v", col, err)
		}
		size += len(k)
		return k, ""
	}
	var msg string
	nkeys := 1
	if rel := t.Relation; rel != nil {
		nkeys = 2
		if r.From, msg = key(0, "from", rel.FromKey); msg != "" {
			return r, msg
		}
		if r.To, msg = key(1, "to", rel.ToKey); msg != "" {
			return r, msg
		}
		if rel.Edge == "" && r.From == r.To {
			return r, fmt.Sprintf("relation %s cannot link %s to itself: the edge would be the entity item", rel.Name, r.From)
		}
	} else if r.ID, msg = key(0, "id", t.Entity.Key); msg != "" {
		return r, msg
	}
	attrs := t.Attributes()
	for i, a := range attrs {
		c, ok := cellAt(nkeys + i)
		if !ok || !c.isText && c.jsonValue == nil {
			continue
		}
		if c.isText && c.text == "" && jsonCells && a.Kind == schema.KindString {
			// NDJSON tells "" from no value (null, or no field): an empty
			// string is a value DynamoDB stores, as --set NAME= writes.
			r.Attrs = append(r.Attrs, Attr{a.Name, ""})
			size += len(a.Name)
			continue
		}
		typed, absent, err := typedValue(a.Kind, c)
		if err != nil {
			return r, fmt.Sprintf("%s is %s: %v", a.Name, a.Kind.Noun(), err)
		}
		if absent {
			continue
		}
		if r.Attrs == nil {
			r.Attrs = make([]Attr, 0, len(attrs)-i)
		}
		r.Attrs = append(r.Attrs, Attr{a.Name, typed})
		size += len(a.Name) + valueSize(typed)
	}
	if msg := t.missingSortValue(r); msg != "" {
		return r, msg
	}
	if size > maxItemBytes-200 { // 200: adjl's own attributes
		return r, fmt.Sprintf("the item would be about %d bytes, over DynamoDB's 400 KB item limit", size+200)
	}
	return r, ""
}

// typedValue converts a cell to the attribute's type. Empty text (an empty
// CSV cell, or a JSON "" for an attribute that is not a string: row keeps
// that one) is an absent attribute; row skips JSON null before calling it.
// JSON values may be of the attribute's own JSON type (number, true/false,
// an array of strings) or the text a CSV cell would hold.
func typedValue(kind schema.AttrKind, c cell) (any, bool, error) {
	if c.isText {
		if c.text == "" {
			return nil, true, nil
		}
		out, err := schema.ParseValue(kind, c.text)
		return out, false, err
	}
	switch x := c.jsonValue.(type) {
	case jsonNumber:
		if kind != schema.KindNumber {
			return nil, false, fmt.Errorf("got the number %s; write it as a string", x)
		}
		out, err := schema.ParseValue(kind, string(x))
		return out, false, err
	case bool:
		if kind != schema.KindBool {
			return nil, false, fmt.Errorf("got %t; give a %s", x, kind)
		}
		return x, false, nil
	case []any:
		if kind != schema.KindStrings {
			return nil, false, fmt.Errorf("got an array; only strings attributes take one")
		}
		var out []string
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false, fmt.Errorf("element %d of the array is %s, not a string", i+1, jsonKind(e))
			}
			// An element is kept as given, "" too: DynamoDB sets may
			// hold one, and export -o ndjson writes it.
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, false, fmt.Errorf("the array has no elements; DynamoDB string sets cannot be empty")
		}
		return out, false, nil
	}
	return nil, false, fmt.Errorf("got %s", jsonKind(c.jsonValue))
}

func valueSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case schema.Number:
		return len(x)/2 + 1
	case []string:
		n := 0
		for _, s := range x {
			n += len(s)
		}
		return n
	}
	return 1
}

// missingSortValue says why an edge row of an ordered relation without a
// default cannot be written without its sort value, or returns "".
func (t Target) missingSortValue(r Row) string {
	rel := t.Relation
	if rel == nil || rel.Sort == nil || rel.Sort.DefaultNow || t.Unlink {
		return ""
	}
	for _, a := range r.Attrs {
		if a.Name == rel.Sort.By {
			return ""
		}
	}
	return fmt.Sprintf("%s is missing: relation %s is ordered by it; give every row a value, or declare sort.default: now in the schema", rel.Sort.By, rel.Name)
}
