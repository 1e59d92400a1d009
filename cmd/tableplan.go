package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/spf13/cobra"
)

func (a *app) newTablePlanCmd() *cobra.Command {
	var exitCode bool
	c := &cobra.Command{
		Use:   "plan [--exit-code]",
		Short: "Compare the live table with the schema and say what apply would change",
		Long: `Compare the live table - keys, billing and throughput, the inverted index,
TTL, tags, deletion protection, point-in-time recovery, and the shard counts
adjl recorded in it - with the schema, and print each difference with what
adjl table apply does about it. Settings the schema leaves out are not
compared. Nothing is changed.

With --exit-code the command exits 1 when there are differences (like git diff
--exit-code), for CI; without it, 0 whenever the comparison ran.`,
		Example: withExamples(
			"adjl table plan",
			"adjl --endpoint aws --region eu-west-1 table plan --exit-code",
			"adjl table plan -o json",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p, err := a.tablePlan(c)
			if err != nil {
				return err
			}
			if err := a.printPlan(p); err != nil {
				return err
			}
			if exitCode && len(p.Changes) > 0 {
				return &statusError{code: ExitFalse}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when the table differs from the schema")
	return c
}

func (a *app) newTableApplyCmd() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "apply [--yes]",
		Short: "Change the live table in place to match the schema (dry run without --yes)",
		Long: `Make the changes adjl table plan lists that DynamoDB allows on a live table:
billing mode and provisioned units, the index's projection (by deleting the
index and creating it again, which DynamoDB backfills from the items), a
renamed index (created beside the old one, which is then deleted), TTL, tags,
deletion protection and point-in-time recovery. A missing table is created.
Each request is followed by a wait until the table and every index are ACTIVE;
apply returns when the table matches the schema.

What DynamoDB cannot change in place - the key schema, an index's keys - is
refused with the way forward, and so is a shard-count change (adjl reshard
moves the edges); while the plan holds any of these, apply changes nothing
(exit 4). Settings the backend does not implement are skipped with a note.

Without --yes it is a dry run: it prints the plan and changes nothing.`,
		Example: withExamples(
			"adjl table apply",
			"adjl table apply --yes",
		),
		Args:        noArgs,
		Annotations: map[string]string{createsTablesAnnotation: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			p, err := a.tablePlan(c)
			if err != nil {
				return err
			}
			st := a.store
			if len(p.Changes) == 0 {
				return a.printPlan(p)
			}
			if blocking := p.Blocking(); len(blocking) > 0 || !yes {
				if err := a.printPlan(p); err != nil {
					return err
				}
				if len(blocking) > 0 {
					return st.ApplyTable(c.Context(), p, nil) // refused whole: nothing is sent
				}
				fmt.Fprintln(a.notes(), "dry run: nothing changed")
				fmt.Fprintln(a.notes(), "hint: rerun with --yes to apply")
				return nil
			}
			if a.set.Output == "table" {
				if err := a.printPlan(p); err != nil {
					return err
				}
			}
			err = st.ApplyTable(c.Context(), p, func(step string) {
				fmt.Fprintf(a.notes(), "applying: %s\n", step)
			})
			if err != nil {
				return err
			}
			for _, ch := range p.Changes {
				if ch.Kind == ops.ChangeUnsupported {
					fmt.Fprintf(a.notes(), "note: %s was not applied: %s\n", ch.Field, ch.Action)
				}
			}
			if a.set.Output != "table" {
				return a.printer().object(append(planRecord(p), field{"applied", true}))
			}
			_, err = fmt.Fprintf(a.io.Out, "table %s now matches the schema\n", p.Table)
			return err
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "make the changes (without it: a dry run that prints the plan)")
	return c
}

// tablePlan opens the backend and plans. --explain is refused: a plan is
// the answer to "what would be sent", and it needs the live table to read.
func (a *app) tablePlan(c *cobra.Command) (*ops.TablePlan, error) {
	if a.explaining() {
		return nil, usagef(c, "--explain does not apply to %s: it reads the live table, and the plan itself says what apply sends", c.CommandPath())
	}
	st, err := a.storeFor(c.Context())
	if err != nil {
		return nil, err
	}
	return st.PlanTable(c.Context())
}

func planRecord(p *ops.TablePlan) orderedObject {
	changes := make([]any, len(p.Changes))
	for i, ch := range p.Changes {
		changes[i] = orderedObject{{"field", ch.Field}, {"has", ch.Has}, {"wants", ch.Wants},
			{"kind", string(ch.Kind)}, {"action", ch.Action}, {"difference", ch.String()}}
	}
	steps := make([]any, 0, len(p.Steps()))
	for _, s := range p.Steps() {
		steps = append(steps, s)
	}
	return orderedObject{{"table", p.Table}, {"exists", p.Exists}, {"status", p.Status},
		{"changes", changes}, {"steps", steps}}
}

// printPlan prints each difference and, under it, what apply does.
func (a *app) printPlan(p *ops.TablePlan) error {
	if a.set.Output != "table" {
		return a.printer().object(planRecord(p))
	}
	w := a.io.Out
	if len(p.Changes) == 0 {
		_, err := fmt.Fprintf(w, "table %s matches the schema: nothing to change\n", p.Table)
		return err
	}
	fmt.Fprintf(w, "table %s: %d %s\n", p.Table, len(p.Changes), english.Plural(len(p.Changes), "difference", "differences"))
	for _, ch := range p.Changes {
		fmt.Fprintf(w, "  %s\n    %s %s\n", ch.String(), changeVerb(ch.Kind), ch.Action)
	}
	return nil
}

func changeVerb(k ops.ChangeKind) string {
	switch k {
	case ops.ChangeRefused, ops.ChangeReshard:
		return "cannot apply:"
	case ops.ChangeUnsupported:
		return "not applied:"
	}
	return "apply:"
}

// warnSettingsUnsupported reports settings a new table was created without;
// the table exists, so the command still succeeds.
func warnSettingsUnsupported(w io.Writer, err error) error {
	var su *ops.SettingsUnsupportedError
	if !errors.As(err, &su) {
		return err
	}
	fmt.Fprintf(w, "warning: %v\n", su)
	return nil
}
