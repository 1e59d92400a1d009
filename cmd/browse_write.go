package cmd

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// browseWrite is a write of a view, kept so that u can undo it: what it
// did, and the write that undoes it (itself conditional on what it wrote,
// so an undo never overwrites someone else's change).
type browseWrite struct {
	what string
	undo func(ctx context.Context, st *ops.Store) error
}

// edit opens the form of the selected edge, or of the item row.
func (m *browseModel) edit() tea.Cmd {
	v := m.view
	if v.onItem {
		return m.editItem()
	}
	p := v.panes[m.focus]
	r, rel := p.selected(), p.relation()
	switch {
	case r == nil || rel == nil:
		m.status = "select an edge to edit (or the item, above the first row)"
		return nil
	case len(rel.Attributes) == 0:
		m.status = "relation " + rel.Name + " has no attributes to edit"
		return nil
	}
	if cmd, waiting := m.wholeFirst(p, r, "e"); waiting {
		return cmd
	}
	from, to := p.edgeEnds(v.key, r)
	m.form = newBrowseForm("edit "+m.edgeText(p, r.key), rel.Attributes, p.whole(r))
	m.form.save = func(m *browseModel, expect ops.Expect, set map[string]any, remove []string) tea.Cmd {
		label := from + " → " + to
		return m.write(func(ctx context.Context) (ops.Item, error) {
			return m.st.UpdateEdgeIf(ctx, rel, from, to, expect, set, remove)
		}, func(after ops.Item) browseWrite {
			back, unset := undoValues(expect, after)
			return browseWrite{what: "edit of " + label, undo: func(ctx context.Context, st *ops.Store) error {
				_, err := st.UpdateEdgeIf(ctx, rel, from, to, pick(after, expect), back, unset)
				return err
			}}
		}, func(after ops.Item) string { return label + ": " + changesText(expect, after) })
	}
	return nil
}

// wholeFirst makes a key that needs the selected edge whole wait for it
// where the index left attributes out and it was not read yet: the edge
// is read, then the key applies.
func (m *browseModel) wholeFirst(p *browsePane, r *browseRow, k string) (tea.Cmd, bool) {
	if _, ok := p.detail[r.key]; ok || !p.needsDetail(m.sch.Table.Index) {
		return nil, false
	}
	m.queue = append([]tea.KeyPressMsg{keyOf(k)}, m.queue...)
	return m.fetchDetail(false), true
}

// keyOf is the key press of a printable key.
func keyOf(k string) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// editItem opens the form of the viewed key's item: the entity's declared
// attributes (a role item holds counters only).
func (m *browseModel) editItem() tea.Cmd {
	v := m.view
	e := v.entity
	_, prefix, _ := m.sch.ResolveKey(v.key)
	switch {
	case e == nil:
		m.status = "no entity owns " + v.key + ": nothing to edit"
		return nil
	case prefix != e.Prefix:
		m.status = v.key + " is a role item: it holds counters only; open " + e.Prefix + strings.TrimPrefix(v.key, prefix) + " to edit the " + e.Name
		return nil
	case len(e.Attributes) == 0:
		m.status = "entity " + e.Name + " has no attributes to edit"
		return nil
	}
	id := strings.TrimPrefix(v.key, prefix)
	m.form = newBrowseForm("edit "+v.key, e.Attributes, v.item)
	m.form.save = func(m *browseModel, expect ops.Expect, set map[string]any, remove []string) tea.Cmd {
		return m.write(func(ctx context.Context) (ops.Item, error) {
			return m.st.UpdateEntityIf(ctx, e, id, expect, set, remove)
		}, func(after ops.Item) browseWrite {
			back, unset := undoValues(expect, after)
			return browseWrite{what: "edit of " + v.key, undo: func(ctx context.Context, st *ops.Store) error {
				_, err := st.UpdateEntityIf(ctx, e, id, pick(after, expect), back, unset)
				return err
			}}
		}, func(after ops.Item) string { return v.key + ": " + changesText(expect, after) })
	}
	return nil
}

