package cmd

import (
	"fmt"
	"sync/atomic"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// orderOptions are the list flags of order and conditions: --asc against
// an ordered relation's desc, --where on its sort attribute (a key
// condition), --filter on any edge attribute (a FilterExpression).
type orderOptions struct {
	asc    bool
	where  string
	filter string
}

func (o *orderOptions) addOrderFlags(c *cobra.Command) {
	f := c.Flags()
	f.BoolVar(&o.asc, "asc", false, "least (oldest) first, against an ordered relation's order: desc")
	f.StringVar(&o.where, "where", "", `a range of the relation's sort attribute, sent as the key condition: 'since >= 2026-03-01', 'since between 2026-03-01 and 2026-03-31', 'begins_with(since, "2026-03")'`)
	f.StringVar(&o.filter, "filter", "", `conditions on edge attributes joined by and ('grade = A'), sent as a FilterExpression: every edge of the list is still read and paid for`)
}

// listConditions are a list's parsed --where and --filter.
type listConditions struct {
	where  *schema.Condition
	filter []schema.Condition
}

// resolveConditions parses --where and --filter against rel, before any
// request is sent.
func resolveConditions(rel *schema.Relation, o orderOptions) (listConditions, error) {
	var lc listConditions
	if o.where != "" {
		c, err := rel.ParseWhere(o.where)
		if err != nil {
			return lc, err
		}
		lc.where = &c
	}
	if o.filter != "" {
		conds, err := rel.ParseFilter(o.filter)
		if err != nil {
			return lc, err
		}
		lc.filter = conds
	}
	return lc, nil
}

// query is the list request of l, with the read counter of --filter.
func (l *listArgs) query(read *filterReads) ops.ListQuery {
	o := l.opts
	q := ops.ListQuery{
		Relation: l.rel, Direction: l.dir, Key: l.key,
		Limit: int32(o.limit), Cursor: o.cursor,
		Consistent: o.consistent, WithEntity: o.withEntity, Descending: o.desc, Ascending: o.asc,
		Where: l.conds.where, Filter: l.conds.filter,
	}
	if read != nil && len(l.conds.filter) > 0 {
		q.OnRead = read.add
	}
	return q
}

// filterReads counts what a --filter list read and kept, for the note
// that says what the filter cost.
type filterReads struct{ scanned, kept atomic.Int64 }

func (r *filterReads) add(scanned, kept int32) {
	r.scanned.Add(int64(scanned))
	r.kept.Add(int64(kept))
}

// note says on stderr how many edges the filter read to keep the ones it
// kept: every one read is charged.
func (a *app) filterNote(r *filterReads) {
	if r == nil || a.explaining() {
		return
	}
	s, k := r.scanned.Load(), r.kept.Load()
	fmt.Fprintf(a.notes(), "note: --filter read %d %s and kept %d; DynamoDB charges for every edge read (--capacity shows the units)\n", s, english.Plural(int(s), "edge", "edges"), k)
}
