package cmd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/spf13/cobra"
)

// withYes is the command line the user typed with --yes added: the
// same command, for real.
func withYes(args []string) string {
	return strings.Join(append([]string{"adjl"}, append(quoteArgs(args), "--yes")...), " ")
}

// reshardShownKeys bounds the per-key table of a reshard on a terminal or
// pipe: a graph with a million targets would otherwise print a million rows
// (-o json prints them all).
const reshardShownKeys = 20

// newReshardCmd is `adjl reshard RELATION --to M [--yes]`.
func (a *app) newReshardCmd() *cobra.Command {
	var to int
	var yes bool
	c := &cobra.Command{
		Use:     "reshard RELATION --to M [--yes]",
		GroupID: "admin",
		Short:   "Move a relation's edges to another shard count (admin migration; uses a Scan)",
		Long: `Move the existing edges of RELATION to a layout of M reverse-index shards
(GSI1PK = <to-key>#k, k = hash of the from-key mod M), then record M with the
table. Change shards: in the schema to M as well.

This is an admin migration, not a read: it must visit every edge of the
relation, so it is the one command that sends a Scan (filtered on the
relation's type). Every read adjl does stays a Query or GetItem.

Without --yes it is a dry run: it counts the edges and how many would move,
and writes nothing. With --yes, each edge is rewritten with a conditional
UpdateItem (only if it still exists with the GSI1PK that was read); progress
is recorded in the table's ADJL#META item after every page, so an interrupted
reshard resumes where it stopped when run again, and while it is unfinished
every other command refuses the relation. Edge counts per to-key are taken
through the index before and after the move and must agree before the new
shard count is recorded. Running it again is harmless. Stop other writers of
the relation while it runs.`,
		Example: withExamples(
			"adjl --schema examples/social.yaml reshard follow --to 8",
			"adjl --schema examples/social.yaml reshard follow --to 8 --yes",
			"adjl reshard follow --to 8 --yes -o json",
		),
		Args:              exactArgs("RELATION"),
		ValidArgsFunction: a.completeFirst(relationNames),
		RunE: func(c *cobra.Command, args []string) error {
			rel, err := a.relationArg(c, args[0])
			if err != nil {
				return err
			}
			if !c.Flags().Changed("to") {
				return usagef(c, "missing --to M (the new shard count, 1 to 64)")
			}
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			opt := ops.ReshardOptions{To: to, DryRun: !yes}
			if isTerminal(a.io.ErrOut) && !a.explaining() && !a.set.Quiet {
				opt.Progress = func(p ops.ReshardProgress) {
					fmt.Fprintf(a.io.ErrOut, "\r%s: %d edges scanned, %d moved", p.Phase, p.Scanned, p.Moved)
				}
			}
			rep, err := st.Reshard(c.Context(), rel, opt)
			if opt.Progress != nil {
				fmt.Fprintln(a.io.ErrOut)
			}
			if err != nil || a.explaining() {
				return err
			}
			if rel.Shards != to {
				fmt.Fprintf(a.notes(), "note: the schema gives %s shards: %d; set shards: %d in %s, or adjl will refuse the relation\n",
					rel.Name, rel.Shards, to, a.schemaPath)
			}
			return a.printReshard(rep)
		},
	}
	c.Flags().IntVar(&to, "to", 0, "the new shard count `M` (1 to 64; 1 means unsharded)")
	c.Flags().BoolVar(&yes, "yes", false, "move the edges (without it: a dry run that only counts)")
	return c
}

func (a *app) printReshard(rep *ops.ReshardReport) error {
	if a.set.Output != "table" {
		keys := make([]any, len(rep.Keys))
		for i, k := range rep.Keys {
			keys[i] = orderedObject{{"key", k.Key}, {"before", k.Before}, {"after", k.After}}
		}
		return a.printer().object(orderedObject{
			{"relation", rep.Relation}, {"from", rep.From}, {"to", rep.To},
			{"dryRun", rep.DryRun}, {"resumed", rep.Resumed},
			{"edges", rep.Edges}, {"toMove", rep.ToMove}, {"moved", rep.Moved}, {"vanished", rep.Vanished},
			{"before", rep.Before}, {"after", rep.After}, {"keys", keys},
		})
	}
	w := a.io.Out
	head := []string{"to-key", "before"}
	if rep.DryRun {
		fmt.Fprintf(w, "dry run: relation %s has %d %s over %d to-%s; %d would move from %d to %d shards\n",
			rep.Relation, rep.Edges, english.Plural(rep.Edges, "edge", "edges"), len(rep.Keys), english.Plural(len(rep.Keys), "key", "keys"),
			rep.ToMove, rep.From, rep.To)
	} else {
		resumed := ""
		if rep.Resumed {
			resumed = " (resumed)"
		}
		fmt.Fprintf(w, "resharded %s from %d to %d shards%s: %d %s, %d moved", rep.Relation, rep.From, rep.To, resumed,
			rep.Edges, english.Plural(rep.Edges, "edge", "edges"), rep.Moved)
		if rep.Vanished > 0 {
			fmt.Fprintf(w, ", %d unlinked meanwhile", rep.Vanished)
		}
		fmt.Fprintln(w)
		head = append(head, "after")
	}
	keys := append([]ops.KeyCount(nil), rep.Keys...)
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].Before > keys[j].Before })
	var rows [][]string
	for i, k := range keys {
		if i == reshardShownKeys {
			break
		}
		row := []string{k.Key, strconv.Itoa(k.Before)}
		if !rep.DryRun {
			row = append(row, strconv.Itoa(k.After))
		}
		rows = append(rows, row)
	}
	if err := printTable(a.io, head, rows); err != nil {
		return err
	}
	if n := len(keys) - reshardShownKeys; n > 0 {
		fmt.Fprintf(w, "... and %d more to-%s (-o json lists them all)\n", n, english.Plural(n, "key", "keys"))
	}
	if rep.DryRun {
		fmt.Fprintf(w, "edges before: %d\n", rep.Before)
		fmt.Fprintf(a.notes(), "hint: run `%s` to move them\n", withYes(a.args))
		return nil
	}
	_, err := fmt.Fprintf(w, "edges before: %d, after: %d; table now records %d shards for %s\n", rep.Before, rep.After, rep.To, rep.Relation)
	return err
}
