package cmd

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// inputKind is what a typed line is for.
type inputKind int

const (
	inputOpen    inputKind = iota // o: a key to open
	inputFind                     // /: a key to find in the pane
	inputFilter                   // f: attribute op value
	inputAdd                      // a: the other key of a new edge
	inputConfirm                  // a y/n question
)

// browseInput is the line being typed under the panes: its label, the
// text field, what enter does with the text, and, for a filter, what the
// text means as it is typed.
type browseInput struct {
	kind    inputKind
	label   string
	field   textinput.Model
	enter   func(m *browseModel, text string) tea.Cmd
	preview func(m *browseModel, text string) string
}

// newTextField is a focused text field holding value, with a steady
// cursor (a blinking one would send the model ticks).
func newTextField(value string) textinput.Model {
	f := textinput.New()
	f.Prompt = ""
	st := f.Styles()
	st.Cursor.Blink = false
	f.SetStyles(st)
	f.SetValue(value)
	f.Focus()
	f.CursorEnd()
	return f
}

// openInput starts typing a line of the given kind.
func (m *browseModel) openInput(kind inputKind) {
	in := &browseInput{kind: kind, field: newTextField("")}
	switch kind {
	case inputOpen:
		in.label = "open a key (" + strings.Join(m.sch.KeyPrefixes(), " ") + ")"
		in.field.ShowSuggestions = true
		in.field.SetSuggestions(m.sch.KeyPrefixes())
		in.enter = (*browseModel).openTyped
	case inputFind:
		p := m.view.panes[m.focus]
		in.label = "find a key of " + otherSide(p.relation(), p.dir).Prefix
		in.enter = (*browseModel).find
	case inputFilter:
		in.label = "filter (" + filterSyntax + "; enter alone clears)"
		in.enter = (*browseModel).applyFilter
		in.preview = (*browseModel).filterPreview
	case inputAdd:
		p := m.view.panes[m.focus]
		other := otherSide(p.relation(), p.dir).Prefix
		in.label = "link " + m.edgeText(p, "") + ": the other key (tab completes " + other + ")"
		in.field.ShowSuggestions = true
		in.field.SetSuggestions([]string{other})
		in.enter = (*browseModel).addTyped
	}
	m.input = in
}

// confirm asks a y/n question; y runs yes.
func (m *browseModel) confirm(question string, yes func(m *browseModel) tea.Cmd) {
	m.input = &browseInput{kind: inputConfirm, label: question + " (y/n)", field: newTextField(""),
		enter: func(m *browseModel, _ string) tea.Cmd { return yes(m) }}
}

// inputKey edits the line: enter hands it over, esc leaves it (and quits
// browse at the first prompt, with nothing open).
func (m *browseModel) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	in := m.input
	switch msg.String() {
	case "esc":
		m.input = nil
		if m.view == nil {
			return tea.Quit
		}
		if in.kind == inputConfirm {
			m.note = "nothing written"
		}
		return nil
	case "enter":
		text := strings.TrimSpace(in.field.Value())
		if text == "" && in.kind != inputFilter {
			return nil
		}
		m.input = nil
		m.clearMessages()
		return in.enter(m, text)
	}
	if in.kind == inputConfirm {
		switch strings.ToLower(msg.Text) {
		case "y":
			m.input = nil
			return in.enter(m, "y")
		case "n":
			m.input, m.note = nil, "nothing written"
		}
		return nil
	}
	in.field, _ = in.field.Update(msg)
	return nil
}

// paste types pasted text into the open field.
func (m *browseModel) paste(msg tea.PasteMsg) tea.Cmd {
	switch {
	case m.form != nil:
		f := &m.form.fields[m.form.at]
		f.input, _ = f.input.Update(msg)
	case m.input != nil && m.input.kind != inputConfirm:
		m.input.field, _ = m.input.field.Update(msg)
	}
	return nil
}

// openTyped opens the key typed at o; a bare id takes the prefix the view
// makes plain (see keyFor). A bad key leaves the line open to fix it.
func (m *browseModel) openTyped(text string) tea.Cmd {
	key, err := m.keyFor(text)
	if err == nil {
		_, _, err = m.sch.ResolveKey(key)
	}
	if err != nil {
		m.status = m.problem(err)
		m.openInput(inputOpen)
		m.input.field.SetValue(text)
		m.input.field.CursorEnd()
		return nil
	}
	return m.open(key, m.view != nil)
}

// keyFor is the key a bare id typed at o stands for: the entity the
// focused pane lists (o s0001 on a course's members is STU#s0001), else
// the viewed key's own entity, else the schema's only entity. A key with a
// prefix is taken as it is.
func (m *browseModel) keyFor(text string) (string, error) {
	if _, _, err := m.sch.ResolveKey(text); err == nil || strings.Contains(text, schema.Delimiter) {
		return text, nil
	}
	if m.view != nil {
		p := m.view.panes[m.focus]
		if rel := p.relation(); rel != nil {
			return otherKey(rel, p.dir, text)
		}
		if e := m.view.entity; e != nil {
			return e.Key(text)
		}
	}
	if len(m.sch.Entities) == 1 {
		return m.sch.Entities[0].Key(text)
	}
	return text, nil
}

// otherSide is the side of rel a pane of direction dir lists.
func otherSide(rel *schema.Relation, dir ops.Direction) schema.Side {
	if dir == ops.Forward {
		return rel.To
	}
	return rel.From
}

// edgeText names an edge of the pane with other as its other side ("" for
// one still to be given): STU#a91 → CRS#math204, whichever side the view
// is on.
func (m *browseModel) edgeText(p *browsePane, other string) string {
	if other == "" {
		other = otherSide(p.relation(), p.dir).Prefix + "…"
	}
	if p.dir == ops.Forward {
		return fmt.Sprintf("%s → %s", m.view.key, other)
	}
	return fmt.Sprintf("%s → %s", other, m.view.key)
}
