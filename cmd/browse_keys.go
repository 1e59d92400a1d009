package cmd

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type browseKeys struct {
	Up, Down, Follow, Back, Next, Prev, Pane, Relation, Open, Help, Quit key.Binding
	Find, Sort, Reverse, Filter, LoadAll, Reload                         key.Binding
	Edit, Add, Unlink, Undo                                              key.Binding
}

func (k browseKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Quit, k.Follow, k.Back, k.Pane, k.Next, k.Prev, k.Find, k.Sort, k.Filter, k.Edit}
}

func (k browseKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Follow, k.Back},
		{k.Pane, k.Relation, k.Next, k.Prev},
		{k.Find, k.Sort, k.Reverse, k.Filter, k.LoadAll},
		{k.Edit, k.Add, k.Unlink, k.Undo, k.Reload},
		{k.Open, k.Help, k.Quit},
	}
}

func newBrowseKeys() browseKeys {
	b := func(keys []string, h, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h, desc))
	}
	return browseKeys{
		Up:       b([]string{"up", "k"}, "↑/k", "previous row (the item above the first)"),
		Down:     b([]string{"down", "j"}, "↓/j", "next row"),
		Follow:   b([]string{"enter", "right", "l"}, "enter/→", "follow edge"),
		Back:     b([]string{"backspace", "left", "h"}, "bksp/←", "back"),
		Next:     b([]string{"n", "pgdown"}, "n", "next page"),
		Prev:     b([]string{"p", "pgup"}, "p", "previous page"),
		Pane:     b([]string{"tab", "shift+tab"}, "tab", "other pane"),
		Relation: b([]string{"r"}, "r", "next relation"),
		Open:     b([]string{"o"}, "o", "open a key"),
		Find:     b([]string{"/"}, "/", "find a key"),
		Sort:     b([]string{"s"}, "s", "sort by next column"),
		Reverse:  b([]string{"S"}, "S", "reverse the sort"),
		Filter:   b([]string{"f"}, "f", "filter (attribute op value)"),
		LoadAll:  b([]string{"L"}, "L", "load every row"),
		Reload:   b([]string{"R"}, "R", "reload"),
		Edit:     b([]string{"e"}, "e", "edit"),
		Add:      b([]string{"a"}, "a", "add an edge"),
		Unlink:   b([]string{"x"}, "x", "unlink"),
		Undo:     b([]string{"u"}, "u", "undo the last write"),
		Help:     b([]string{"?"}, "?", "keys"),
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),
	}
}

// key applies one key press: to the form or the line being typed if one
// is open, else as a command of the view.
func (m *browseModel) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.form != nil:
		return m.formKey(msg)
	case m.input != nil:
		return m.inputKey(msg)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return nil
	case m.view == nil:
		return nil
	}
	m.clearMessages()
	for _, run := range []func(tea.KeyPressMsg) (tea.Cmd, bool){m.viewKey, m.moveKey, m.listKey, m.writeKey} {
		if cmd, ok := run(msg); ok {
			return cmd
		}
	}
	return nil
}

// viewKey handles the keys about the view as a whole: open, back, pane,
// reload.
func (m *browseModel) viewKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, v := m.keys, m.view
	switch {
	case key.Matches(msg, k.Open):
		m.openInput(inputOpen)
	case key.Matches(msg, k.Back):
		if len(m.history) == 0 {
			m.status = "no previous key: this is where you started"
			break
		}
		m.view = m.history[len(m.history)-1]
		m.history = m.history[:len(m.history)-1]
		m.focus = m.view.focus
	case key.Matches(msg, k.Pane):
		if o := v.panes[1-m.focus]; o.relation() == nil && len(o.roles) == 0 {
			m.status = "nothing on the other side: no relation has " + m.keyPrefix() + " there"
			break
		}
		m.focus = 1 - m.focus
		v.onItem = false
	case key.Matches(msg, k.Reload):
		for _, p := range v.panes {
			if !p.paged() {
				p.toStart()
			}
		}
		return m.reload(false), true
	default:
		return nil, false
	}
	return nil, true
}

// moveKey handles moving the selection and following it.
func (m *browseModel) moveKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, v := m.keys, m.view
	p := v.panes[m.focus]
	switch {
	case key.Matches(msg, k.Up):
		switch {
		case v.onItem:
		case p.sel > 0:
			p.sel--
		default:
			v.onItem = true // the item row sits above the panes
		}
	case key.Matches(msg, k.Down):
		switch {
		case v.onItem:
			v.onItem = false
		case p.sel < p.count()-1:
			p.sel++
		}
	case key.Matches(msg, k.Follow):
		if other := p.selectedKey(); other != "" && !v.onItem {
			return m.open(other, true), true
		}
	default:
		return nil, false
	}
	return nil, true
}

// listKey handles the keys that change what a pane lists: pages,
// relation, sort, find, filter, load every row.
func (m *browseModel) listKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	p := m.view.panes[m.focus]
	switch {
	case key.Matches(msg, k.Next):
		return m.nextPage(p), true
	case key.Matches(msg, k.Prev):
		return m.prevPage(p), true
	case key.Matches(msg, k.Relation):
		if len(p.rels) < 2 {
			m.status = "this pane has one relation"
			return nil, true
		}
		p.rel = (p.rel + 1) % len(p.rels)
		p.where, p.filters = nil, nil
		p.sort = p.defaultSort()
		return m.restart(p), true
	case key.Matches(msg, k.Sort):
		return m.cycleSort(p, false), true
	case key.Matches(msg, k.Reverse):
		return m.cycleSort(p, true), true
	case key.Matches(msg, k.Find):
		if p.relation() == nil {
			m.status = "no list here to find a key in"
			return nil, true
		}
		m.openInput(inputFind)
	case key.Matches(msg, k.Filter):
		if p.relation() == nil {
			m.status = "no list here to filter"
			return nil, true
		}
		m.openInput(inputFilter)
	case key.Matches(msg, k.LoadAll):
		return m.loadAll(p), true
	default:
		return nil, false
	}
	return nil, true
}

// writeKey handles the keys that write: refused, with a note, in a
// read-only view.
func (m *browseModel) writeKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	for _, b := range []key.Binding{k.Edit, k.Add, k.Unlink, k.Undo} {
		if !key.Matches(msg, b) {
			continue
		}
		if m.readOnly {
			m.status = fmt.Sprintf("read-only view (--read-only or ADJL_READ_ONLY): %s (%s) writes, so it is refused; nothing was sent", b.Help().Key, b.Help().Desc)
			return nil, true
		}
		switch b.Help().Key {
		case "e":
			return m.edit(), true
		case "a":
			return m.add(), true
		case "x":
			return m.unlink(), true
		default:
			return m.undo(), true
		}
	}
	return nil, false
}

// keyPrefix is the current key's prefix, for messages.
func (m *browseModel) keyPrefix() string {
	_, p, err := m.sch.ResolveKey(m.view.key)
	if err != nil {
		return m.view.key
	}
	return p
}
