package rowfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/schema"
)

// Reader reads rows one at a time, in file order, holding one row in memory.
type Reader interface {
	// Next returns the next valid row, a *LineError for a row that cannot
	// be imported (reading may go on unless it is Fatal), or io.EOF.
	Next() (Row, error)
	// Header is the CSV header line as read ("" for NDJSON), to head a
	// rejects file that can be fixed and imported again.
	Header() string
}

// NewReader returns a reader of format over r; name is the file name that
// errors quote. A CSV reader reads the header at once and reports a bad
// one as a Fatal *LineError.
func NewReader(r io.Reader, name string, format Format, t Target) (Reader, error) {
	switch format {
	case CSV:
		return newCSVReader(r, name, t)
	case NDJSON:
		return &ndjsonReader{r: bufio.NewReaderSize(r, 64<<10), name: name, t: t}, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// csvReader reads RFC 4180 CSV: a header naming the columns, then one record
// per row. Quoted fields may hold commas, quotes ("") and line breaks.
type csvReader struct {
	r      *csv.Reader
	src    *recorder
	off    int64 // input offset where the next record starts
	name   string
	t      Target
	cols   []string
	at     []int // the record index of each known column (-1: not in the file)
	rec    []string
	cellAt func(i int) (cell, bool)
}

func newCSVReader(r io.Reader, name string, t Target) (*csvReader, error) {
	src := &recorder{r: skipBOM(r)}
	cr := csv.NewReader(bufio.NewReaderSize(src, 64<<10))
	cr.FieldsPerRecord = -1 // checked here, with a better message
	cr.ReuseRecord = true
	head, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, &LineError{File: name, Line: 1, Msg: fmt.Sprintf("empty file: want a header line such as %s", strings.Join(exampleHeader(t), ",")), Fatal: true}
	case err != nil:
		return nil, csvError(name, err, true)
	}
	head = slices.Clone(head)
	if len(head) > 0 {
		head[0] = strings.TrimPrefix(head[0], "\ufeff") // a mark inside the first field's quotes
	}
	for i := range head {
		head[i] = strings.TrimSpace(head[i])
	}
	if msg := checkHeader(t, head); msg != "" {
		return nil, &LineError{File: name, Line: 1, Msg: msg, Fatal: true}
	}
	c := &csvReader{r: cr, src: src, off: cr.InputOffset(), name: name, t: t, cols: head}
	src.forget(c.off)
	for _, k := range exampleHeader(t) {
		c.at = append(c.at, slices.Index(head, k))
	}
	c.cellAt = func(i int) (cell, bool) {
		if c.at[i] < 0 {
			return cell{}, false
		}
		return textCell(c.rec[c.at[i]]), true
	}
	return c, nil
}

// bom is the UTF-8 byte-order mark spreadsheet exports start a file with.
var bom = []byte("\ufeff")

// skipBOM is r without a byte-order mark at its start. It is dropped before
// encoding/csv reads the header: a mark before a quoted first field (as
// Excel and PowerShell write "id","name") would be a quote inside an
// unquoted field.
func skipBOM(r io.Reader) io.Reader {
	head := make([]byte, len(bom))
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if bytes.Equal(head, bom) {
		head = nil
	}
	switch {
	case err == nil:
		return io.MultiReader(bytes.NewReader(head), r)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return bytes.NewReader(head)
	}
	return io.MultiReader(bytes.NewReader(head), errReader{err})
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// exampleHeader is the header of a file holding every declared attribute.
func exampleHeader(t Target) []string {
	h := t.KeyColumns()
	for _, a := range t.Attributes() {
		h = append(h, a.Name)
	}
	return h
}

// checkHeader refuses unknown, missing and repeated columns.
func checkHeader(t Target, head []string) string {
	known := exampleHeader(t)
	seen := map[string]bool{}
	for _, c := range head {
		switch {
		case c == "":
			return "the header has an empty column name"
		case !slices.Contains(known, c):
			return fmt.Sprintf("unknown column %q; %s %s takes %s", c, kindWord(t), t.Name(), strings.Join(known, ","))
		case seen[c]:
			return fmt.Sprintf("column %q appears twice in the header", c)
		}
		seen[c] = true
	}
	for _, k := range t.KeyColumns() {
		if !seen[k] {
			return fmt.Sprintf("the header has no %q column; %s %s takes %s", k, kindWord(t), t.Name(), strings.Join(known, ","))
		}
	}
	return ""
}

func kindWord(t Target) string {
	if t.Relation != nil {
		return "relation"
	}
	return "entity"
}

func (c *csvReader) Next() (Row, error) {
	for {
		start := c.off
		rec, err := c.r.Read()
		c.off = c.r.InputOffset()
		if errors.Is(err, io.EOF) {
			return Row{}, io.EOF
		}
		row, blank, err := c.record(start, rec, err)
		c.src.forget(c.off)
		if !blank { // a line of blanks is skipped (in a loop: there may be millions)
			return row, err
		}
	}
}

// record turns what csv.Reader read from input offset start into a row or
// a line error; blank reports a line of blanks.
func (c *csvReader) record(start int64, rec []string, err error) (row Row, blank bool, _ error) {
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			return Row{}, false, &LineError{File: c.name, Line: c.line(), Msg: err.Error(), Fatal: true}
		}
		le := csvError(c.name, err, false)
		le.Raw = c.raw(start)
		// An odd number of quotes: one opened and never closed (a closed
		// quote with text after it is an ordinary bad record).
		if errors.Is(pe.Err, csv.ErrQuote) && pe.Line > pe.StartLine && c.src.eof && c.off == c.src.n && strings.Count(le.Raw, `"`)%2 == 1 {
			// Every line after the quote went into one field: the rows
			// there are neither imported nor rejects, so stop.
			n := pe.Line - pe.StartLine
			le.Fatal = true
			le.Msg = fmt.Sprintf(`a quoted field opened on this line is never closed: it takes in the rest of the file, lines %d to %d (%d %s after it); close the quote, and double a quote inside a field ("a ""b"" c")`,
				pe.StartLine, pe.Line, n, english.Plural(n, "line", "lines"))
		} else {
			le.Msg += spanNote(le.Line, le.Raw)
		}
		return Row{}, false, le
	}
	line, _ := c.r.FieldPos(0)
	if len(rec) != len(c.cols) {
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			return Row{}, true, nil
		}
		raw := c.raw(start)
		return Row{}, false, &LineError{File: c.name, Line: line, Raw: raw,
			Msg: fmt.Sprintf("%d fields, but the header has %d (%s); quote a value that holds a comma", len(rec), len(c.cols), strings.Join(c.cols, ",")) + spanNote(line, raw)}
	}
	c.rec = rec
	row, msg := c.t.row(line, false, c.cellAt)
	if msg != "" {
		raw := c.raw(start)
		return Row{}, false, &LineError{File: c.name, Line: line, Msg: msg + spanNote(line, raw), Raw: raw}
	}
	return row, false, nil
}

