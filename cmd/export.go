package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
	"github.com/spf13/cobra"
)

func (a *app) newExportCmd() *cobra.Command {
	var segments int
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
message naming -o ndjson, which can. A stopped export exits 2; the rows
before it are on stdout, an incomplete file. Attributes the schema does not
declare are left out, with a warning on stderr naming them.`,
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
			defer a.tuneGCForBulk()()
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
			prog := a.newProgress(a.set.Quiet)
			prog.phase("export "+t.Name(), "rows", -1)
			start := time.Now()
			rep, err := st.Export(c.Context(), t, ops.ExportOptions{Segments: segments, Progress: func(rows, _ int64) { prog.set(rows) }}, w.Write)
			prog.finish()
			// An export that fails before its first row writes nothing
			// (not even the CSV header, still buffered); one that fails
			// later ends its output with the last whole row.
			if err == nil || rep != nil && rep.Rows > 0 {
				if ferr := w.Flush(); err == nil {
					err = ferr
				}
			}
			if err != nil {
				return exportError(t, format, rep, err)
			}
			if a.explaining() {
				return nil
			}
			if rep.UndeclaredRows > 0 {
				fmt.Fprintf(a.io.ErrOut, "adjl: warning: %s\n", undeclaredWarning(t, rep))
			}
			if !a.set.Quiet {
				fmt.Fprintf(a.io.ErrOut, "exported %s %s of %s in %s (%s items scanned, %s Scan %s)\n",
					commas(rep.Rows), english.Plural(int(rep.Rows), "row", "rows"), t.Name(), time.Since(start).Round(time.Millisecond),
					commas(rep.Scanned), commas(rep.Requests), english.Plural(int(rep.Requests), "request", "requests"))
			}
			return nil
		},
	}
	c.Flags().IntVar(&segments, "segments", 4, "parallel Scan segments (1 to 64)")
	return c
}

// exportError explains an export that stopped: a value the format cannot
// carry or a stored value not of its declared type is an input error (exit
// 2), whose hint says that stdout, which rows stream to, is incomplete.
func exportError(t rowfile.Target, format rowfile.Format, rep *ops.ExportReport, err error) error {
	var cell *rowfile.CellError
	var bad *ops.InputError
	switch {
	case errors.As(err, &cell):
		err = fmt.Errorf("export %s: %w", t.Name(), err)
	case errors.As(err, &bad):
	default:
		return err
	}
	rows := int64(0)
	if rep != nil {
		rows = rep.Rows
	}
	if rows == 0 {
		return withHint(err, "the export stopped before its first row: nothing was written to stdout")
	}
	what := fmt.Sprintf("the %s %s before it", commas(rows), english.Plural(int(rows), "row", "rows"))
	if format == rowfile.CSV {
		what = "the header and " + what
	}
	return withHint(err, fmt.Sprintf("the export stopped there: stdout holds only %s, an incomplete file", what))
}

// undeclaredWarning says which attributes the schema does not declare an
// export left out, and what importing its file would do without them: a
// row is the whole edge, so an import replaces an edge without them; an
// entity row updates the item's declared attributes, so only an import into
// another table loses them.
func undeclaredWarning(t rowfile.Target, rep *ops.ExportReport) string {
	const shown = 10
	names := rep.Undeclared
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	noun, after := "edge", "importing this file would replace those edges without them"
	if t.Relation == nil {
		noun, after = "item", "importing this file into another table would not recreate them"
	}
	n := int(rep.UndeclaredRows)
	return fmt.Sprintf("%s %s of %s %s attributes the schema does not declare (%s); the export left them out, and %s (declare them in the schema to export them)",
		commas(rep.UndeclaredRows), english.Plural(n, noun, noun+"s"), t.Name(), english.Plural(n, "holds", "hold"), list, after)
}
