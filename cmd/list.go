package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// listArgs is one validated list request.
type listArgs struct {
	rel        *schema.Relation
	dir        ops.Direction
	key        string
	withEntity bool
	continued  bool // --cursor given: not the first page
}

func resolveList(rel *schema.Relation, dir ops.Direction, key string, withEntity bool) (*listArgs, error) {
	var err error
	if dir == ops.Forward {
		key, err = rel.FromKey(key)
	} else {
		key, err = rel.ToKey(key)
	}
	if err != nil {
		return nil, err
	}
	return &listArgs{rel: rel, dir: dir, key: key, withEntity: withEntity}, nil
}

// listRun prints one page, or every page with --all, and the command for
// the next page on stderr.
func (a *app) listRun(ctx context.Context, l *listArgs) error {
	if l.withEntity && a.set.Output == "csv" {
		return &usageError{err: errors.New("--with-entity cannot be combined with -o csv (one header per file)"),
			hint: "use -o json, ndjson or yaml, or drop --with-entity"}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	l.continued = a.set.Cursor != ""
	q := ops.ListQuery{
		Relation: l.rel, Direction: l.dir, Key: l.key,
		Limit: int32(a.set.Limit), Cursor: a.set.Cursor,
		Consistent: a.set.Consistent, WithEntity: l.withEntity,
	}
	p := a.printer()
	if !a.set.All || l.withEntity {
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
		if !a.set.All || page.Next == "" {
			return a.endPage(p, page.Next)
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
func (a *app) endPage(p printer, next string) error {
	if a.set.All {
		next = ""
	}
	if err := p.endList(next); err != nil {
		return err
	}
	if next != "" {
		fmt.Fprintf(a.io.ErrOut, "next page: %s\n", nextCommand(a.args, next))
	}
	return nil
}

// beginList starts the list; with --with-entity the first page carries the
// entity ({} when it has no item), a page reached with --cursor does not.
func (a *app) beginList(p printer, l *listArgs, entity ops.Item) error {
	var rec orderedObject
	if l.withEntity && !l.continued {
		rec = orderedObject{}
		if len(entity) > 0 {
			var err error
			if rec, err = entityRecord(a.sch, entity); err != nil {
				return err
			}
		}
	}
	return p.beginList(listColumns(l.rel, l.dir), rec)
}

func (a *app) printRow(p printer, l *listArgs, it ops.Item) error {
	rec, err := edgeRecord(l.rel, l.dir, it)
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
