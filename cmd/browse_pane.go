package cmd

import (
	"cmp"
	"math/big"
	"slices"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// browsePane is one side: the relations in which the key is on that side,
// the one shown, and its rows: a page, or every row after L.
type browsePane struct {
	dir    ops.Direction
	rels   []*schema.Relation
	rel    int
	starts []pageStart // starts[i] begins page i+1; the last is the page shown
	rows   []browseRow
	next   string
	sel    int
	// roles: the role keys of an entity key that is in no relation itself
	// (USER#alice in the social graph: ACTOR#alice, TARGET#alice), followable.
	roles []string
	sort  browseSort
	// where is a range on an ordered relation's sort attribute (a key
	// condition); filters are conditions for the FilterExpression.
	where   *schema.Condition
	filters []schema.Condition
	// all: every row is loaded (L) and shown in place of pages; cut says
	// why the load stopped short ("stopped", or the bound it reached).
	all bool
	cut string
	// detail holds whole edges read for attributes the index leaves out
	// (KEYS_ONLY, INCLUDE), by the other side's key.
	detail map[string]ops.Item
}

// pageStart is where a page starts: after cursor, or at the key from (a
// find); the list's start is both empty.
type pageStart struct{ cursor, from string }

// browseRow is one edge: the other side's key, the item as read and its
// fields as the list commands print them.
type browseRow struct {
	key  string
	item ops.Item
	rec  orderedObject
	seq  int // its place in the order DynamoDB returned the rows in
}

// browseSort is a pane's order: by the key (col "") or an attribute.
type browseSort struct {
	col  string
	desc bool
}

func newBrowsePane(dir ops.Direction) *browsePane {
	return &browsePane{dir: dir, starts: []pageStart{{}}, detail: map[string]ops.Item{}}
}

func (p *browsePane) relation() *schema.Relation {
	if len(p.rels) == 0 {
		return nil
	}
	return p.rels[p.rel]
}

func (p *browsePane) count() int    { return len(p.rows) + len(p.roles) }
func (p *browsePane) hasRows() bool { return p.count() > 0 }
func (p *browsePane) paged() bool   { return !p.all && p.cut == "" }
func (p *browsePane) page() int     { return len(p.starts) }
func (p *browsePane) selected() *browseRow {
	if p.sel < len(p.rows) {
		return &p.rows[p.sel]
	}
	return nil
}

// ordered reports whether the pane's list is read in its relation's
// order (sort.by) rather than the key's: an ordered relation's reverse
// lists, and its forward ones with sort.forward.
func (p *browsePane) ordered() bool {
	rel := p.relation()
	return rel != nil && rel.Sort != nil && (p.dir == ops.Reverse || rel.Sort.Forward)
}

// serverCol is the column DynamoDB orders the list by: the sort
// attribute of an ordered relation, else the key ("").
func (p *browsePane) serverCol() string {
	if p.ordered() {
		return p.relation().Sort.By
	}
	return ""
}

// defaultSort is the order a list is read in: the relation's.
func (p *browsePane) defaultSort() browseSort {
	if p.ordered() {
		return browseSort{col: p.serverCol(), desc: p.relation().Sort.Desc}
	}
	return browseSort{}
}

// readOrder is how the list is read for the pane's sort: sorted by the
// column DynamoDB orders by, in its direction (exact pages); by any other
// column in the relation's own order, the rows then sorted as loaded.
func (p *browsePane) readOrder() (desc, asc bool) {
	switch {
	case p.sort.col != p.serverCol():
		return false, false
	case p.ordered():
		return p.sort.desc, !p.sort.desc
	}
	return p.sort.desc, false
}

// query is the List request of the page the pane is on.
func (p *browsePane) query(key string, limit int) ops.ListQuery {
	start := p.starts[len(p.starts)-1]
	return p.listQuery(ops.ListQuery{Relation: p.relation(), Direction: p.dir, Key: key, Limit: int32(limit),
		Cursor: start.cursor, From: start.from})
}

// toStart puts the pane back on the first page of its list.
func (p *browsePane) toStart() {
	p.starts, p.all, p.cut = []pageStart{{}}, false, ""
}

// setPage shows a page in the pane, in the pane's order.
func (p *browsePane) setPage(m *browseModel, page *ops.Page) {
	p.rows, p.next, p.sel = nil, page.Next, 0
	p.addRows(m.sch.Layout(), page.Items)
}

// addRows adds items to the pane's rows, keeping its order.
func (p *browsePane) addRows(l schema.Layout, items []ops.Item) {
	for _, it := range items {
		rec, err := edgeRecord(l, p.relation(), p.dir, it)
		if err != nil {
			rec = orderedObject{{"error", err.Error()}}
		}
		key, _ := rec[0].Value.(string)
		p.rows = append(p.rows, browseRow{key: key, item: it, rec: rec, seq: len(p.rows)})
	}
	p.sortRows()
}

// selectedKey is the key on the other side of the selected edge (or the
// selected role key).
func (p *browsePane) selectedKey() string {
	switch {
	case p.sel < len(p.rows):
		return p.rows[p.sel].key
	case p.sel-len(p.rows) < len(p.roles):
		return p.roles[p.sel-len(p.rows)]
	}
	return ""
}

// selectKey selects the row of key, if the pane shows it.
func (p *browsePane) selectKey(key string) bool {
	for i, r := range p.rows {
		if r.key == key {
			p.sel = i
			return true
		}
	}
	p.sel = min(p.sel, max(p.count()-1, 0))
	return false
}

// columns are the pane's table columns: the other side's key, the edge
// attributes the pane can hold (listColumns), then any other attribute a
// row has, by name.
func (p *browsePane) columns(index schema.Index) []string {
	rel := p.relation()
	if rel == nil {
		return []string{"role key"}
	}
	cols := listColumns(rel, p.dir, index)
	var extra []string
	for _, r := range p.rows {
		for _, f := range r.rec {
			if !slices.Contains(cols, f.Name) && !slices.Contains(extra, f.Name) {
				extra = append(extra, f.Name)
			}
		}
	}
	slices.Sort(extra)
	return append(cols, extra...)
}

// sortColumns are what s cycles through: the key (""), then each edge
// attribute the pane can show or the list is ordered by, in schema order.
func (p *browsePane) sortColumns(index schema.Index) []string {
	cols := []string{""}
	rel := p.relation()
	if rel == nil {
		return cols
	}
	shown := listColumns(rel, p.dir, index)
	for _, a := range rel.Attributes {
		if slices.Contains(shown, a.Name) || a.Name == p.serverCol() {
			cols = append(cols, a.Name)
		}
	}
	return cols
}

// sortRows orders the rows by the pane's sort: by the column DynamoDB
// orders the list by, as it returned them (the list was read in that
// order); by another column, with rows that lack a value last, then by
// key.
func (p *browsePane) sortRows() {
	col, desc := p.sort.col, p.sort.desc
	if col == p.serverCol() {
		slices.SortFunc(p.rows, func(a, b browseRow) int { return cmp.Compare(a.seq, b.seq) })
		return
	}
	slices.SortStableFunc(p.rows, func(a, b browseRow) int {
		if col != "" {
			va, _ := a.rec.get(col)
			vb, _ := b.rec.get(col)
			switch ea, eb := cell(va) == "", cell(vb) == ""; {
			case ea && eb:
			case ea:
				return 1
			case eb:
				return -1
			default:
				if c := compareValues(va, vb); c != 0 {
					if desc {
						return -c
					}
					return c
				}
			}
		}
		c := strings.Compare(a.key, b.key)
		if desc && col == "" {
			return -c
		}
		return c
	})
}

// compareValues orders two attribute values: numbers by value, anything
// else by its text.
func compareValues(a, b any) int {
	x, okA := new(big.Rat).SetString(cell(a))
	y, okB := new(big.Rat).SetString(cell(b))
	_, numA := a.(interface{ Float64() (float64, error) })
	_, numB := b.(interface{ Float64() (float64, error) })
	if okA && okB && numA && numB {
		return x.Cmp(y)
	}
	return cmp.Compare(cell(a), cell(b))
}

// needsDetail reports whether the pane's rows can lack edge attributes the
// index does not project: a reverse pane on a KEYS_ONLY or INCLUDE index.
func (p *browsePane) needsDetail(index schema.Index) bool {
	rel := p.relation()
	if rel == nil || p.dir != ops.Reverse {
		return false
	}
	return slices.ContainsFunc(rel.Attributes, func(a schema.Attribute) bool { return !index.Projects(a.Name) })
}

// whole is the selected edge as stored: the row's item, or the edge read
// whole where the index left attributes out.
func (p *browsePane) whole(r *browseRow) ops.Item {
	if it, ok := p.detail[r.key]; ok {
		return it
	}
	return r.item
}

// edgeEnds are the from and to keys of a row's edge.
func (p *browsePane) edgeEnds(viewKey string, r *browseRow) (from, to string) {
	if p.dir == ops.Forward {
		return viewKey, r.key
	}
	return r.key, viewKey
}