// write runs a write; on success it keeps its undo, says what it did and
// reads the view again (the write's request first, then the reads). A
// write refused because the item changed says what changed and leaves the
// view as it was.
func (m *browseModel) write(send func(ctx context.Context) (ops.Item, error), undo func(after ops.Item) browseWrite, says func(after ops.Item) string) tea.Cmd {
	return m.load(false, func(ctx context.Context) browseLoaded {
		after, err := send(ctx)
		if err != nil {
			return refused(err, "")
		}
		return browseLoaded{apply: func(m *browseModel) tea.Cmd {
			m.wrote(undo(after), says(after))
			return m.reload(true)
		}}
	})
}

// wrote keeps a write for undo and says what it did.
func (m *browseModel) wrote(w browseWrite, note string) {
	m.view.writes = append(m.view.writes, w)
	m.note = note + " · u undoes"
}

// refused is a write's failure as a load's result: a changed item is
// said with what changed and how to see it.
func refused(err error, what string) browseLoaded {
	var ce *ops.ChangedError
	if !errors.As(err, &ce) {
		return browseLoaded{err: err}
	}
	return browseLoaded{apply: func(m *browseModel) tea.Cmd {
		m.status = what + m.problem(err) + " · R reloads"
		return nil
	}}
}

// undoValues are the update that puts the values shown back: those that
// were set, and the names of those that were unset.
func undoValues(expect ops.Expect, after ops.Item) (map[string]any, []string) {
	back := map[string]any{}
	var unset []string
	for _, name := range sortedNames(expect) {
		switch av := expect[name]; {
		case av != nil:
			back[name] = av
		case after[name] != nil:
			unset = append(unset, name)
		}
	}
	return back, unset
}

// pick is what item holds of the names expect shows, as an Expect.
func pick(item ops.Item, expect ops.Expect) ops.Expect {
	out := ops.Expect{}
	for name := range expect {
		out[name] = item[name]
	}
	return out
}

func sortedNames(expect ops.Expect) []string { return slices.Sorted(maps.Keys(expect)) }

// add asks for the other key of a new edge in the focused pane's relation.
func (m *browseModel) add() tea.Cmd {
	if m.view.panes[m.focus].relation() == nil {
		m.status = "no relation here to add an edge to"
		return nil
	}
	m.view.onItem = false
	m.openInput(inputAdd)
	return nil
}

// addTyped links the key typed to the viewed key, after the form of the
// relation's attributes when it has some.
func (m *browseModel) addTyped(text string) tea.Cmd {
	p := m.view.panes[m.focus]
	rel := p.relation()
	other, err := otherKey(rel, p.dir, text)
	if err != nil {
		m.status = m.problem(err)
		return nil
	}
	from, to := p.edgeEnds(m.view.key, &browseRow{key: other})
	if len(rel.Attributes) == 0 {
		return m.linkEdge(rel, from, to, nil)
	}
	m.form = newBrowseForm("new edge "+m.edgeText(p, other), rel.Attributes, nil)
	m.form.adding = true
	m.form.save = func(m *browseModel, _ ops.Expect, set map[string]any, _ []string) tea.Cmd {
		return m.linkEdge(rel, from, to, set)
	}
	return nil
}

// linkEdge links from → to as the link verb does (its counters move in
// the same transaction); u unlinks it again.
func (m *browseModel) linkEdge(rel *schema.Relation, from, to string, attrs map[string]any) tea.Cmd {
	label := from + " → " + to
	return m.load(false, func(ctx context.Context) browseLoaded {
		out, _, err := m.st.Link(ctx, rel, from, to, attrs)
		if err != nil {
			return browseLoaded{err: err}
		}
		return browseLoaded{apply: func(m *browseModel) tea.Cmd {
			if out != ops.Created {
				m.note = label + " was linked already (" + string(out) + ")"
				return m.reload(true)
			}
			m.wrote(browseWrite{what: "link of " + label, undo: func(ctx context.Context, st *ops.Store) error {
				_, _, err := st.Unlink(ctx, rel, from, to)
				return err
			}}, "linked "+label)
			return m.reload(true)
		}}
	})
}

