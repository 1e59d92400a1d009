package cmd

import (
	"context"
	"fmt"

	"github.com/adjl/adjl/ops"
)

// countRun is a list verb with --count: the number of edges alone on stdout
// (so `test "$(adjl members CRS#c007 --count)" = 28` works in a script), or
// {"count": N} with -o json, ndjson or yaml.
func (a *app) countRun(ctx context.Context, l *listArgs) error {
	for name, set := range map[string]bool{"cursor": l.opts.cursor != "", "with-entity": l.opts.withEntity} {
		if set {
			return usagef(a.cmd, "--count cannot be combined with --%s: it counts the whole list", name)
		}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	n, err := st.Count(ctx, ops.ListQuery{Relation: l.rel, Direction: l.dir, Key: l.key, Consistent: l.opts.consistent})
	if err != nil || a.explaining() {
		return err
	}
	if a.set.Output == "table" || a.set.Output == "csv" {
		_, err = fmt.Fprintln(a.io.Out, n)
		return err
	}
	return a.printer().object(orderedObject{{"count", n}})
}
