package cmd

import (
	"context"
	"errors"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// The two panes of a view.
const (
	paneForward = 0 // the base table's item collection: the key's own edges
	paneReverse = 1 // the inverted index: edges that point at the key
)

// browseModel is adjl browse: a bubbletea model over an ops.Store. Every
// read is a tea.Cmd that runs ops calls and returns a browseLoaded; the
// model changes only in Update, so tests drive it with messages alone.
type browseModel struct {
	ctx      context.Context
	st       *ops.Store
	sch      *schema.Schema
	rec      *requestRecorder
	limit    int
	where    string
	startKey string

	view    *browseView
	history []*browseView // views left by following an edge; backspace returns
	focus   int
	loading bool
	status  string // the last problem (bad key, failed read), shown until the next action
	// hide removes credentials from text the model shows (an error a
	// server sent back may quote them); the view draws on the terminal
	// itself, past the redacting writers.
	hide  func(string) string
	fatal error // returned by browseRun after the program ends

	prompting bool
	input     string // the key being typed at the prompt
	help      help.Model
	keys      browseKeys
	width     int
}

// browseView is one key on screen: its item and its two panes.
type browseView struct {
	key      string
	entity   *schema.Entity
	item     orderedObject // nil when the key has no item
	panes    [2]*browsePane
	focus    int      // the pane with the focus when the view was left
	requests []string // the requests of the last load, as the request log writes them
}

// browsePane is one side: the relations in which the key is on that side,
// the one shown, and its current page.
type browsePane struct {
	dir     ops.Direction
	rels    []*schema.Relation
	rel     int
	cursors []string // cursors[i] starts page i; cursors[0] is ""
	// withEntity: the pane's Query also brings the key's own item (the
	// first pane with a relation); its cursors are bound to that query.
	withEntity bool
	rows       []orderedObject
	next       string
	sel        int
	// roles: the role keys of an entity key that is in no relation itself
	// (USER#alice in the social graph: ACTOR#alice, TARGET#alice), followable.
	roles []string
}

func (p *browsePane) relation() *schema.Relation {
	if len(p.rels) == 0 {
		return nil
	}
	return p.rels[p.rel]
}

// browseLoaded is the result of a load: a new view (open), or a page of
// one pane of the current view.
type browseLoaded struct {
	view     *browseView // open: the new view; nil for a page
	pane     int
	page     *ops.Page
	cursors  []string
	requests []string
	err      error
	push     bool // open: keep the previous view in the history
}

func newBrowseModel(ctx context.Context, st *ops.Store, s *schema.Schema, rec *requestRecorder, limit int, key, where string) *browseModel {
	m := &browseModel{ctx: ctx, st: st, sch: s, rec: rec, limit: limit, where: where, startKey: key,
		help: help.New(), keys: newBrowseKeys(), width: 100, hide: func(s string) string { return s }}
	if key == "" {
		m.prompting = true
	}
	return m
}

func (m *browseModel) Init() tea.Cmd {
	if m.prompting {
		return nil
	}
	m.loading = true
	return m.open(m.startKey, false)
}

// newView works out a key's panes from the schema: forward relations have
// the key's prefix on their from side, reverse ones on their to side.
func (m *browseModel) newView(key string) (*browseView, error) {
	ent, prefix, err := m.sch.ResolveKey(key)
	if err != nil {
		return nil, err
	}
	v := &browseView{key: key, entity: ent}
	v.panes[paneForward] = &browsePane{dir: ops.Forward, cursors: []string{""}}
	v.panes[paneReverse] = &browsePane{dir: ops.Reverse, cursors: []string{""}}
	id := strings.TrimPrefix(key, prefix)
	for _, rel := range m.sch.Relations {
		if rel.From.Prefix == prefix {
			v.panes[paneForward].rels = append(v.panes[paneForward].rels, rel)
		}
		if rel.To.Prefix == prefix {
			v.panes[paneReverse].rels = append(v.panes[paneReverse].rels, rel)
		}
	}
	if len(v.panes[paneForward].rels) == 0 && len(v.panes[paneReverse].rels) == 0 && ent != nil {
		seen := map[string]bool{}
		for _, rel := range m.sch.Relations {
			for _, sd := range []schema.Side{rel.From, rel.To} {
				if sd.Entity == ent && sd.Prefix != prefix && !seen[sd.Prefix] {
					seen[sd.Prefix] = true
					v.panes[paneForward].roles = append(v.panes[paneForward].roles, sd.Prefix+id)
				}
			}
		}
	}
	return v, nil
}

// open loads a key: the first page of both panes and the item. The item
// comes with the first pane's list (--with-entity: in its Query when the
// schema allows, else one GetItem), or from a GetItem when no pane lists.
func (m *browseModel) open(key string, push bool) tea.Cmd {
	v, err := m.newView(key)
	if err != nil {
		return func() tea.Msg { return browseLoaded{err: err} }
	}
	ctx, st := m.ctx, m.st
	return func() tea.Msg {
		m.rec.take()
		res := browseLoaded{view: v, push: push}
		var item ops.Item
		gotItem := false
		for _, p := range v.panes {
			rel := p.relation()
			if rel == nil {
				continue
			}
			p.withEntity = !gotItem
			page, err := st.List(ctx, ops.ListQuery{Relation: rel, Direction: p.dir, Key: key,
				Limit: int32(m.limit), WithEntity: p.withEntity})
			if err != nil {
				res.err = err
				break
			}
			if p.withEntity {
				item, gotItem = page.Entity, true
			}
			p.setPage(m.sch.Layout(), page)
		}
		if res.err == nil && !gotItem {
			it, err := st.GetEntity(ctx, key, false)
			switch {
			case errors.Is(err, ops.ErrItemNotFound):
			case err != nil:
				res.err = err
			default:
				item = it
			}
		}
		if res.err == nil && len(item) > 0 {
			var rec orderedObject
			rec, res.err = entityRecord(m.sch, item)
			v.item = orderedObject{}
			for _, f := range rec {
				if f.Name != "key" && f.Name != "type" { // both are in the title
					v.item = append(v.item, f)
				}
			}
		}
		res.requests = m.rec.take()
		return res
	}
}

// loadPage reads page i of a pane of the current view; cursors are the
// pane's cursor stack with cursors[i] the page's start.
func (m *browseModel) loadPage(pane int, cursors []string) tea.Cmd {
	v := m.view
	p := v.panes[pane]
	rel, dir, key, withEntity := p.relation(), p.dir, v.key, p.withEntity
	ctx, st := m.ctx, m.st
	return func() tea.Msg {
		m.rec.take()
		page, err := st.List(ctx, ops.ListQuery{Relation: rel, Direction: dir, Key: key,
			Limit: int32(m.limit), Cursor: cursors[len(cursors)-1], WithEntity: withEntity})
		return browseLoaded{pane: pane, page: page, cursors: cursors, err: err, requests: m.rec.take()}
	}
}

// setPage shows a page in the pane.
func (p *browsePane) setPage(l schema.Layout, page *ops.Page) {
	p.rows, p.next, p.sel = nil, page.Next, 0
	for _, it := range page.Items {
		rec, err := edgeRecord(l, p.relation(), p.dir, it)
		if err != nil {
			rec = orderedObject{{"error", err.Error()}}
		}
		p.rows = append(p.rows, rec)
	}
}

func (m *browseModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
		m.help.SetWidth(msg.Width)
		return m, nil
	case browseLoaded:
		return m, m.loaded(msg)
	case tea.KeyPressMsg:
		if m.prompting {
			return m, m.promptKey(msg)
		}
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.prompting {
			m.input += strings.TrimSpace(msg.Content)
		}
	}
	return m, nil
}

