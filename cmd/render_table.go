package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/charmbracelet/x/ansi"
)

// tablePrinter prints an aligned table with a header on a terminal and
// tab-separated rows without a header when piped (like gh), so `cut -f1`
// works. On a terminal it buffers up to pageSize rows per table.
type tablePrinter struct {
	w        io.Writer
	tty      bool
	bold     bool // headers in bold (a terminal that takes colour)
	pageSize int
	cols     []string
	rows     [][]string
	printed  bool // a chunk with the header was printed
}

func (p *tablePrinter) object(rec orderedObject) error {
	rows := make([][]string, len(rec))
	for i, f := range rec {
		rows[i] = []string{f.Name, cell(f.Value)}
	}
	if !p.tty {
		return writeTSV(p.w, rows)
	}
	return renderTable(p.w, nil, rows, false)
}

func (p *tablePrinter) carriesNext() bool { return false }

func (p *tablePrinter) result(sentence string, _ orderedObject) error {
	_, err := fmt.Fprintln(p.w, escapeControls(sentence))
	return err
}

func (p *tablePrinter) beginList(cols []string, entity orderedObject) error {
	p.cols, p.rows, p.printed = cols, nil, false
	if len(entity) > 0 { // a missing item: the list says so on stderr
		if err := p.object(entity); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(p.w); err != nil {
			return err
		}
	}
	return nil
}

func (p *tablePrinter) row(rec orderedObject) error {
	vals := make([]string, len(p.cols))
	for i, c := range p.cols {
		v, _ := rec.get(c)
		vals[i] = cell(v)
	}
	if !p.tty {
		return writeTSV(p.w, [][]string{vals})
	}
	p.rows = append(p.rows, vals)
	if p.pageSize > 0 && len(p.rows) >= p.pageSize {
		return p.flush()
	}
	return nil
}

func (p *tablePrinter) endList(string) error {
	if !p.tty {
		return nil
	}
	if len(p.rows) == 0 && !p.printed {
		_, err := fmt.Fprintln(p.w, "(no items)")
		return err
	}
	return p.flush()
}

func (p *tablePrinter) flush() error {
	if len(p.rows) == 0 {
		return nil
	}
	var head []string
	if !p.printed {
		head = p.cols
	}
	p.printed = true
	err := renderTable(p.w, head, p.rows, p.bold)
	p.rows = nil
	return err
}

// renderTable draws a borderless, left-aligned table (kubectl style): each
// column as wide as its widest cell in terminal cells (wide characters count
// two), three spaces between columns, no trailing blanks, and an upper-case
// header when head is not nil, in bold when bold is set.
func renderTable(w io.Writer, head []string, rows [][]string, bold bool) error {
	all := make([][]string, 0, len(rows)+1)
	if head != nil {
		up := make([]string, len(head))
		for i, h := range head {
			up[i] = strings.ToUpper(h)
		}
		all = append(all, up)
	}
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = escapeControls(v)
		}
		all = append(all, vals)
	}
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for n, r := range all {
		b.Reset()
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+columnGap))
			}
		}
		line := strings.TrimRight(b.String(), " ")
		if n == 0 && head != nil && bold {
			line = ansiBold + line + ansiReset
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// columnGap is the blanks between two columns of a table.
const columnGap = 3

// writeTSV writes rows as tab-separated lines; control characters inside
// a value are escaped (escapeControls), so a row stays one line.
func writeTSV(w io.Writer, rows [][]string) error {
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = escapeControls(v)
		}
		if _, err := fmt.Fprintln(w, strings.Join(vals, "\t")); err != nil {
			return err
		}
	}
	return nil
}

// escapeControls writes the characters a terminal would act on rather than
// show (C0 and C1 controls, line and paragraph separators, bidirectional
// formatting, zero-width and invisible formatting characters) as Go-style
// escapes (\t, \n, \x1b, \u202e), as gh and kubectl do: a stored value
// cannot move the cursor, recolour the terminal or reorder what follows
// it. A backslash stays as it is: only these characters change. JSON, NDJSON, YAML and CSV output stay exact.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsEscape: the characters keys may not hold (schema.Invisible).
func needsEscape(r rune) bool { return schema.Invisible(r) != "" }

// table prints a titled table: used by describe and schema show.
func printTable(ios *IOStreams, head []string, rows [][]string) error {
	if !ios.OutTTY {
		return writeTSV(ios.Out, rows)
	}
	return renderTable(ios.Out, head, rows, ios.Color)
}
