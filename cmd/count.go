package cmd

import (
	"context"
	"fmt"
)

// countRun is a list verb with --count: the number of edges alone on stdout
// (so `test "$(adjl members CRS#c007 --count)" = 28` works in a script), a
// CSV file with its header (count) under -o csv, like every CSV adjl writes,
// or {"count": N} with -o json, ndjson or yaml.
func (a *app) countRun(ctx context.Context, l *listArgs) error {
	// A list flag a count would ignore is refused rather than ignored: the
	// user asked for something the number does not give.
	o := l.opts
	for _, f := range []struct {
		set        bool
		name, more string
	}{
		{o.cursor != "", "cursor", "it counts the whole list"},
		{o.limit != 0, "limit", "it counts the whole list, not a page"},
		{o.all, "all", "it counts every page already"},
		{o.withEntity, "with-entity", "it prints the number of edges alone"},
		{o.desc, "desc", "a count has no order"},
		{o.asc, "asc", "a count has no order"},
	} {
		if f.set {
			return usagef(a.cmd, "--count cannot be combined with --%s: %s", f.name, f.more)
		}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	n, err := st.Count(ctx, l.query(nil))
	if err != nil || a.explaining() {
		return err
	}
	if a.set.Output == "table" {
		_, err = fmt.Fprintln(a.io.Out, n)
		return err
	}
	return a.printer().object(orderedObject{{"count", n}})
}