// raw is the text of the record that began at input offset start, as it is
// in the file, without the blank lines before it and its line end.
func (c *csvReader) raw(start int64) string {
	b := c.src.bytes(start, c.off)
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' && len(b) > 1 && b[1] == '\n') {
		b = b[1:]
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return string(b)
}

// spanNote tells that a bad record runs over several lines (a quoted field
// holds line breaks), as an unbalanced quote makes it do.
func spanNote(line int, raw string) string {
	if n := strings.Count(raw, "\n"); n > 0 {
		return fmt.Sprintf(" (the record runs from line %d to %d: a quoted field holds line breaks)", line, line+n)
	}
	return ""
}

func (c *csvReader) Header() string { return encodeCSV(c.cols) }

func (n *ndjsonReader) Header() string { return "" }

func (c *csvReader) line() int {
	l, _ := c.r.FieldPos(0)
	return l
}

// csvError turns encoding/csv's error into FILE:LINE: message.
func csvError(name string, err error, fatal bool) *LineError {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		switch {
		case errors.Is(pe.Err, csv.ErrBareQuote):
			msg = `a quote (") inside an unquoted field; quote the whole field and double the quote ("a ""b"" c")`
		case errors.Is(pe.Err, csv.ErrQuote):
			msg = `a quoted field is not closed, or text follows its closing quote`
		}
		return &LineError{File: name, Line: pe.StartLine, Msg: msg, Fatal: fatal}
	}
	return &LineError{File: name, Line: 1, Msg: err.Error(), Fatal: true}
}

