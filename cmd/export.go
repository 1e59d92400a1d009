package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
	"github.com/spf13/cobra"
)

func (a *app) newExportCmd() *cobra.Command {
	var segments int
	var quiet bool
	c := &cobra.Command{
		Use:     "export NAME [-o csv|ndjson]",
		GroupID: "data",
		Short:   "Write a relation's edges or an entity's items as CSV or NDJSON (uses a Scan)",
		Long: `Write every edge of a relation (from,to,<edge attributes>) or every item of an
entity (id,<attributes>) to stdout, in the format adjl import reads: importing
the output into an empty table reproduces the edges and items, values typed as
they were (numbers with all their digits, sets, booleans, dates). Counters are
not exported: an import recounts them. Rows come in no particular order.

A whole relation has no key to Query by, so export is the one command besides
reshard that sends a Scan: --segments parallel segments, filtered on the
type attribute. On DynamoDB a Scan reads, and bills, every item of the table.

-o csv (the default) writes a header line and RFC 4180 quoting; a value CSV
cannot carry back exactly (an empty string, a CR LF line break, which CSV
reads back as LF, a set element holding a comma) stops the export with a
message naming -o ndjson, which can.`,
		Example: withExamples(
			"adjl export enrollment > enrollments.csv",
			"adjl export student -o ndjson > students.ndjson",
			"adjl export enrollment | adjl --endpoint http://127.0.0.1:8000 import enrollment - --format csv",
		),
		Args:              exactArgs("NAME"),
		ValidArgsFunction: a.completeNames,
		RunE: func(c *cobra.Command, args []string) error {
			t, err := a.targetArg(c, args[0])
			if err != nil {
				return err
			}
			format := rowfile.CSV
			switch a.set.Output {
			case "table", "csv":
			case "ndjson":
				format = rowfile.NDJSON
			default:
				return usagef(c, "export writes -o csv or -o ndjson (the formats import reads), not %s", a.set.Output)
			}
			if segments < 1 || segments > 64 {
				return usagef(c, "--segments must be between 1 and 64, not %d", segments)
			}
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			if a.set.Endpoint == "aws" || a.set.Verbose {
				fmt.Fprintf(a.io.ErrOut, "note: export reads the whole table %s with a Scan (%d parallel segments); DynamoDB bills every item it reads, not only %s's\n",
					a.sch.Table.Name, segments, t.Name())
			}
			out := a.io.Out
			if a.explaining() {
				out = io.Discard // the requests are the output
			}
			w, err := rowfile.NewWriter(out, format, t)
			if err != nil {
				return err
			}
			prog := a.newProgress(quiet)
			prog.phase("export "+t.Name(), "rows", -1)
			start := time.Now()
			rep, err := st.Export(c.Context(), t, ops.ExportOptions{Segments: segments, Progress: func(rows, _ int64) { prog.set(rows) }}, w.Write)
			prog.finish()
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			if err != nil || a.explaining() {
				return err
			}
			if !quiet {
				fmt.Fprintf(a.io.ErrOut, "exported %s %s of %s in %s (%s items scanned, %s Scan %s)\n",
					commas(rep.Rows), plural(int(rep.Rows), "row", "rows"), t.Name(), time.Since(start).Round(time.Millisecond),
					commas(rep.Scanned), commas(rep.Requests), plural(int(rep.Requests), "request", "requests"))
			}
			return nil
		},
	}
	c.Flags().IntVar(&segments, "segments", 4, "parallel Scan segments (1 to 64)")
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress or summary on stderr")
	return c
}
