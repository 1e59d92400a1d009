package cmd

import (
	"fmt"

	"github.com/adjl/adjl/ops"
	"github.com/spf13/cobra"
)

// countRun is a list verb with --count: the number of edges alone on stdout
// (so `test "$(adjl members CRS#c007 --count)" = 28` works in a script), or
// {"count": N} with -o json, ndjson or yaml.
func (a *app) countRun(c *cobra.Command, l *listArgs) error {
	for _, name := range []string{"cursor", "with-entity"} {
		if f := c.Flags().Lookup(name); f != nil && f.Changed {
			return usagef(c, "--count cannot be combined with --%s: it counts the whole list", name)
		}
	}
	st, err := a.storeFor(c.Context())
	if err != nil {
		return err
	}
	n, err := st.Count(c.Context(), ops.ListQuery{Relation: l.rel, Direction: l.dir, Key: l.key, Consistent: a.set.Consistent})
	if err != nil || a.explaining() {
		return err
	}
	if a.set.Output == "table" || a.set.Output == "csv" {
		_, err = fmt.Fprintln(a.io.Out, n)
		return err
	}
	return a.printer().object(orderedObject{{"count", n}})
}
