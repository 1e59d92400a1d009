package cmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// listOptions are the flags of the commands that page: the relation list
// verbs and adjl list. No other command has them.
type listOptions struct {
	limit      int
	cursor     string
	all        bool
	consistent bool
	withEntity bool
	count      bool
	desc       bool
	orderOptions
}

// addListFlags declares the list flags on c; word names the list's key in
// help ("course").
func (o *listOptions) addListFlags(c *cobra.Command, word string) {
	f := c.Flags()
	f.IntVar(&o.limit, "limit", 0, fmt.Sprintf("rows per page (default %d)", ops.DefaultLimit))
	f.StringVar(&o.cursor, "cursor", "", "continue from the cursor a previous page printed")
	f.BoolVar(&o.all, "all", false, "print every page")
	f.BoolVar(&o.consistent, "consistent", false, "strongly consistent read (base table only; refused on the index)")
	f.BoolVar(&o.withEntity, "with-entity", false, "also print the "+word+"'s own item on the first page (from the list's Query, or one GetItem more)")
	f.BoolVar(&o.count, "count", false, "print the number of edges (Select COUNT over every page and shard); not with the other page flags")
	f.BoolVar(&o.desc, "desc", false, "last first (ScanIndexForward false); a cursor keeps its direction")
	o.addOrderFlags(c)
}

// listArgs is one validated list request.
type listArgs struct {
	rel   *schema.Relation
	dir   ops.Direction
	key   string
	opts  listOptions
	conds listConditions
}

func resolveList(rel *schema.Relation, dir ops.Direction, key string, opts listOptions) (*listArgs, error) {
	if opts.limit < 0 || opts.limit > math.MaxInt32-1 {
		return nil, &usageError{err: fmt.Errorf("invalid --limit %d: want 1 to %d (0 for the default page size)", opts.limit, math.MaxInt32-1)}
	}
	var err error
	if dir == ops.Forward {
		key, err = rel.FromKey(key)
	} else {
		key, err = rel.ToKey(key)
	}
	if err != nil {
		return nil, err
	}
	conds, err := resolveConditions(rel, opts.orderOptions)
	if err != nil {
		return nil, err
	}
	return &listArgs{rel: rel, dir: dir, key: key, opts: opts, conds: conds}, nil
}

// continued reports whether the list starts from a cursor: not the first page.
func (l *listArgs) continued() bool { return l.opts.cursor != "" }

// listRun prints one page, or every page with --all, and the command for
// the next page on stderr; with --count, the number of edges.
func (a *app) listRun(ctx context.Context, l *listArgs) error {
	o := l.opts
	if o.count {
		return a.countRun(ctx, l)
	}
	if o.withEntity && a.set.Output == "csv" {
		return &usageError{err: errors.New("--with-entity cannot be combined with -o csv (one header per file)"),
			hint: "use -o json, ndjson or yaml, or drop --with-entity"}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	reads := &filterReads{}
	q := l.query(reads)
	if len(l.conds.filter) > 0 {
		defer a.filterNote(reads)
	}
	p := a.listPrinter(o.limit)
	if !o.all || o.withEntity {
		// One page; with --all --with-entity it is the first page, because
		// the entity item arrives with it and must print before the rows.
		page, err := st.List(ctx, q)
		if err != nil || a.explaining() {
			return err
		}
		if err := a.beginList(p, l, page.Entity); err != nil {
			return err
		}
		for _, it := range page.Items {
			if err := a.printRow(p, l, it); err != nil {
				return err
			}
		}
		if !o.all || page.Next == "" {
			return a.endPage(p, page.Next, o.all)
		}
		// The cursor is bound to the --with-entity query, so the rest is
		// streamed with the same query; the entity is not printed again.
		q.Cursor = page.Next
	} else if !a.explaining() {
		if err := a.beginList(p, l, nil); err != nil {
			return err
		}
	}
	_, err = st.ListAll(ctx, q, func(it ops.Item) error { return a.printRow(p, l, it) })
	if err != nil || a.explaining() {
		return err
	}
	return p.endList("")
}

// endPage finishes a single page and prints the next-page command on stderr.
func (a *app) endPage(p printer, next string, all bool) error {
	if all {
		next = ""
	}
	if err := p.endList(next); err != nil {
		return err
	}
	if next != "" && !p.carriesNext() {
		fmt.Fprintf(a.notes(), "next page: %s\n", nextCommand(a.args, next))
	}
	return nil
}

// beginList starts the list; with --with-entity the first page carries the
// entity (null, and a note on stderr, when the key has no item), a page
// reached with --cursor does not.
func (a *app) beginList(p printer, l *listArgs, entity ops.Item) error {
	var rec orderedObject
	if l.opts.withEntity && !l.continued() {
		rec = orderedObject{}
		if len(entity) == 0 {
			fmt.Fprintf(a.notes(), "note: %s has no item of its own\n", l.key)
		}
		if len(entity) > 0 {
			var err error
			if rec, err = entityRecord(a.sch, entity); err != nil {
				return err
			}
		}
	}
	return p.beginList(listColumns(l.rel, l.dir, a.sch.Table.Index), rec)
}

func (a *app) printRow(p printer, l *listArgs, it ops.Item) error {
	rec, err := edgeRecord(a.sch.Layout(), l.rel, l.dir, it)
	if err != nil {
		return err
	}
	return p.row(rec)
}

// nextCommand is the command line the user typed with --cursor replaced
// (or added), ready to paste.
func nextCommand(args []string, cursor string) string {
	out := []string{"adjl"}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			out = append(out, quoteArgs(args[i:])...)
			break
		}
		if arg == "--cursor" {
			i++
			continue
		}
		if strings.HasPrefix(arg, "--cursor=") {
			continue
		}
		out = append(out, shellQuote(arg))
	}
	// Before a "--" so the cursor is still parsed as a flag.
	for i, w := range out {
		if w == "--" {
			tail := append([]string{"--cursor", shellQuote(cursor)}, out[i:]...)
			return strings.Join(append(out[:i:i], tail...), " ")
		}
	}
	return strings.Join(append(out, "--cursor", shellQuote(cursor)), " ")
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}
