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
// read and write is a tea.Cmd that runs ops calls and returns a
// browseLoaded whose apply changes the model; the model changes only in
// Update, so tests drive it with messages alone. One load runs at a time:
// keys typed meanwhile wait in queue and apply in order when it is done.
type browseModel struct {
	ctx      context.Context
	st       *ops.Store
	sch      *schema.Schema
	rec      *requestRecorder
	limit    int // rows per page; 0 until the first window size says how many fit
	where    string
	startKey string
	readOnly bool

	view    *browseView
	history []*browseView // views left by following an edge; backspace returns
	focus   int

	loading bool
	queue   []tea.KeyPressMsg // keys typed while loading, in order
	stop    context.CancelFunc
	status  string // the last problem (bad key, failed read, refused write)
	note    string // what the last action did
	// hide removes credentials from text the model shows (an error a
	// server sent back may quote them); the view draws on the terminal
	// itself, past the redacting writers.
	hide  func(string) string
	fatal error // returned by browseRun after the program ends

	input *browseInput // the line being typed (open, find, filter, add, y/n)
	form  *browseForm  // the form being filled (edit, add)
	help  help.Model
	keys  browseKeys

	width, height int
}

// browseView is one key on screen: its item (the entity whole) and its two
// panes.
type browseView struct {
	key      string
	entity   *schema.Entity
	item     ops.Item // nil when nothing is stored under the key
	onItem   bool     // the item row is selected, not a pane's row
	panes    [2]*browsePane
	focus    int      // the pane with the focus when the view was left
	requests []string // the requests of the last action, as the request log writes them
	writes   []browseWrite
}

// browseLoaded is what a load read or wrote: apply changes the model with
// it (and may start the next load); requests are its request log lines.
type browseLoaded struct {
	apply    func(m *browseModel) tea.Cmd
	requests []string
	// more: the requests add to those shown (a reload after a write).
	more bool
	err  error
}

func newBrowseModel(ctx context.Context, st *ops.Store, s *schema.Schema, rec *requestRecorder, limit int, key, where string) *browseModel {
	m := &browseModel{ctx: ctx, st: st, sch: s, rec: rec, limit: limit, where: where, startKey: key,
		help: help.New(), keys: newBrowseKeys(), width: 100, hide: func(s string) string { return s }}
	if key == "" {
		m.openInput(inputOpen)
	}
	return m
}

func (m *browseModel) Init() tea.Cmd {
	if m.input != nil || m.limit == 0 {
		return nil // the first window size sets the page size and opens the key
	}
	return m.open(m.startKey, false)
}

// browseChrome is the number of lines around the panes' rows: the title,
// key and item lines; the panes' borders, titles, headers and footers;
// the selection, four request lines, the status line and the help.
const browseChrome = 16

// rowsThatFit is the page size for a terminal height: the rows a pane
// shows with the request panel below.
func rowsThatFit(height int) int { return max(height-browseChrome, 3) }

func (m *browseModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		if m.limit == 0 {
			m.limit = rowsThatFit(msg.Height)
			if m.view == nil && m.input == nil && !m.loading {
				cmd = m.open(m.startKey, false)
			}
		}
	case browseLoaded:
		cmd = m.loaded(msg)
		return m, tea.Batch(cmd, m.drain(true))
	case tea.KeyPressMsg:
		cmd = m.keyPress(msg)
	case tea.PasteMsg:
		cmd = m.paste(msg)
	}
	return m, tea.Batch(cmd, m.drain(false))
}

// keyPress takes a key: ctrl+c quits at once, and so does q unless it may
// be text (a line or form is open, or keys wait that may open one); esc
// stops a load of every row; while a load runs other keys wait their turn.
func (m *browseModel) keyPress(msg tea.KeyPressMsg) tea.Cmd {
	typing := m.input != nil || m.form != nil || len(m.queue) > 0
	switch {
	case msg.String() == "ctrl+c", msg.String() == "q" && !typing:
		return tea.Quit
	case m.loading && msg.String() == "esc" && m.stop != nil:
		m.stop()
		return nil
	case m.loading:
		m.queue = append(m.queue, msg)
		return nil
	}
	return m.key(msg)
}

// drain applies the keys typed during a load, in order, until one starts
// another load; with none left, it reads what the selected edge lacks
// (its request shown after the load's, right after a load).
func (m *browseModel) drain(afterLoad bool) tea.Cmd {
	var cmds []tea.Cmd
	for !m.loading && len(m.queue) > 0 {
		k := m.queue[0]
		m.queue = m.queue[1:]
		cmds = append(cmds, m.key(k))
		afterLoad = false
	}
	if !m.loading && len(m.queue) == 0 {
		cmds = append(cmds, m.fetchDetail(afterLoad))
	}
	return tea.Batch(cmds...)
}

// load runs read in the background as the one load in flight, with the
// request log of its requests alone.
func (m *browseModel) load(more bool, read func(ctx context.Context) browseLoaded) tea.Cmd {
	m.loading = true
	ctx, rec := m.ctx, m.rec
	return func() tea.Msg {
		rec.take()
		res := read(ctx)
		res.requests, res.more = rec.take(), more
		return res
	}
}

