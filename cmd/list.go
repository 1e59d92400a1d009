package cmd

import (
	"context"
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
		return &usageError{err: fmt.Errorf("--with-entity cannot be combined with -o csv (one header per file); use -o json, ndjson or yaml")}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	q := ops.ListQuery{
		Relation: l.rel, Direction: l.dir, Key: l.key,
		Limit: int32(a.set.Limit), Cursor: a.set.Cursor,
		Consistent: a.set.Consistent, WithEntity: l.withEntity,
	}
	if a.set.All {
		return a.listAll(ctx, st, l, q)
	}
	page, err := st.List(ctx, q)
	if err != nil || a.explaining() {
		return err
	}
	p := a.printer()
	if err := a.beginList(p, l, page.Entity); err != nil {
		return err
	}
	for _, it := range page.Items {
		if err := a.printRow(p, l, it); err != nil {
			return err
		}
	}
	if err := p.endList(page.Next); err != nil {
		return err
	}
	if page.Next != "" {
		fmt.Fprintf(a.io.ErrOut, "next page: %s\n", nextCommand(a.args, page.Next))
	}
	return nil
}

// listAll streams every page. With --with-entity the first page comes from
// List (the entity item arrives with it, so it prints first); the rest
// streams from ListAll.
func (a *app) listAll(ctx context.Context, st *ops.Store, l *listArgs, q ops.ListQuery) error {
	p := a.printer()
	if l.withEntity {
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
		if page.Next == "" {
			return p.endList("")
		}
		q.Cursor, q.WithEntity = page.Next, false
	} else if err := a.beginList(p, l, nil); err != nil {
		return err
	}
	_, err := st.ListAll(ctx, q, func(it ops.Item) error { return a.printRow(p, l, it) })
	if err != nil {
		return err
	}
	if a.explaining() {
		return nil
	}
	return p.endList("")
}

func (a *app) beginList(p printer, l *listArgs, entity ops.Item) error {
	var rec orderedObject
	if l.withEntity {
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
