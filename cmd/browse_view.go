package cmd

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// promptView is the key prompt with a block cursor.
func (m *browseModel) promptView() string {
	return "key: " + escapeControls(m.input) + bSelected.Render(" ")
}

// Styles of the view; colour is dropped by bubbletea where the terminal (or
// NO_COLOR, --no-color) does not take it.
var (
	bTitle    = lipgloss.NewStyle().Bold(true)
	bFaint    = lipgloss.NewStyle().Faint(true)
	bSelected = lipgloss.NewStyle().Reverse(true)
	bError    = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	bBorder   = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
)

func (m *browseModel) View() tea.View {
	var b strings.Builder
	w := max(m.width, 40)
	line := func(s string) { b.WriteString(ansi.Truncate(s, w, "…") + "\n") }
	line(bTitle.Render("adjl browse") + bFaint.Render(" · table "+m.sch.Table.Name+" · "+m.where))
	switch {
	case m.view == nil && m.prompting:
		line("Open a key (" + strings.Join(m.sch.KeyPrefixes(), " ") + "); esc quits.")
		line(m.promptView())
	case m.view == nil:
		line("loading " + m.startKey + " …")
	default:
		m.viewKey(&b, w, line)
		if m.prompting {
			line(m.promptView() + bFaint.Render("  (enter opens, esc cancels)"))
		}
	}
	if m.status != "" {
		line(bError.Render("! ") + m.status)
	}
	b.WriteString(m.help.View(m.keys))
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "adjl browse"
	return v
}

// viewKey draws the current key: title, item, panes, selection, requests.
func (m *browseModel) viewKey(b *strings.Builder, w int, line func(string)) {
	v := m.view
	kind := "no entity"
	if v.entity != nil {
		kind = v.entity.Name
	}
	title := bTitle.Render(v.key) + " (" + kind + ")"
	if n := len(m.history); n > 0 {
		title += bFaint.Render(fmt.Sprintf(" · back: %s (%d)", m.history[n-1].key, n))
	}
	if m.loading {
		title += bFaint.Render(" · loading…")
	}
	line(title)
	if v.item == nil {
		line(bFaint.Render("no item stored under " + v.key + " (edges can exist without it)"))
	} else {
		var parts []string
		for _, f := range v.item {
			parts = append(parts, f.Name+"="+escapeControls(cell(f.Value)))
		}
		line("item: " + strings.Join(parts, "  "))
	}
	half := w / 2
	left := m.paneView(paneForward, half)
	right := m.paneView(paneReverse, w-half)
	b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, left, right) + "\n")
	p := v.panes[m.focus]
	if p.sel < len(p.rows) {
		var parts []string
		for _, f := range p.rows[p.sel][1:] {
			parts = append(parts, f.Name+": "+escapeControls(cell(f.Value)))
		}
		if len(parts) == 0 {
			parts = []string{"no attributes"}
		}
		line("edge " + escapeControls(p.selectedKey()) + " · " + strings.Join(parts, " · "))
	} else {
		line("")
	}
	if len(v.requests) == 0 {
		line(bFaint.Render("requests: none"))
	}
	for _, r := range v.requests {
		// Wrapped, not cut: latency and capacity come last.
		for _, l := range strings.Split(ansi.Wrap("request: "+r, w, " "), "\n") {
			line(bFaint.Render(l))
		}
	}
}

// paneView draws one pane in a box of the given width: title, a page of
// rows (one selected when the pane has the focus), and where the page is.
func (m *browseModel) paneView(i, width int) string {
	p := m.view.panes[i]
	inner := max(width-4, 10)
	var lines []string
	add := func(s string) { lines = append(lines, ansi.Truncate(s, inner, "…")) }
	rel := p.relation()
	name := "forward · base table"
	if i == paneReverse {
		name = "reverse · index " + m.sch.Table.Index.Name
	}
	switch {
	case rel != nil:
		verb := rel.Verbs.Forward
		if i == paneReverse {
			verb = rel.Verbs.Reverse
		}
		title := name + " · " + rel.Name
		if verb != "" {
			title += " (" + verb + ")"
		}
		if len(p.rels) > 1 {
			title += fmt.Sprintf(" [%d/%d r]", p.rel+1, len(p.rels))
		}
		add(bTitle.Render(title))
	case len(p.roles) > 0:
		add(bTitle.Render(name) + " · in no relation itself; its roles:")
	default:
		what := "from"
		if i == paneReverse {
			what = "to"
		}
		add(bTitle.Render(name))
		add(bFaint.Render(fmt.Sprintf("no relation has %s on its %s side", m.keyPrefix(), what)))
	}
	for r := 0; r < p.count(); r++ {
		var text string
		if r < len(p.rows) {
			var parts []string
			for _, f := range p.rows[r] {
				parts = append(parts, escapeControls(cell(f.Value)))
			}
			text = strings.Join(parts, "  ")
		} else {
			text = p.roles[r-len(p.rows)]
		}
		marker := "  "
		if r == p.sel && i == m.focus {
			marker = "> "
			text = bSelected.Render(text)
		}
		add(marker + text)
	}
	if rel != nil {
		if len(p.rows) == 0 {
			add(bFaint.Render("(no edges)"))
		}
		pos := fmt.Sprintf("page %d", len(p.cursors))
		switch {
		case p.next != "" && len(p.cursors) > 1:
			pos += " · n next · p previous"
		case p.next != "":
			pos += " · n next"
		case len(p.cursors) > 1:
			pos += " (last) · p previous"
		default:
			pos += " (last)"
		}
		add(bFaint.Render(pos))
	}
	for len(lines) < m.limit+2 {
		lines = append(lines, "")
	}
	box := bBorder.Width(width)
	if i == m.focus {
		box = box.BorderForeground(lipgloss.Cyan)
	}
	return box.Render(strings.Join(lines, "\n"))
}
