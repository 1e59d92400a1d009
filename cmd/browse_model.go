package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/charmbracelet/x/ansi"
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
	fatal   error  // returned by browseRun after the program ends

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

func newBrowseModel(ctx context.Context, st *ops.Store, s *schema.Schema, rec *requestRecorder, limit int, key, where string) *browseModel {
	m := &browseModel{ctx: ctx, st: st, sch: s, rec: rec, limit: limit, where: where, startKey: key,
		help: help.New(), keys: newBrowseKeys(), width: 100}
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
// comes with the forward Query when there is one (--with-entity: the item
// collection in one read), else from a GetItem.
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

func (m *browseModel) loaded(msg browseLoaded) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		m.status = message(msg.err)
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
			m.status = message(err)
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

// promptView is the key prompt with a block cursor.
func (m *browseModel) promptView() string {
	return "key: " + escapeControls(m.input) + bSelected.Render(" ")
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
		line("Open a key (" + strings.Join(keyPrefixes(m.sch), " ") + "); esc quits.")
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

// keyPrefixes are the prefixes a key can start with: entity prefixes, then
// role prefixes, each once, for the key prompt.
func keyPrefixes(s *schema.Schema) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, e := range s.Entities {
		add(e.Prefix)
	}
	for _, r := range s.Relations {
		add(r.From.Prefix)
		add(r.To.Prefix)
	}
	return out
}

// keyPrefix is the current key's prefix, for messages.
func (m *browseModel) keyPrefix() string {
	_, p, err := m.sch.ResolveKey(m.view.key)
	if err != nil {
		return m.view.key
	}
	return p
}
