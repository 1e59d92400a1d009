package cmd

import (
	"errors"
	"fmt"

	"github.com/adjl/adjl/infer"
	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// defaultSample is how many items schema infer reads unless --sample says.
const defaultSample = 1000

func (a *app) newSchemaInferCmd() *cobra.Command {
	var sample int
	c := &cobra.Command{
		Use:   "infer TABLE [--sample N]",
		Short: "Propose a schema for an existing table from a sample of its items (Scan)",
		Long: `Read an existing table's description and a sample of its items, and print a
proposed schema: the key names and index layout (generic, or inverted: the
index keyed on the table's sort and partition keys), the entity prefixes
(items whose partition and sort keys are equal), the relations seen (edge
prefix, from and to prefixes, attributes, counters) and attribute kinds.
It is a starting point: check the names, add verbs, save it as adjl.yaml and
run adjl schema validate and adjl table describe. The proposal is a schema
file, YAML whatever -o says.

It reads with Scan: with reshard, one of the only two adjl commands that
do. --sample bounds it to N items (default 1000), read a page at a time,
eventually consistent: about N x item size / 8 KB read units. Nothing is
written. Notes on what was guessed or left out go to stderr.`,
		Example: withExamples(
			"adjl schema infer legacy",
			"adjl schema infer legacy --sample 200 > adjl.yaml",
			"adjl --endpoint aws --region eu-west-1 schema infer orders --explain",
		),
		Args: exactArgs("TABLE"),
		RunE: func(c *cobra.Command, args []string) error {
			if sample < 1 {
				return usagef(c, "--sample must be at least 1, not %d", sample)
			}
			st, err := a.openStore(c.Context(), &schema.Schema{Table: schema.Table{Name: args[0]}})
			if err != nil {
				return err
			}
			desc, items, err := st.Sample(c.Context(), sample)
			var nf *ops.TableNotFoundError
			if errors.As(err, &nf) {
				return &noTableToReadError{err: nf}
			}
			if err != nil || a.explaining() {
				return err
			}
			p, err := infer.Propose(desc, items)
			if err != nil {
				return fmt.Errorf("table %s: %w", args[0], err)
			}
			fmt.Fprintf(a.io.ErrOut, "read %d %s of table %s with Scan (schema infer and reshard are the only adjl commands that Scan)\n",
				len(items), english.Plural(len(items), "item", "items"), args[0])
			for _, n := range p.Notes {
				fmt.Fprintf(a.io.ErrOut, "note: %s\n", n)
			}
			out := p.YAML()
			if _, err := schema.Parse("proposal", out); err != nil {
				fmt.Fprintf(a.io.ErrOut, "note: the proposal does not validate as it is; edit it where these say:\n%v\n", err)
			}
			_, err = a.io.Out.Write(out)
			return err
		},
	}
	c.Flags().IntVar(&sample, "sample", defaultSample, "read at most N items")
	return c
}