// problem is the status line of err, credentials hidden.
func (m *browseModel) problem(err error) string { return m.hide(message(err)) }

func (m *browseModel) loaded(msg browseLoaded) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		m.status = m.problem(msg.err)
		if m.view == nil && !m.prompting {
			// Nothing to show: the first key failed (no table, unreachable).
			m.fatal = msg.err
			return tea.Quit
		}
		return nil
	}
	m.status = ""
	if msg.view != nil {
		if msg.push && m.view != nil {
			m.view.focus = m.focus
			m.history = append(m.history, m.view)
		}
		msg.view.requests = msg.requests
		m.view = msg.view
		m.focus = paneForward
		if m.view.panes[paneForward].relation() == nil && len(m.view.panes[paneForward].roles) == 0 {
			m.focus = paneReverse
		}
		return nil
	}
	p := m.view.panes[msg.pane]
	p.cursors = msg.cursors
	p.setPage(m.sch.Layout(), msg.page)
	m.view.requests = msg.requests
	return nil
}

func (p *browsePane) count() int { return len(p.rows) + len(p.roles) }

// selectedKey is the key on the other side of the selected edge (or the
// selected role key).
func (p *browsePane) selectedKey() string {
	switch {
	case p.sel < len(p.rows):
		s, _ := p.rows[p.sel][0].Value.(string)
		return s
	case p.sel-len(p.rows) < len(p.roles):
		return p.roles[p.sel-len(p.rows)]
	}
	return ""
}

// keyPrefix is the current key's prefix, for messages.
func (m *browseModel) keyPrefix() string {
	_, p, err := m.sch.ResolveKey(m.view.key)
	if err != nil {
		return m.view.key
	}
	return p
}
