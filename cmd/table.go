package cmd

import (
	"errors"
	"fmt"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/tabledef"
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
		Long: `Create the schema's table: string keys named by the schema (PK/SK unless
table.keys says otherwise) and the inverted global index in the schema's
layout - generic, keyed GSI1PK/GSI1SK (or index.keys), or inverted, keyed on
the table's SK/PK - with the schema's projection and billing mode. If the table
already exists and matches the schema this succeeds and says so; if it differs
the command exits 4 and lists the differences. --wait returns only when the
table and its index are ACTIVE.`,
		Example: withExamples(
			"adjl table create",
			"adjl --schema examples/school.yaml table create --wait",
			"adjl table create --explain",
		),
		Args:        noArgs,
		Annotations: map[string]string{createsTablesAnnotation: "true"},
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
			if created {
				return a.printer().result(fmt.Sprintf("table %s created", name), orderedObject{{"table", name}, {"outcome", "created"}})
			}
			return a.printer().result(fmt.Sprintf("table %s already exists and matches the schema", name),
				orderedObject{{"table", name}, {"outcome", "unchanged"}})
		},
	}
	c.Flags().BoolVar(&wait, "wait", false, "wait until the table and its index are ACTIVE")
	return c
}

func (a *app) newTableDescribeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "describe",
		Short: "Show the table: status, keys, index and layout, projection, billing, item count",
		Long: `Show the table as the backend describes it, and whether it matches the schema.
The layout is the index's: generic (keys of its own), inverted (the table's
sort and partition keys swapped), or unknown; a table whose layout adjl can
serve but the schema names otherwise gets a hint saying how to name it.
Every format prints the same fields (camelCase, typed): -o json for scripts.`,
		Example: withExamples("adjl table describe", "adjl table describe -o json | jq .matchesSchema"),
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			desc, diffs, err := st.DescribeAgainstSchema(c.Context())
			if err != nil || a.explaining() {
				return err
			}
			rec := describeRecord(desc, a.sch.Table.Index.Name, diffs, a.where)
			if hint := st.AdoptHint(desc); hint != "" {
				rec = append(rec, field{"hint", hint})
			}
			return a.printer().object(rec)
		},
	}
}

// describeRecord is a table description for people and scripts alike: one
// record, camelCase keys, typed values, the same in every format.
func describeRecord(d *types.TableDescription, indexName string, diffs []string, where string) orderedObject {
	rec := orderedObject{
		{"table", aws.ToString(d.TableName)},
		{"status", string(d.TableStatus)},
	}
	pk, sk := tabledef.KeyNames(d.KeySchema)
	rec = append(rec, field{"partitionKey", pk}, field{"sortKey", sk})
	for _, g := range d.GlobalSecondaryIndexes {
		ipk, isk := tabledef.KeyNames(g.KeySchema)
		rec = append(rec, field{"index", aws.ToString(g.IndexName)}, field{"indexPartitionKey", ipk},
			field{"indexSortKey", isk}, field{"indexStatus", string(g.IndexStatus)})
		if g.Projection != nil {
			rec = append(rec, field{"projection", string(g.Projection.ProjectionType)})
			if len(g.Projection.NonKeyAttributes) > 0 {
				rec = append(rec, field{"projectedAttributes", g.Projection.NonKeyAttributes})
			}
		}
	}
	layout := "unknown"
	if l, _, ok := tabledef.LayoutOf(d, indexName); ok {
		layout = string(l.Kind)
	}
	rec = append(rec, field{"layout", layout})
	billing := string(types.BillingModeProvisioned)
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		billing = string(d.BillingModeSummary.BillingMode)
	}
	rec = append(rec, field{"billingMode", billing})
	if billing == string(types.BillingModeProvisioned) && d.ProvisionedThroughput != nil {
		rec = append(rec, field{"readCapacity", aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits)},
			field{"writeCapacity", aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits)})
	}
	rec = append(rec, field{"itemCount", aws.ToInt64(d.ItemCount)}, field{"sizeBytes", aws.ToInt64(d.TableSizeBytes)})
	if where != "" {
		rec = append(rec, field{"backend", where})
	}
	rec = append(rec, field{"matchesSchema", len(diffs) == 0})
	if len(diffs) > 0 {
		rec = append(rec, field{"differences", diffs})
	}
	return rec
}

func (a *app) newTableDeleteCmd() *cobra.Command {
	var yes, wait, ifExists bool
	c := &cobra.Command{
		Use:   "delete --yes [--if-exists]",
		Short: "Delete the table and every item in it",
		Long: `Delete the schema's table and all its items. There is no undo, so --yes is required.
A table that does not exist is exit 4, or, with --if-exists, nothing to do (exit 0).`,
		Example: withExamples(
			"adjl table delete --yes",
			"adjl table delete --yes --if-exists   # in a CI teardown",
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
			if err == nil {
				err = st.DeleteTable(c.Context(), wait)
			}
			var notFound *ops.TableNotFoundError
			switch {
			case errors.As(err, &notFound) && ifExists:
				if notFound.Where == "" {
					notFound.Where = a.where
				}
				absent := &tableAbsentError{err: notFound}
				return a.printer().result(absent.Error(), orderedObject{{"table", a.tableName()}, {"outcome", "absent"}})
			case errors.As(err, &notFound):
				return &tableAbsentError{err: notFound}
			case err != nil || a.explaining():
				return err
			}
			return a.printer().result(fmt.Sprintf("table %s deleted", a.tableName()),
				orderedObject{{"table", a.tableName()}, {"outcome", "deleted"}})
		},
	}
	c.Flags().BoolVar(&ifExists, "if-exists", false, "a table that does not exist is not an error")
	c.Flags().BoolVar(&yes, "yes", false, "confirm the deletion")
	c.Flags().BoolVar(&wait, "wait", false, "wait until the table is gone")
	return c
}