// unlink asks, then unlinks the selected edge as the unlink verb does; u
// links it again with the attributes it had.
func (m *browseModel) unlink() tea.Cmd {
	v := m.view
	p := v.panes[m.focus]
	r, rel := p.selected(), p.relation()
	if r == nil || rel == nil || v.onItem {
		m.status = "select an edge to unlink"
		return nil
	}
	if cmd, waiting := m.wholeFirst(p, r, "x"); waiting {
		return cmd
	}
	from, to := p.edgeEnds(v.key, r)
	attrs := m.edgeAttrs(p.whole(r))
	m.confirm("unlink "+from+" → "+to+"?", func(m *browseModel) tea.Cmd {
		label := from + " → " + to
		return m.load(false, func(ctx context.Context) browseLoaded {
			out, _, err := m.st.Unlink(ctx, rel, from, to)
			if err != nil {
				return browseLoaded{err: err}
			}
			return browseLoaded{apply: func(m *browseModel) tea.Cmd {
				if out != ops.Deleted {
					m.note = label + " was unlinked already"
					return m.reload(true)
				}
				m.wrote(browseWrite{what: "unlink of " + label, undo: func(ctx context.Context, st *ops.Store) error {
					_, _, err := st.Link(ctx, rel, from, to, attrs)
					return err
				}}, "unlinked "+label)
				return m.reload(true)
			}}
		})
	})
	return nil
}

// edgeAttrs are the attributes of an edge a link can write again: all
// but the keys, the type and adjl's own.
func (m *browseModel) edgeAttrs(item ops.Item) map[string]any {
	reserved := m.sch.Layout().Reserved()
	out := map[string]any{}
	for name, av := range item {
		if !slices.Contains(reserved, name) && !schema.IsReservedAttribute(name) {
			out[name] = av
		}
	}
	return out
}

// undo undoes the view's last write with the write that reverses it.
func (m *browseModel) undo() tea.Cmd {
	v := m.view
	if len(v.writes) == 0 {
		m.status = "nothing to undo: this view has written nothing"
		return nil
	}
	w := v.writes[len(v.writes)-1]
	v.writes = v.writes[:len(v.writes)-1]
	return m.load(false, func(ctx context.Context) browseLoaded {
		if err := w.undo(ctx, m.st); err != nil {
			return refused(err, "cannot undo the "+w.what+": ")
		}
		return browseLoaded{apply: func(m *browseModel) tea.Cmd {
			m.note = "undone: the " + w.what
			return m.reload(true)
		}}
	})
}

// fetchDetail reads the selected edge whole (one GetItem) where the index
// leaves attributes out, once per edge; a failure is said and not tried
// again for that edge. more adds its request to those shown.
func (m *browseModel) fetchDetail(more bool) tea.Cmd {
	v := m.view
	if v == nil || v.onItem || m.input != nil || m.form != nil {
		return nil
	}
	p := v.panes[m.focus]
	r := p.selected()
	if r == nil || !p.needsDetail(m.sch.Table.Index) {
		return nil
	}
	if _, ok := p.detail[r.key]; ok {
		return nil
	}
	rel, key := p.relation(), r.key
	from, to := p.edgeEnds(v.key, r)
	return m.load(more, func(ctx context.Context) browseLoaded {
		item, _, err := m.st.Check(ctx, rel, from, to, false)
		return browseLoaded{apply: func(m *browseModel) tea.Cmd {
			if item == nil {
				item = ops.Item{}
			}
			p.detail[key] = item
			if err != nil {
				m.status = m.problem(err)
			}
			return nil
		}}
	})
}
