package cmd

import (
	"fmt"
	"strconv"
	"time"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/spf13/cobra"
)

// countersShown bounds the table of wrong counters on a terminal or pipe
// (-o json lists them all).
const countersShown = 50

func (a *app) newCountersCmd() *cobra.Command {
	c := &cobra.Command{
		Use:     "counters verify|repair [RELATION]",
		GroupID: "admin",
		Short:   "Check that every counter equals the edges it counts, and repair those that do not",
		Long: `Counters (courseCount, followerCount, ...) change in the same transaction as
their edges, so they stay exact; a counter written by hand, or edges written
around adjl, make them drift. verify proves they are exact; repair fixes them.

Both read the whole table once with a parallel Scan (keys, type, counters
and their changes attributes only) to find every counter and every key owed
one, then recount each counter that looks wrong with Select COUNT Queries,
because the Scan is no snapshot while others write. Every link and unlink
also adds 1 to the counter's changes attribute (ADJL#changes#<counter>,
which output leaves out), and a count is taken only when the counter and
that attribute held the same values before and after it. A counter that is
no whole number, or whose changes attribute a hand edit left holding no
number (links and unlinks of it are then refused), is wrong too. repair
writes the count with a condition that both are unchanged since read, and
recounts when a link or unlink got there first, so it can run while others
write; a counter that moved at each of 8 attempts ends it with exit 5, to
be repaired once writes settle. Limits: a wrong
counter whose edges change while the Scan passes can look exact to it (run
verify again once writes settle), and in the inverted layout, which keeps
no changes attribute, links and unlinks by others that cancel out on a
counter while it is recounted can leave it off.`,
		Example: withExamples("adjl counters verify", "adjl counters verify enrollment -o json", "adjl counters repair"),
		Args:    groupArgs,
		RunE:    groupRun,
	}
	for _, repair := range []bool{false, true} {
		var segments int
		verb, short := "verify", "Compare every stored counter with its edges (exit 0 all exact, 1 with a table of those that are not)"
		if repair {
			verb, short = "repair", "Set every wrong counter to its count, with conditional writes (others may write meanwhile; see adjl counters --help)"
		}
		sub := &cobra.Command{
			Use:               verb + " [RELATION]",
			Short:             short,
			Example:           withExamples("adjl counters "+verb, "adjl counters "+verb+" enrollment"),
			Args:              cobra.MaximumNArgs(1),
			ValidArgsFunction: a.completeFirst(relationNames),
			RunE: func(c *cobra.Command, args []string) error {
				opt := ops.VerifyOptions{Repair: repair, Segments: segments}
				if len(args) == 1 {
					rel, err := a.relationArg(c, args[0])
					if err != nil {
						return err
					}
					opt.Relation = rel
				}
				if segments < 1 || segments > 64 {
					return usagef(c, "--segments must be between 1 and 64, not %d", segments)
				}
				opt.IndexSettle, opt.BatchFixes = a.recountSettings()
				st, err := a.storeFor(c.Context())
				if err != nil {
					return err
				}
				defer a.tuneGCForBulk()()
				prog := a.newProgress(a.set.Quiet)
				prog.phase("scan", "items", -1)
				phase := "scan"
				opt.Progress = func(p ops.VerifyProgress) {
					if p.Phase != phase {
						phase = p.Phase
						prog.phase("recount", "counters", int64(p.Suspects))
					}
					if p.Phase == "scan" {
						prog.set(p.Items)
					} else {
						prog.set(int64(p.Checked))
					}
				}
				start := time.Now()
				rep, err := st.VerifyCounters(c.Context(), opt)
				prog.finish()
				if err != nil || a.explaining() {
					return err
				}
				return a.printCounterReport(rep, repair, time.Since(start))
			},
		}
		sub.Flags().IntVar(&segments, "segments", 4, "parallel Scan segments (1 to 64)")
		c.AddCommand(sub)
	}
	return c
}

func (a *app) printCounterReport(rep *ops.VerifyReport, repair bool, took time.Duration) error {
	var requests int64
	for _, n := range rep.Requests {
		requests += n
	}
	if a.set.Output != "table" {
		wrong := make([]any, len(rep.Wrong))
		for i, w := range rep.Wrong {
			rec := orderedObject{{"relation", w.Relation}, {"entity", w.Key}, {"counter", w.Counter}, {"stored", w.Stored}}
			if w.StoredValue != "" {
				// stored stays a number (the sum of the parts that are);
				// the text says what is there instead.
				rec = append(rec, field{"storedValue", w.StoredValue}, field{"storedProblem", w.StoredProblem})
			}
			rec = append(rec, field{"actual", w.Actual})
			if repair {
				rec = append(rec, field{"fixed", w.Fixed})
			}
			wrong[i] = rec
		}
		if err := a.printer().object(orderedObject{{"counters", rep.Counters}, {"edges", rep.Edges}, {"items", rep.Items},
			{"wrong", wrong}, {"seconds", took.Seconds()}, {"requests", rep.Requests}}); err != nil {
			return err
		}
	} else {
		w := a.io.Out
		if len(rep.Wrong) > 0 {
			head := []string{"entity", "counter", "stored", "actual"}
			if repair {
				head = append(head, "fixed")
			}
			var rows [][]string
			for i, c := range rep.Wrong {
				if i == countersShown {
					break
				}
				row := []string{c.Key, c.Counter, storedCell(c), strconv.FormatInt(c.Actual, 10)}
				if repair {
					row = append(row, strconv.FormatBool(c.Fixed))
				}
				rows = append(rows, row)
			}
			if err := printTable(a.io, head, rows); err != nil {
				return err
			}
			if n := len(rep.Wrong) - countersShown; n > 0 {
				fmt.Fprintf(w, "... and %d more (-o json lists them all)\n", n)
			}
		}
		state := "all exact"
		switch {
		case repair && len(rep.Wrong) > 0:
			state = fmt.Sprintf("%d repaired", len(rep.Wrong))
		case len(rep.Wrong) > 0:
			state = fmt.Sprintf("%d wrong", len(rep.Wrong))
		}
		fmt.Fprintf(w, "%s %s over %s %s (%s items scanned, %s %s, %s): %s\n",
			commas(int64(rep.Counters)), english.Plural(rep.Counters, "counter", "counters"), commas(rep.Edges), english.Plural(int(rep.Edges), "edge", "edges"),
			commas(rep.Items), commas(requests), english.Plural(int(requests), "request", "requests"), took.Round(time.Millisecond), state)
	}
	if len(rep.Wrong) > 0 && !repair {
		return &statusError{code: ExitFalse}
	}
	return nil
}

// storedCell is a wrong counter's stored value in the table: the number, or
// what is stored instead and why it is no count ("10.5 (not a whole
// number)"), its text cut to storedShown characters.
func storedCell(c ops.CounterResult) string {
	if c.StoredValue == "" {
		return strconv.FormatInt(c.Stored, 10)
	}
	v := c.StoredValue
	if r := []rune(v); len(r) > storedShown {
		v = string(r[:storedShown]) + "..."
	}
	return fmt.Sprintf("%s (%s)", v, c.StoredProblem)
}

// storedShown bounds the stored text of a counter in the table.
const storedShown = 40
