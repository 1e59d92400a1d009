package cmd

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/cobra"
)

func (a *app) newTableCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "table",
		Short: "Create, describe, plan, apply or delete the schema's table",
		Example: withExamples(
			"adjl table create --wait",
			"adjl table describe",
			"adjl table plan --exit-code",
			"adjl table apply --yes",
			"adjl table delete --yes",
		),
		Args: groupArgs,
		RunE: groupRun,
	}
	c.AddCommand(a.newTableCreateCmd(), a.newTableDescribeCmd(), a.newTablePlanCmd(), a.newTableApplyCmd(), a.newTableDeleteCmd())
	return c
}

func (a *app) tableName() string {
	if a.sch == nil {
		return ""
	}
	return a.sch.Table.Name
}

func (a *app) newTableCreateCmd() *cobra.Command {
	var wait bool
	c := &cobra.Command{
		Use:   "create [--wait]",
		Short: "Create the table and its inverted index (idempotent)",
		Long: `Create the schema's table: PK/SK string keys and the inverted global index
(GSI1PK/GSI1SK) with the schema's projection and billing mode. If the table
already exists and matches the schema this succeeds and says so; if it differs
the command exits 4 and lists the differences. --wait returns only when the
table and its index are ACTIVE.`,
		Example: withExamples(
			"adjl table create",
			"adjl --schema examples/school.yaml table create --wait",
			"adjl table create --explain",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			created, err := st.CreateTable(c.Context(), wait)
			if created {
				err = warnSettingsUnsupported(a.io.ErrOut, err)
			}
			if err != nil || a.explaining() {
				return err
			}
			name := a.tableName()
			if a.set.Output != "table" {
				outcome := "unchanged"
				if created {
					outcome = "created"
				}
				return a.printer().object(orderedObject{{"table", name}, {"outcome", outcome}})
			}
			if created {
				_, err = fmt.Fprintf(a.io.Out, "table %s created\n", name)
			} else {
				_, err = fmt.Fprintf(a.io.Out, "table %s already exists and matches the schema\n", name)
			}
			return err
		},
	}
	c.Flags().BoolVar(&wait, "wait", false, "wait until the table and its index are ACTIVE")
	return c
}

func (a *app) newTableDescribeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "describe",
		Short: "Show the table: status, keys, index and projection, billing, item count",
		Long: `Show the table as the backend describes it, and whether it matches the schema.
-o json (or yaml) prints the backend's raw table description.`,
		Example: withExamples("adjl table describe", "adjl table describe -o json"),
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			desc, err := st.DescribeTable(c.Context())
			if err != nil || a.explaining() {
				return err
			}
			switch a.set.Output {
			case "json", "yaml":
				raw, _ := wireValue(reflect.ValueOf(desc))
				if a.set.Output == "yaml" {
					return writeYAML(a.io.Out, raw)
				}
				b, err := marshalIndent(raw, "")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(a.io.Out, b)
				return err
			}
			rec := describeRecord(desc)
			diffs := st.Diff(desc)
			match := "yes"
			if len(diffs) > 0 {
				match = "no: " + strings.Join(diffs, "; ")
			}
			rec = append(rec, field{"matches schema", match})
			return a.printer().object(rec)
		},
	}
}

// describeRecord summarises a table description for people.
func describeRecord(d *types.TableDescription) orderedObject {
	rec := orderedObject{
		{"table", aws.ToString(d.TableName)},
		{"status", string(d.TableStatus)},
		{"keys", keySchema(d.KeySchema)},
	}
	for _, g := range d.GlobalSecondaryIndexes {
		idx := aws.ToString(g.IndexName) + " (" + keySchema(g.KeySchema) + ")"
		if g.IndexStatus != "" {
			idx += " " + string(g.IndexStatus)
		}
		rec = append(rec, field{"index", idx})
		if g.Projection != nil {
			p := string(g.Projection.ProjectionType)
			if len(g.Projection.NonKeyAttributes) > 0 {
				p += " " + strings.Join(g.Projection.NonKeyAttributes, ",")
			}
			rec = append(rec, field{"projection", p})
		}
	}
	billing := string(types.BillingModeProvisioned)
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		billing = string(d.BillingModeSummary.BillingMode)
	}
	if billing == string(types.BillingModeProvisioned) && d.ProvisionedThroughput != nil {
		billing += fmt.Sprintf(" (read %d, write %d)",
			aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits))
	}
	rec = append(rec, field{"billing", billing})
	rec = append(rec, field{"items", strconv.FormatInt(aws.ToInt64(d.ItemCount), 10)})
	return rec
}

func keySchema(ks []types.KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = aws.ToString(k.AttributeName) + " " + strings.ToLower(string(k.KeyType))
	}
	return strings.Join(parts, ", ")
}

func (a *app) newTableDeleteCmd() *cobra.Command {
	var yes, wait bool
	c := &cobra.Command{
		Use:   "delete --yes",
		Short: "Delete the table and every item in it",
		Long:  "Delete the schema's table and all its items. There is no undo, so --yes is required.",
		Example: withExamples(
			"adjl table delete --yes",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if _, err := a.schema(); err != nil {
				return err
			}
			if !yes && !a.explaining() {
				return usagef(c, "refusing to delete table %s without --yes (this removes every item)", a.tableName())
			}
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			if err := st.DeleteTable(c.Context(), wait); err != nil || a.explaining() {
				var notFound *ops.TableNotFoundError
				if errors.As(err, &notFound) {
					return &tableAbsentError{err: notFound}
				}
				return err
			}
			if a.set.Output != "table" {
				return a.printer().object(orderedObject{{"table", a.tableName()}, {"outcome", "deleted"}})
			}
			_, err = fmt.Fprintf(a.io.Out, "table %s deleted\n", a.tableName())
			return err
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "confirm the deletion")
	c.Flags().BoolVar(&wait, "wait", false, "wait until the table is gone")
	return c
}
