package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// importChunkRows is the size of a resume chunk: a resume writes at most the
// chunks in flight again (a few thousand rows), and the journal gets a line
// per chunk.
const importChunkRows = 1000

// importOpts are the flags of `adjl import`.
type importOpts struct {
	format      string
	unlink      bool
	skipInvalid bool
	rejects     string
	resume      bool
	workers     int
	maxErrors   int
	exclusive   bool
}

func (a *app) newImportCmd() *cobra.Command {
	var o importOpts
	c := &cobra.Command{
		Use:     "import NAME [FILE|-] [--format csv|ndjson]",
		GroupID: "data",
		Short:   "Load a relation's edges or an entity's items from CSV or NDJSON",
		Long: `Load a file into NAME: a relation (one edge per row: from,to,<edge attributes>)
or an entity (one item per row: id,<attributes>). CSV needs a header line and
may quote fields as RFC 4180 does; NDJSON is one object per line
({"from":"STU#a91","to":"CRS#math204","grade":"A"}). The format comes from the
extension (.csv, .ndjson, .jsonl) or --format (which wins over the extension,
with a note). FILE - (or none) reads stdin: NDJSON when its first character
that is not blank is {, else CSV, unless --format says.
Keys may be bare or prefixed and are checked as the relation verbs check them;
values are typed by the schema.

The whole file is checked first: every bad line is printed as FILE:LINE:
message and the import exits 2 with nothing written. --skip-invalid imports
the good lines instead, writes the bad ones to --rejects FILE (as they are
in the input, so the file can be fixed and imported again) and exits 8.
--rejects must not be the input file. A quote left open to the end of a CSV
file is refused even with --skip-invalid: the lines after it are one field.

Edges are written with BatchWriteItem, 25 to a request, by --workers writers;
throttled or unprocessed writes are retried with backoff. A row is the edge:
an existing edge is replaced by its row (so importing a file twice changes
nothing). --unlink deletes the listed edges instead; an absent one changes
nothing. Then the counters of every entity the file names are recounted
(Select COUNT) and corrected with conditional writes, so they are exact
whatever they held before.

An interrupted import (Ctrl-C, a kill, a lost connection) can be run again:
with --resume it skips the rows an earlier run finished, recorded in
.adjl/imports/; either way the result is that of one clean run. A run that
fails before writing a row leaves no record.`,
		Example: withExamples(
			"adjl import enrollment enrollments.csv",
			"adjl import student students.ndjson",
			"adjl import enrollment dropped.csv --unlink",
			"adjl import enrollment big.csv --skip-invalid --rejects bad.csv",
			"adjl import follow - --format csv --resume < follows.csv",
			"adjl export enrollment | adjl import enrollment -",
		),
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usagef(c, "missing NAME (a relation or an entity of the schema)")
			case len(args) > 2:
				return usagef(c, "unexpected argument %q (want NAME [FILE|-])", args[2])
			}
			return nil
		},
		ValidArgsFunction: a.completeNames,
		RunE: func(c *cobra.Command, args []string) error {
			file := "-"
			if len(args) == 2 {
				file = args[1]
			}
			return a.importRun(c, args[0], file, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "", "input format: csv or ndjson (default: from the file's extension)")
	f.BoolVar(&o.unlink, "unlink", false, "delete the listed edges instead of writing them (relations only)")
	f.BoolVar(&o.skipInvalid, "skip-invalid", false, "import the valid lines and reject the others (exit 8)")
	f.StringVar(&o.rejects, "rejects", "", "with --skip-invalid, write the rejected lines to `FILE` (CSV keeps the header)")
	f.BoolVar(&o.resume, "resume", false, "skip the rows an interrupted run of the same import already wrote")
	f.IntVar(&o.workers, "workers", 8, "concurrent writers")
	f.IntVar(&o.maxErrors, "max-errors", 100, "bad lines printed at most (all are counted)")
	f.BoolVar(&o.exclusive, "exclusive", false, "nobody else writes the table meanwhile: write counters 25 to a request, unconditionally")
	c.RegisterFlagCompletionFunc("format", fixedCompletion("csv", "ndjson"))
	return c
}