func (m *browseModel) loaded(msg browseLoaded) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		m.stop = nil
		m.showRequests(msg)
		if errors.Is(msg.err, context.Canceled) && m.ctx.Err() == nil {
			m.note = "stopped"
			return nil
		}
		m.status = m.problem(msg.err)
		if m.view == nil && m.input == nil {
			// Nothing to show: the first key failed (no table, unreachable).
			m.fatal = msg.err
			return tea.Quit
		}
		return nil
	}
	var cmd tea.Cmd
	if msg.apply != nil {
		cmd = msg.apply(m)
	}
	m.showRequests(msg)
	return cmd
}

// showRequests puts a load's requests under the panes: in place of the
// last action's, or after them (a reload after a write).
func (m *browseModel) showRequests(msg browseLoaded) {
	switch {
	case m.view == nil:
	case msg.more:
		m.view.requests = append(m.view.requests, msg.requests...)
	default:
		m.view.requests = msg.requests
	}
}

// problem is the status line of err, credentials hidden.
func (m *browseModel) problem(err error) string { return m.hide(message(err)) }

// clearMessages forgets the last problem and note: a new action starts.
func (m *browseModel) clearMessages() { m.status, m.note = "", "" }

// newView works out a key's panes from the schema: forward relations have
// the key's prefix on their from side, reverse ones on their to side. An
// entity key in no relation itself (USER#alice) lists its role keys.
func (m *browseModel) newView(key string) (*browseView, error) {
	ent, prefix, err := m.sch.ResolveKey(key)
	if err != nil {
		return nil, err
	}
	v := &browseView{key: key, entity: ent}
	v.panes[paneForward] = newBrowsePane(ops.Forward)
	v.panes[paneReverse] = newBrowsePane(ops.Reverse)
	id := strings.TrimPrefix(key, prefix)
	for _, rel := range m.sch.Relations {
		if rel.From.Prefix == prefix {
			v.panes[paneForward].rels = append(v.panes[paneForward].rels, rel)
		}
		if rel.To.Prefix == prefix {
			v.panes[paneReverse].rels = append(v.panes[paneReverse].rels, rel)
		}
	}
	for _, p := range v.panes {
		p.sort = p.defaultSort()
	}
	if len(v.panes[paneForward].rels) == 0 && len(v.panes[paneReverse].rels) == 0 && ent != nil {
		seen := map[string]bool{}
		for _, sd := range m.sch.Sides(ent) {
			if sd.Prefix != prefix && !seen[sd.Prefix] {
				seen[sd.Prefix] = true
				v.panes[paneForward].roles = append(v.panes[paneForward].roles, sd.Prefix+id)
			}
		}
	}
	return v, nil
}

// open loads a key: the entity whole (GetWholeEntity) and the first page
// of both panes.
func (m *browseModel) open(key string, push bool) tea.Cmd {
	v, err := m.newView(key)
	if err != nil {
		m.status = m.problem(err)
		return nil
	}
	return m.load(false, func(ctx context.Context) browseLoaded {
		item, pages, err := m.readView(ctx, v)
		return browseLoaded{err: err, apply: func(m *browseModel) tea.Cmd {
			m.show(v, item, pages)
			if push && m.view != nil {
				m.view.focus = m.focus
				m.history = append(m.history, m.view)
			}
			m.view = v
			m.focus = paneForward
			if !v.panes[paneForward].hasRows() && v.panes[paneReverse].relation() != nil {
				m.focus = paneReverse
			}
			return nil
		}}
	})
}

// readView reads what a view shows: the entity whole and, for each pane
// with a relation, the page its cursor stack is on.
func (m *browseModel) readView(ctx context.Context, v *browseView) (ops.Item, [2]*ops.Page, error) {
	var pages [2]*ops.Page
	for i, p := range v.panes {
		if p.relation() == nil {
			continue
		}
		page, err := m.st.List(ctx, p.query(v.key, m.limit))
		if err != nil {
			return nil, pages, err
		}
		pages[i] = page
	}
	item, err := m.st.GetWholeEntity(ctx, v.key, false)
	if errors.Is(err, ops.ErrItemNotFound) {
		return nil, pages, nil
	}
	return item, pages, err
}

// show puts what readView read in v, each pane's selection kept on its
// key where the key is still there.
func (m *browseModel) show(v *browseView, item ops.Item, pages [2]*ops.Page) {
	v.item = item
	for i, p := range v.panes {
		if pages[i] != nil {
			keep := p.selectedKey()
			p.setPage(m, pages[i])
			p.selectKey(keep)
		}
	}
}

// reload reads the current view again (R, and after each write): the item
// and each pane's current page, keeping the selections where their keys
// still are. more adds its requests to a write's.
func (m *browseModel) reload(more bool) tea.Cmd {
	v := m.view
	return m.load(more, func(ctx context.Context) browseLoaded {
		item, pages, err := m.readView(ctx, v)
		return browseLoaded{err: err, apply: func(m *browseModel) tea.Cmd {
			m.show(v, item, pages)
			return nil
		}}
	})
}
