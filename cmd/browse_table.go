package cmd

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/adjl/adjl/internal/english"
	"github.com/charmbracelet/x/ansi"
)

// The lines of a pane around its rows: border (2), title, what the pane
// shows, the table's header, and the footer.
const paneChrome = 6

// paneView draws one pane in a box of the given size: its title, what it
// shows (page, rows, order, filters), the table of its rows scrolled to
// the selection, and where the page is.
func (m *browseModel) paneView(i, width, height int) string {
	p := m.view.panes[i]
	inner := max(width-4, 10)
	var lines []string
	add := func(s string) { lines = append(lines, ansi.Truncate(s, inner, "…")) }
	add(bTitle.Render(m.paneTitle(i)))
	add(bFaint.Render(m.paneInfo(p)))
	visible := max(height-paneChrome, 1)
	if f := p.filterTitle(); f != "" {
		add(bFaint.Render(f))
		visible = max(visible-1, 1)
	}
	if p.relation() == nil && len(p.roles) == 0 {
		what := "from"
		if i == paneReverse {
			what = "to"
		}
		add(bFaint.Render(fmt.Sprintf("no relation has %s on its %s side", m.keyPrefix(), what)))
	} else {
		lines = append(lines, m.paneTable(p, i == m.focus && !m.view.onItem, inner, visible))
	}
	if p.relation() != nil {
		add(bFaint.Render(paneFooter(p)))
	}
	box := bBorder.Width(width).Height(height)
	if i == m.focus {
		box = box.BorderForeground(lipgloss.Cyan)
	}
	return box.Render(strings.Join(lines, "\n"))
}

// paneTitle names what a pane lists: its direction and where it is read
// from, the relation and its verb.
func (m *browseModel) paneTitle(i int) string {
	p := m.view.panes[i]
	name := "forward · base table"
	if i == paneReverse {
		name = "reverse · index " + m.sch.Table.Index.Name
	}
	rel := p.relation()
	switch {
	case rel != nil:
		verb := rel.Verbs.Forward
		if i == paneReverse {
			verb = rel.Verbs.Reverse
		}
		name += " · " + rel.Name
		if verb != "" {
			name += " (" + verb + ")"
		}
		if len(p.rels) > 1 {
			name += fmt.Sprintf(" [%d/%d r]", p.rel+1, len(p.rels))
		}
	case len(p.roles) > 0:
		name += " · in no relation itself; its roles:"
	}
	return name
}

// paneInfo says what the pane holds: which page or how many of all rows,
// the rows loaded, the order and the filters.
func (m *browseModel) paneInfo(p *browsePane) string {
	rel := p.relation()
	if rel == nil {
		return ""
	}
	var parts []string
	switch {
	case p.cut == "loading":
		parts = append(parts, fmt.Sprintf("loading every row: %d so far · esc stops", len(p.rows)))
	case p.all:
		parts = append(parts, fmt.Sprintf("all %d rows", len(p.rows)))
	case p.cut != "":
		parts = append(parts, fmt.Sprintf("the first %d rows (%s) · R goes back to pages", len(p.rows), p.cut))
	default:
		parts = append(parts, p.pageLabel(), fmt.Sprintf("%d %s", len(p.rows), english.Plural(len(p.rows), "row", "rows")))
	}
	parts = append(parts, p.sortTitle(listColumns(rel, p.dir, m.sch.Table.Index)[0]))
	return strings.Join(parts, " · ")
}

// pageLabel says which page the pane shows: page 3, or, after a find,
// counted from the key found (from STU#s0042, page 2 from STU#s0042).
func (p *browsePane) pageLabel() string {
	for i := len(p.starts) - 1; i >= 0; i-- {
		if from := p.starts[i].from; from != "" {
			if n := len(p.starts) - i; n > 1 {
				return fmt.Sprintf("page %d from %s", n, from)
			}
			return "from " + from
		}
	}
	return fmt.Sprintf("page %d", p.page())
}

// paneFooter says how to move from the page shown (and, sorted by an
// attribute, how to sort every row).
func paneFooter(p *browsePane) string {
	text := pageFooter(p)
	if p.sort.col != "" && p.paged() && p.next != "" {
		text += " · L loads every row to sort them all"
	}
	return text
}

func pageFooter(p *browsePane) string {
	switch {
	case len(p.rows) == 0 && p.paged():
		return "(no edges)"
	case !p.paged():
		return ""
	case p.next != "" && p.page() > 1:
		return "n next · p previous"
	case p.next != "":
		return "n next"
	case p.page() > 1:
		return "(last) · p previous"
	}
	return "(last)"
}

// paneTable is the pane's rows as a table of aligned columns, at most
// width wide and visible rows high (header apart), scrolled so the
// selected row shows: empty cells keep their column, long values end in …
func (m *browseModel) paneTable(p *browsePane, focused bool, width, visible int) string {
	cols := p.columns(m.sch.Table.Index)
	header := []string{""}
	for i, c := range cols {
		if i == 0 && p.sort.col == "" || c == p.sort.col {
			c += map[bool]string{false: " ↑", true: " ↓"}[p.sort.desc]
		}
		header = append(header, c)
	}
	first := max(0, p.sel-visible+1)
	var rows [][]string
	for r := first; r < min(p.count(), first+visible); r++ {
		marker := "  "
		if r == p.sel {
			marker = "> "
		}
		rows = append(rows, append([]string{marker}, p.cells(r, cols)...))
	}
	selected := p.sel - first
	t := table.New().Border(lipgloss.HiddenBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).BorderColumn(false).BorderHeader(false).
		Headers(header...).Rows(rows...).Wrap(false).Width(width).FitContent().
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle()
			if col > 0 && col < len(header)-1 {
				s = s.PaddingRight(2)
			}
			switch {
			case row == table.HeaderRow:
				s = s.Bold(true)
			case row == selected && focused:
				s = s.Reverse(true)
			}
			return s
		})
	return t.Render()
}

// cells are row r's values in the columns cols ("" where it has none).
func (p *browsePane) cells(r int, cols []string) []string {
	if r >= len(p.rows) {
		return []string{p.roles[r-len(p.rows)]}
	}
	out := make([]string, len(cols))
	rec := p.rows[r].rec
	for i, c := range cols {
		if i == 0 {
			out[i] = escapeControls(p.rows[r].key)
			continue
		}
		if v, ok := rec.get(c); ok {
			out[i] = escapeControls(cell(v))
		}
	}
	return out
}