func (a *app) importRun(c *cobra.Command, name, file string, o importOpts) error {
	ctx := c.Context()
	t, err := a.targetArg(c, name)
	if err != nil {
		return err
	}
	switch {
	case o.unlink && t.Relation == nil:
		return usagef(c, "--unlink applies to relations; %s is an entity", name)
	case o.rejects != "" && !o.skipInvalid:
		return usagef(c, "--rejects needs --skip-invalid (without it a bad line stops the import)")
	case o.workers < 1 || o.workers > 256:
		return usagef(c, "--workers must be between 1 and 256, not %d", o.workers)
	case o.maxErrors < 0:
		return usagef(c, "--max-errors must not be negative")
	}
	t.Unlink = o.unlink
	in, err := a.importInputOf(c, file, o.format)
	if err != nil {
		return err
	}
	defer in.close()
	if o.rejects != "" {
		if err := rejectsNotInput(o.rejects, in); err != nil {
			return err
		}
	}
	start := time.Now()
	res, err := a.checkInput(in, t, o)
	if err != nil {
		return err
	}
	res.took = time.Since(start)
	if res.bad > 0 && !o.skipInvalid {
		return &usageError{err: fmt.Errorf("%s has %d invalid %s; nothing was written", in.name, res.bad, english.Plural(res.bad, "line", "lines")),
			hint: "fix them, or import the valid lines with --skip-invalid --rejects FILE"}
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	if len(res.entities) > 0 && !a.explaining() {
		if err := a.requireEntities(ctx, st, t.Relation, in, res, o); err != nil {
			return err
		}
	}
	defer a.tuneGCForBulk()()

	// Resume: the journal of the same import says how many chunks are done.
	key := a.importKey(t, in, res, o)
	var prev journalState
	if !a.explaining() {
		prev = readJournal(key, importChunkRows)
		if prev.found && !o.resume {
			fmt.Fprintf(a.notes(), "note: an earlier run of this import was interrupted after %s rows; starting again (--resume skips them)\n", commas(int64(min(prev.done*importChunkRows, res.rows))))
			prev.done = 0
		}
	}
	var journal *importJournal
	if !a.explaining() {
		journal = newJournal(key, importChunkRows)
		if prev.fresh != ops.FreshUnknown {
			journal.freshness(prev.fresh == ops.FreshYes)
		}
		if prev.counting {
			journal.counting()
		}
		if prev.done > 0 {
			journal.done(prev.done)
		}
	}
	skip := prev.done

	// Write.
	f, err := in.open()
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := rowfile.NewReader(f, in.name, in.format, t)
	if err != nil {
		return lineErr(err)
	}
	src := func() (rowfile.Row, error) {
		for {
			row, err := r.Next()
			var le *rowfile.LineError
			if errors.As(err, &le) && !le.Fatal {
				continue // reported by the check
			}
			return row, err
		}
	}
	prog := a.newProgress(a.set.Quiet)
	what := "import " + t.Name()
	if o.unlink {
		what = "unlink " + t.Name()
	}
	prog.phase(what, "rows", int64(res.rows))
	counting := false
	opt := ops.ImportOptions{
		Unlink: o.unlink, Workers: o.workers, ChunkRows: importChunkRows, SkipChunks: skip,
		// Called from one goroutine at a time, writes before counters.
		Progress: func(p ops.ImportProgress) {
			if p.Phase == "counters" {
				if !counting {
					counting = true
					prog.phase("counters", "counters", int64(p.Total))
				}
				prog.set(int64(p.Counters))
				return
			}
			prog.set(int64(p.Rows))
		},
	}
	opt.IndexSettle, opt.BatchFixes = a.recountSettings()
	opt.ExpectedRows, opt.Fresh, opt.CountedBefore = res.rows, prev.fresh, prev.counting
	opt.Exclusive = o.exclusive || a.be != nil && a.be.exclusive
	if journal != nil {
		opt.ChunksDone, opt.FreshChecked = journal.done, journal.freshness
		if !prev.counting {
			opt.Counting = journal.counting
		}
	}
	var rel *schema.Relation
	var ent *schema.Entity
	if t.Relation != nil {
		rel = t.Relation
	} else {
		ent = t.Entity
	}
	rep, err := st.Import(ctx, rel, ent, src, opt)
	prog.finish()
	// Rows may have been written when this run sent a write (its answer may
	// be lost after it applied) or an earlier run wrote some: only then is
	// there anything for a rerun to finish.
	wrote := skip > 0 || rep != nil && rep.SentWrites()
	if journal != nil {
		switch {
		case err == nil:
			journal.close(journalFinished)
		case wrote:
			journal.close(journalInterrupted)
		default:
			journal.close(journalUnused)
		}
		if journal.err != nil {
			fmt.Fprintf(a.notes(), "note: %v; a rerun after an interruption will write every row again\n", journal.err)
		}
	}
	if err != nil || a.explaining() {
		resumable := journal != nil && journal.err == nil && wrote
		if err != nil && resumable && !errors.Is(err, context.Canceled) {
			err = withHint(err, "run the same command with --resume to finish it")
		}
		if errors.Is(err, context.Canceled) {
			if resumable {
				fmt.Fprintln(a.io.ErrOut, "import interrupted; run the same command with --resume to finish it")
			} else {
				fmt.Fprintln(a.io.ErrOut, "import interrupted before it sent any write: nothing to resume")
			}
		}
		return err
	}
	if err := a.printImport(t, in, rep, res, o, time.Since(start)); err != nil {
		return err
	}
	if res.bad > 0 {
		return &statusError{code: ExitRejected}
	}
	return nil
}

// requireEntities refuses an import into a relation with requireEntities
// when an entity the file names has no item, as each link would be refused
// (exit 1): every such entity is printed as FILE:LINE of the first line
// naming it (up to --max-errors), and nothing is written, --skip-invalid or
// not. The entities are read before the edges are written, not in the
// edges' requests: one deleted meanwhile is not seen.
func (a *app) requireEntities(ctx context.Context, st *ops.Store, rel *schema.Relation, in *importInput, res *checkResult, o importOpts) error {
	missing, err := st.MissingEntities(ctx, res.entities)
	if err != nil || len(missing) == 0 {
		return err
	}
	var kinds []string
	for i, k := range missing {
		if i < o.maxErrors {
			fmt.Fprintf(a.io.ErrOut, "%s:%d: %s has no item: relation %s requires both entities to exist (requireEntities)\n", in.name, res.entityLine[k], k, rel.Name)
		}
		if ent, _, err := a.sch.ResolveKey(k); err == nil && !slices.Contains(kinds, ent.Name) {
			kinds = append(kinds, ent.Name)
		}
	}
	if n := len(missing) - o.maxErrors; n > 0 {
		fmt.Fprintf(a.io.ErrOut, "... and %d more %s with no item (--max-errors %d)\n", n, english.Plural(n, "entity", "entities"), o.maxErrors)
	}
	return withHint(&missingEntitiesError{msg: fmt.Sprintf("%s names %d %s with no item; nothing was written", in.name, len(missing), english.Plural(len(missing), "entity", "entities"))},
		fmt.Sprintf("create them first with adjl put or adjl import (%s), then run this import again", strings.Join(kinds, ", ")))
}

// missingEntitiesError is an import refused for entities with no item: like
// a link refused for one, it exits 1.
type missingEntitiesError struct{ msg string }

func (e *missingEntitiesError) Error() string { return e.msg }
func (e *missingEntitiesError) Unwrap() error { return ops.ErrItemNotFound }

// rejectsNotInput refuses a --rejects path that is the input file, by
// another name or a link too: opening it for writing would empty the input.
func rejectsNotInput(rejects string, in *importInput) error {
	rs, err := os.Stat(rejects)
	if err != nil {
		return nil // not there yet: not the input
	}
	is, err := in.stat()
	if err != nil || !os.SameFile(rs, is) {
		return nil
	}
	what := "the input file"
	if rejects != in.name {
		what = "the input file " + in.name
	}
	return &usageError{err: fmt.Errorf("--rejects %s is %s; writing the rejected lines there would overwrite it; nothing was written", rejects, what),
		hint: "give --rejects another path, such as " + rejectsSuggestion(in.name)}
}

// rejectsSuggestion is a rejects file name next to the input: x.csv gives
// x.rejects.csv.
func rejectsSuggestion(input string) string {
	ext := filepath.Ext(input)
	return strings.TrimSuffix(input, ext) + ".rejects" + ext
}

// recountSettings tune counter recounts for the backend. On DynamoDB, GSI1
// is updated asynchronously: reverse-side counts are repeated until two a
// second apart agree. On adjl's engine (in process, or `adjl local serve`,
// known by its answers) counter fixes go 100 to a TransactWriteItems, one
// disk commit instead of 100; elsewhere one UpdateItem each, in parallel: a
// transactional write costs twice the capacity on DynamoDB, and moto copies
// every table it holds for each transaction (seconds per request).
func (a *app) recountSettings() (settle time.Duration, batch func() bool) {
	if a.set.Endpoint == "aws" {
		settle = time.Second
	}
	return settle, func() bool { return a.set.Endpoint == "local" || a.be != nil && a.be.servedByAdjl() }
}

// hintedError adds a hint to an error without changing its exit code.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

func withHint(err error, h string) error { return &hintedError{err: err, hint: h} }

func (a *app) printImport(t rowfile.Target, in *importInput, rep *ops.ImportReport, res *checkResult, o importOpts, took time.Duration) error {
	rate := float64(rep.Rows) / max(took.Seconds(), 1e-9)
	corrected := 0
	for _, f := range rep.Fixed {
		if f.Fixed {
			corrected++
		}
	}
	if a.set.Output != "table" {
		rec := orderedObject{{"name", t.Name()}, {"file", in.name}, {"unlink", o.unlink},
			{"rows", rep.Rows}, {"skipped", rep.Skipped}, {"written", rep.Written},
			// resumed: written is this run's; a relation's created/unchanged
			// (deleted/absent) cover the earlier run's rows too.
			{"resumed", rep.Skipped > 0}}
		if t.Relation != nil {
			if rep.Created >= 0 {
				k1, k2 := "created", "unchanged"
				if o.unlink {
					k1, k2 = "deleted", "absent"
				}
				rec = append(rec, field{k1, rep.Created}, field{k2, rep.Unchanged})
			}
			rec = append(rec, field{"counters", rep.Counters}, field{"corrected", corrected})
		} else {
			rec = append(rec, field{"created", rep.Created}, field{"updated", rep.Updated}, field{"unchanged", rep.Unchanged})
		}
		rec = append(rec, field{"rejected", res.bad}, field{"seconds", took.Seconds()}, field{"rowsPerSecond", int64(rate)},
			field{"phases", orderedObject{{"check", res.took.Seconds()}, {"write", rep.WriteTime.Seconds()}, {"counters", rep.CounterTime.Seconds()}}},
			field{"requests", rep.Requests})
		return a.printer().object(rec)
	}
	w := a.io.Out
	verb := "imported"
	if o.unlink {
		verb = "unlinked"
	}
	fmt.Fprintf(w, "%s %s from %s: %s %s in %s (%s rows/s)\n", verb, t.Name(), in.name, commas(int64(rep.Rows)), english.Plural(rep.Rows, "row", "rows"),
		took.Round(time.Millisecond), commas(int64(rate)))
	// After a resume, written is this run's; new and already there come
	// from the counters, which the earlier run had not updated yet.
	thisRun, bothRuns := "", ""
	if rep.Skipped > 0 {
		fmt.Fprintf(w, "resumed: %s rows an earlier run had written were skipped\n", commas(int64(rep.Skipped)))
		thisRun, bothRuns = " (this run)", " (both runs)"
	}
	switch {
	case t.Entity != nil:
		fmt.Fprintf(w, "items: %s written: %s created, %s updated, %s unchanged\n", commas(int64(rep.Written)),
			commas(int64(rep.Created)), commas(int64(rep.Updated)), commas(int64(rep.Unchanged)))
	case o.unlink && rep.Created >= 0:
		fmt.Fprintf(w, "edges: %s deleted, %s absent%s\n", commas(int64(rep.Created)), commas(int64(rep.Unchanged)), bothRuns)
	case o.unlink:
		fmt.Fprintf(w, "edges: %s deletes sent%s\n", commas(int64(rep.Written)), thisRun)
	case rep.Created >= 0:
		fmt.Fprintf(w, "edges: %s written%s: %s new, %s already there%s\n", commas(int64(rep.Written)), thisRun,
			commas(int64(rep.Created)), commas(int64(rep.Unchanged)), bothRuns)
	default:
		fmt.Fprintf(w, "edges: %s written%s\n", commas(int64(rep.Written)), thisRun)
	}
	if t.Relation != nil && rep.Counters > 0 {
		fmt.Fprintf(w, "counters: %s recounted, %s corrected\n", commas(int64(rep.Counters)), commas(int64(corrected)))
	}
	if res.bad > 0 {
		where := ""
		if o.rejects != "" {
			where = " (written to " + o.rejects + ")"
		}
		fmt.Fprintf(w, "rejected: %s invalid %s%s\n", commas(int64(res.bad)), english.Plural(res.bad, "line", "lines"), where)
	}
	return nil
}