func encodeCSV(rec []string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(rec)
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// maxLineBytes bounds an NDJSON line: DynamoDB items are at most 400 KB,
// and JSON escapes write a byte of a value in up to six (\u0001), so no
// line of an item that fits is longer.
const maxLineBytes = 4 << 20

// ndjsonReader reads one JSON object per line; blank lines are skipped.
type ndjsonReader struct {
	r    *bufio.Reader
	name string
	t    Target
	line int
	off  int64 // input offset of the next byte to read
	buf  []byte
}

// jsonNumber is a JSON number kept as its text, so no digit is lost.
type jsonNumber = json.Number

func (n *ndjsonReader) Next() (Row, error) {
	for {
		line, err := n.readLine()
		if err != nil {
			return Row{}, err
		}
		if n.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark, as CSV allows
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if i := schema.InvalidUTF8At(string(line)); i >= 0 {
			// encoding/json would read U+FFFD in its place.
			return Row{}, n.bad(line, fmt.Sprintf("byte 0x%02X at position %d is not UTF-8; re-encode the file as UTF-8 (for example with iconv)", line[i], i+1))
		}
		if i := loneSurrogateAt(line); i >= 0 {
			// encoding/json would read U+FFFD in its place.
			return Row{}, n.bad(line, fmt.Sprintf("the escape %s at position %d is half of a UTF-16 surrogate pair, not a character; write the character or both halves", line[i:i+6], i+1))
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return Row{}, n.bad(line, fmt.Sprintf("not a JSON object: %s", jsonMessage(err)))
		}
		if dec.More() {
			return Row{}, n.bad(line, "more than one JSON value on the line")
		}
		if k, dup := duplicateField(line); dup {
			// encoding/json keeps the last value: refuse rather than guess.
			return Row{}, n.bad(line, fmt.Sprintf("field %q appears twice; keep one", k))
		}
		known := exampleHeader(n.t)
		for k := range obj {
			if !slices.Contains(known, k) {
				return Row{}, n.bad(line, fmt.Sprintf("unknown field %q; %s %s takes %s", k, kindWord(n.t), n.t.Name(), strings.Join(known, ", ")))
			}
		}
		row, msg := n.t.row(n.line, true, func(i int) (cell, bool) {
			v, ok := obj[known[i]]
			if s, isStr := v.(string); isStr {
				return textCell(s), true
			}
			return cell{jsonValue: v}, ok
		})
		if msg != "" {
			return Row{}, n.bad(line, msg)
		}
		return row, nil
	}
}

func (n *ndjsonReader) bad(line []byte, msg string) *LineError {
	return &LineError{File: n.name, Line: n.line, Msg: msg, Raw: string(bytes.TrimRight(line, "\r\n"))}
}

// readLine returns the next line without its end, or io.EOF.
func (n *ndjsonReader) readLine() ([]byte, error) {
	n.buf = n.buf[:0]
	for {
		part, err := n.r.ReadSlice('\n')
		n.buf = append(n.buf, part...)
		n.off += int64(len(part))
		if len(n.buf) > maxLineBytes {
			n.line++
			// Skip the rest of the line, then report it with its place in
			// the input, for a rejects file to copy it from.
			start := n.off - int64(len(n.buf))
			tail := [2]byte{n.buf[len(n.buf)-2], n.buf[len(n.buf)-1]} // the line's last two bytes
			for errors.Is(err, bufio.ErrBufferFull) {
				part, err = n.r.ReadSlice('\n')
				n.off += int64(len(part))
				for _, c := range part[max(len(part)-2, 0):] {
					tail = [2]byte{tail[1], c}
				}
			}
			end := n.off
			if tail[1] == '\n' {
				end--
				if tail[0] == '\r' {
					end--
				}
			}
			return nil, &LineError{File: n.name, Line: n.line, Msg: fmt.Sprintf("line longer than %d bytes; DynamoDB items are at most 400 KB, which takes fewer even written with JSON escapes", maxLineBytes),
				RawOffset: start, RawSize: end - start}
		}
		switch {
		case err == nil:
			n.line++
			return bytes.TrimRight(n.buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(n.buf) == 0 {
				return nil, io.EOF
			}
			n.line++
			return n.buf, nil
		default:
			return nil, &LineError{File: n.name, Line: n.line + 1, Msg: err.Error(), Fatal: true}
		}
	}
}

// loneSurrogateAt is the byte offset of the first \uXXXX escape in line
// that is half of a UTF-16 surrogate pair without its other half, or -1.
func loneSurrogateAt(line []byte) int {
	escape := func(i int) (rune, bool) {
		if i+6 > len(line) || line[i] != '\\' || line[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(line[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		r, ok := escape(i)
		switch {
		case !ok:
			i++ // another escape: skip the character it escapes
		case r >= 0xD800 && r < 0xDC00:
			if low, ok := escape(i + 6); ok && low >= 0xDC00 && low < 0xE000 {
				i += 11
				continue
			}
			return i
		case r >= 0xDC00 && r < 0xE000:
			return i
		default:
			i += 5
		}
	}
	return -1
}

// duplicateField reports a field named twice in the JSON object on line,
// which has decoded without error.
func duplicateField(line []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			return "", false
		}
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

func jsonMessage(err error) string {
	if err == nil {
		return "null"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "got a JSON " + te.Value
	}
	return err.Error()
}

// jsonKind names a decoded JSON value's type for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true/false"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
