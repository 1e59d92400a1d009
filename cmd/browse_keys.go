package cmd

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type browseKeys struct {
	Up, Down, Follow, Back, Next, Prev, Pane, Relation, Open, Help, Quit key.Binding
}

func (k browseKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Follow, k.Back, k.Pane, k.Next, k.Prev, k.Help, k.Quit}
}

func (k browseKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Follow, k.Back}, {k.Pane, k.Relation, k.Next, k.Prev}, {k.Open, k.Help, k.Quit}}
}

func newBrowseKeys() browseKeys {
	b := func(keys []string, h, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h, desc))
	}
	return browseKeys{
		Up:       b([]string{"up", "k"}, "↑/k", "previous edge"),
		Down:     b([]string{"down", "j"}, "↓/j", "next edge"),
		Follow:   b([]string{"enter", "right", "l"}, "enter/→", "follow edge"),
		Back:     b([]string{"backspace", "left", "h"}, "bksp/←", "back"),
		Next:     b([]string{"n", "pgdown"}, "n", "next page"),
		Prev:     b([]string{"p", "pgup"}, "p", "previous page"),
		Pane:     b([]string{"tab", "shift+tab"}, "tab", "other pane"),
		Relation: b([]string{"r"}, "r", "next relation"),
		Open:     b([]string{"o", "/"}, "o", "open a key"),
		Help:     b([]string{"?"}, "?", "keys"),
		Quit:     b([]string{"q", "ctrl+c", "esc"}, "q", "quit"),
	}
}

// promptKey edits the key prompt (typing, backspace, ctrl+u); enter opens
// the key typed, esc leaves the prompt.
func (m *browseModel) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		return tea.Quit
	case "esc":
		if m.view == nil {
			return tea.Quit
		}
		m.prompting, m.input = false, ""
		return nil
	case "enter":
		k := strings.TrimSpace(m.input)
		if k == "" {
			return nil
		}
		if _, _, err := m.sch.ResolveKey(k); err != nil {
			m.status = m.problem(err)
			return nil
		}
		m.prompting, m.loading, m.status, m.input = false, true, "", ""
		return m.open(k, m.view != nil)
	case "backspace":
		if r := []rune(m.input); len(r) > 0 {
			m.input = string(r[:len(r)-1])
		}
		return nil
	case "ctrl+u":
		m.input = ""
		return nil
	}
	if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
		m.input += msg.Text
	}
	return nil
}

func (m *browseModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return nil
	case m.loading || m.view == nil:
		return nil
	case key.Matches(msg, k.Open):
		m.prompting = true
		return nil
	case key.Matches(msg, k.Back):
		if len(m.history) == 0 {
			m.status = "no previous key: this is where you started"
			return nil
		}
		m.view = m.history[len(m.history)-1]
		m.history = m.history[:len(m.history)-1]
		m.focus = m.view.focus
		m.status = ""
		return nil
	}
	v := m.view
	p := v.panes[m.focus]
	switch {
	case key.Matches(msg, k.Pane):
		if o := v.panes[1-m.focus]; o.relation() == nil && len(o.roles) == 0 {
			m.status = "nothing on the other side: no relation has " + m.keyPrefix() + " there"
			return nil
		}
		m.focus = 1 - m.focus
	case key.Matches(msg, k.Up):
		if p.sel > 0 {
			p.sel--
		}
	case key.Matches(msg, k.Down):
		if p.sel < p.count()-1 {
			p.sel++
		}
	case key.Matches(msg, k.Follow):
		other := p.selectedKey()
		if other == "" {
			return nil
		}
		m.loading = true
		return m.open(other, true)
	case key.Matches(msg, k.Next):
		if p.next == "" {
			m.status = "last page"
			return nil
		}
		m.loading = true
		return m.loadPage(m.focus, append(append([]string{}, p.cursors...), p.next))
	case key.Matches(msg, k.Prev):
		if len(p.cursors) <= 1 {
			m.status = "first page"
			return nil
		}
		m.loading = true
		return m.loadPage(m.focus, append([]string{}, p.cursors[:len(p.cursors)-1]...))
	case key.Matches(msg, k.Relation):
		if len(p.rels) < 2 {
			m.status = "this pane has one relation"
			return nil
		}
		p.rel = (p.rel + 1) % len(p.rels)
		m.loading = true
		return m.loadPage(m.focus, []string{""})
	}
	m.status = ""
	return nil
}
