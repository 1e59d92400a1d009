package cmd

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Styles of the view; colour is dropped by bubbletea where the terminal (or
// NO_COLOR, --no-color) does not take it.
var (
	bTitle    = lipgloss.NewStyle().Bold(true)
	bFaint    = lipgloss.NewStyle().Faint(true)
	bSelected = lipgloss.NewStyle().Reverse(true)
	bError    = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	bNote     = lipgloss.NewStyle().Foreground(lipgloss.Green)
	bBorder   = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
)

// browseMinPane is the least height of the panes: their chrome and a few
// rows, whatever the request panel below needs.
const browseMinPane = paneChrome + 3

func (m *browseModel) View() tea.View {
	w, h := max(m.width, 40), m.height
	if h == 0 {
		h = 40
	}
	var top, bottom []string
	topLine := func(s string) { top = append(top, ansi.Truncate(s, w, "…")) }
	bottomLine := func(s string) { bottom = append(bottom, ansi.Truncate(s, w, "…")) }
	topLine(bTitle.Render("adjl browse") + bFaint.Render(" · table "+m.sch.Table.Name+" · "+m.where))
	var panes string
	switch {
	case m.view == nil && m.input != nil:
		topLine("Open a key (" + strings.Join(m.sch.KeyPrefixes(), " ") + "); esc quits.")
		m.inputView(bottomLine)
	case m.view == nil:
		topLine("loading " + m.startKey + " …")
	default:
		m.keyView(topLine)
		m.belowPanes(bottomLine)
	}
	m.messages(bottomLine)
	helpText := m.help.View(m.keys)
	helpLines := strings.Count(helpText, "\n") + 1
	if m.view != nil {
		free := h - len(top) - len(bottom) - helpLines
		panes = m.panesView(w, max(free, browseMinPane))
	}
	parts := append(top, panes)
	if panes == "" {
		parts = top
	}
	parts = append(append(parts, bottom...), helpText)
	v := tea.NewView(strings.Join(parts, "\n"))
	v.AltScreen = true
	v.WindowTitle = "adjl browse"
	return v
}

// keyView draws the key's title and its item row (the entity whole).
func (m *browseModel) keyView(line func(string)) {
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
	text := "no item stored under " + v.key + " (edges can exist without it)"
	if v.item != nil {
		var parts []string
		if rec, err := entityRecord(m.sch, v.item); err == nil {
			for _, f := range rec {
				if f.Name != "key" && f.Name != "type" { // both are in the title
					parts = append(parts, f.Name+"="+escapeControls(cell(f.Value)))
				}
			}
		}
		text = "item: " + strings.Join(parts, "  ")
	}
	if v.onItem {
		line(bSelected.Render("> " + text))
		return
	}
	line("  " + text)
}

// panesView draws the two panes side by side, height lines high.
func (m *browseModel) panesView(w, height int) string {
	half := w / 2
	left := m.paneView(paneForward, half, height)
	right := m.paneView(paneReverse, w-half, height)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// belowPanes draws the selection, the line or form being typed and the
// requests of the last action.
func (m *browseModel) belowPanes(line func(string)) {
	line(m.selectionText())
	switch {
	case m.form != nil:
		m.formView(line)
	case m.input != nil:
		m.inputView(line)
	}
	if len(m.view.requests) == 0 {
		line(bFaint.Render("requests: none"))
	}
	w := max(m.width, 40)
	var lines []string
	for _, r := range m.view.requests {
		// Wrapped, not cut: latency and capacity come last.
		lines = append(lines, strings.Split(ansi.Wrap("request: "+r, w, " "), "\n")...)
	}
	// The panes keep most of the screen: a long list of requests shows
	// its first lines and says how many more there are.
	most := max(m.height/3, 4)
	if len(lines) > most {
		more := len(lines) - most + 1
		lines = append(lines[:most-1], fmt.Sprintf("… %d more lines of requests", more))
	}
	for _, l := range lines {
		line(bFaint.Render(l))
	}
}

// selectionText describes the selected row: the edge with every attribute
// (read whole where the index leaves some out), or the item.
func (m *browseModel) selectionText() string {
	v := m.view
	if v.onItem {
		return "item " + v.key + " · e edits its attributes"
	}
	p := v.panes[m.focus]
	r := p.selected()
	if r == nil {
		return ""
	}
	rec, err := edgeRecord(m.sch.Layout(), p.relation(), p.dir, p.whole(r))
	if err != nil {
		return m.problem(err)
	}
	var parts []string
	for _, f := range rec[1:] {
		parts = append(parts, f.Name+": "+escapeControls(cell(f.Value)))
	}
	if len(parts) == 0 {
		parts = []string{"no attributes"}
	}
	text := "edge " + escapeControls(m.edgeText(p, r.key)) + " · " + strings.Join(parts, " · ")
	if _, ok := p.detail[r.key]; ok {
		text += bFaint.Render(" (read whole: the index leaves attributes out)")
	} else if p.needsDetail(m.sch.Table.Index) {
		text += bFaint.Render(" (reading the rest…)")
	}
	return text
}

// inputView draws the line being typed and, for a filter, what it sends.
func (m *browseModel) inputView(line func(string)) {
	in := m.input
	line(in.label + ": " + in.field.View())
	if in.preview != nil {
		for _, l := range strings.Split(in.preview(m, in.field.Value()), "\n") {
			line(bFaint.Render(l))
		}
	}
}

// messages draws the last problem, or else what the last action did.
func (m *browseModel) messages(line func(string)) {
	switch {
	case m.status != "":
		line(bError.Render("! ") + m.status)
	case m.note != "":
		line(bNote.Render(m.note))
	}
}
