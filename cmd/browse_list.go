package cmd

import (
	"context"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// Loading every row (L) reads pages of browseLoadAllChunk edges and stops
// at browseLoadAllMax: a pane holds what a terminal can scroll through,
// and a celebrity's followers are better found with / or filtered with f.
const (
	browseLoadAllChunk = 1000
	browseLoadAllMax   = 10000
)

// nextPage and prevPage move a paged pane by a page.
func (m *browseModel) nextPage(p *browsePane) tea.Cmd {
	if !m.canPage(p, p.next != "", "last page") {
		return nil
	}
	return m.loadPage(p, append(slices.Clone(p.starts), pageStart{cursor: p.next}))
}

func (m *browseModel) prevPage(p *browsePane) tea.Cmd {
	if !m.canPage(p, len(p.starts) > 1, "first page") {
		return nil
	}
	return m.loadPage(p, slices.Clone(p.starts[:len(p.starts)-1]))
}

// canPage reports whether the pane can move a page that way (there is one
// when more), else says why not.
func (m *browseModel) canPage(p *browsePane, more bool, end string) bool {
	switch {
	case p.relation() == nil:
	case !p.paged():
		m.status = "every row loaded is shown, without pages; R goes back to pages"
	case !more:
		m.status = end
	default:
		return true
	}
	return false
}

// restart reads the first page of the pane's list again (another
// relation, order or filter).
func (m *browseModel) restart(p *browsePane) tea.Cmd {
	p.toStart()
	return m.loadPage(p, p.starts)
}

// loadPage reads the page that starts[len-1] begins and shows it, with
// starts as the pane's stack of pages.
func (m *browseModel) loadPage(p *browsePane, starts []pageStart) tea.Cmd {
	q := p.query(m.view.key, m.limit)
	start := starts[len(starts)-1]
	q.Cursor, q.From = start.cursor, start.from
	return m.load(false, func(ctx context.Context) browseLoaded {
		page, err := m.st.List(ctx, q)
		return browseLoaded{err: err, apply: func(m *browseModel) tea.Cmd {
			p.starts, p.all, p.cut = starts, false, ""
			p.setPage(m, page)
			if start.from != "" && !p.selectKey(start.from) {
				m.note = start.from + " is not in the list: the page starts at the key after it"
			}
			return nil
		}}
	})
}

// cycleSort moves the pane's sort to the next column (s) or reverses it
// (S). The column DynamoDB orders the list by (the key, or an ordered
// relation's attribute) is read again in the order asked for, with exact
// pages; another column sorts the rows loaded.
func (m *browseModel) cycleSort(p *browsePane, reverse bool) tea.Cmd {
	if p.relation() == nil {
		m.status = "nothing to sort here"
		return nil
	}
	readDesc, readAsc := p.readOrder()
	if reverse {
		p.sort.desc = !p.sort.desc
	} else {
		cols := p.sortColumns(m.sch.Table.Index)
		p.sort = browseSort{col: cols[(slices.Index(cols, p.sort.col)+1)%len(cols)]}
		if p.sort.col == p.serverCol() {
			p.sort = p.defaultSort() // the relation's own order
		}
	}
	if desc, asc := p.readOrder(); p.paged() && (desc != readDesc || asc != readAsc) {
		return m.restart(p)
	}
	keep := p.selectedKey()
	p.sortRows()
	p.selectKey(keep)
	return nil
}

// sortTitle says the pane's order and where it comes from.
func (p *browsePane) sortTitle(keyCol string) string {
	col, arrow := p.sort.col, "↑"
	if col == "" {
		col = keyCol
	}
	if p.sort.desc {
		arrow = "↓"
	}
	switch {
	case p.sort.col == p.serverCol():
		return "by " + col + " " + arrow
	case !p.paged() && p.cut == "":
		return "by " + col + " " + arrow + " (all rows)"
	}
	return "by " + col + " " + arrow + " (rows loaded)"
}

// find selects the row of the key typed (bare or prefixed, of the pane's
// other side): on the page shown, else from a Query that starts at the key
// (key order), else among the rows loaded.
func (m *browseModel) find(text string) tea.Cmd {
	p := m.view.panes[m.focus]
	key, err := otherKey(p.relation(), p.dir, text)
	if err != nil {
		m.status = m.problem(err)
		return nil
	}
	m.view.onItem = false
	if p.selectKey(key) {
		return nil
	}
	switch {
	case p.ordered() || p.where != nil:
		m.status = fmt.Sprintf("%s is not among the %d rows loaded; the list is in %s order, not the key's, so no Query can start at a key (L loads every row)", key, len(p.rows), p.serverCol())
		return nil
	case !p.paged():
		m.status = fmt.Sprintf("%s is not among the %d rows loaded", key, len(p.rows))
		return nil
	}
	return m.loadPage(p, append(slices.Clone(p.starts), pageStart{from: key}))
}

// otherKey is text as a key of the other side of a pane's relation: the
// to side's forward, the from side's in reverse.
func otherKey(rel *schema.Relation, dir ops.Direction, text string) (string, error) {
	if dir == ops.Forward {
		return rel.ToKey(text)
	}
	return rel.FromKey(text)
}

// loadAll reads every row of the pane's list, a page of
// browseLoadAllChunk at a time and at most browseLoadAllMax, with its
// progress in the pane's title; esc stops it.
func (m *browseModel) loadAll(p *browsePane) tea.Cmd {
	switch {
	case p.relation() == nil:
		m.status = "no list here to load"
		return nil
	case p.all:
		m.note = "every row is loaded"
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.stop = cancel
	p.cut = "loading"
	return m.loadChunk(ctx, p, "", true)
}

func (m *browseModel) loadChunk(ctx context.Context, p *browsePane, cursor string, first bool) tea.Cmd {
	q := p.query(m.view.key, browseLoadAllChunk)
	q.Cursor, q.From = cursor, ""
	return m.load(false, func(context.Context) browseLoaded {
		page, err := m.st.List(ctx, q)
		if err != nil {
			return browseLoaded{apply: func(m *browseModel) tea.Cmd {
				m.stop, p.cut = nil, "stopped"
				m.note = fmt.Sprintf("stopped: %d rows loaded", len(p.rows))
				if first { // nothing read yet: the page shown stays
					p.cut, m.note = "", "stopped"
				}
				if ctx.Err() == nil {
					m.status = m.problem(err)
				}
				return nil
			}}
		}
		return browseLoaded{apply: func(m *browseModel) tea.Cmd {
			if first {
				p.rows, p.sel, p.starts = nil, 0, []pageStart{{}}
			}
			p.addRows(m.sch.Layout(), page.Items)
			switch {
			case page.Next == "":
				m.stop, p.all, p.cut = nil, true, ""
				m.note = fmt.Sprintf("all %d rows loaded", len(p.rows))
			case len(p.rows) >= browseLoadAllMax:
				m.stop, p.cut = nil, fmt.Sprintf("at most %d", browseLoadAllMax)
				m.note = fmt.Sprintf("%d rows loaded: browse loads at most %d (find with /, or filter with f)", len(p.rows), browseLoadAllMax)
			default:
				return m.loadChunk(ctx, p, page.Next, false)
			}
			return nil
		}}
	})
}
