package ops

import (
	"context"
	"fmt"

	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// updateTableStep sends in, then waits until the table is ACTIVE.
func (s *Store) updateTableStep(what string, in *dynamodb.UpdateTableInput) applyStep {
	return s.updateStep(what, what, in, s.waitActive)
}

// createIndexStep creates the schema's index and waits until DynamoDB has
// backfilled it from the table's items.
func (s *Store) createIndexStep() applyStep {
	ix := tabledef.Index(s.schema)
	name := aws.ToString(ix.IndexName)
	in := &dynamodb.UpdateTableInput{
		TableName:            aws.String(s.schema.Table.Name),
		AttributeDefinitions: tabledef.IndexAttributeDefinitions(s.schema),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection, ProvisionedThroughput: ix.ProvisionedThroughput,
		}}},
	}
	return s.updateStep("create index "+name+" and wait for its backfill", "create index "+name, in,
		func(ctx context.Context) error { return s.waitIndex(ctx, name, false) })
}

func (s *Store) deleteIndexStep(name string) applyStep {
	in := &dynamodb.UpdateTableInput{
		TableName: aws.String(s.schema.Table.Name),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}}},
	}
	return s.updateStep("delete index "+name+" and wait until it is gone", "delete index "+name, in,
		func(ctx context.Context) error { return s.waitIndex(ctx, name, true) })
}

// updateStep is the step what: one UpdateTable request, then wait; its
// errors start with short.
func (s *Store) updateStep(what, short string, in *dynamodb.UpdateTableInput, wait func(context.Context) error) applyStep {
	return applyStep{what: what, run: func(ctx context.Context) error {
		admin, ok := s.admin()
		if !ok {
			return fmt.Errorf("%s: the backend client has no UpdateTable", short)
		}
		if _, err := admin.UpdateTable(ctx, in); err != nil {
			return fmt.Errorf("%s: %w", short, s.classify(err))
		}
		return wait(ctx)
	}}
}

// waitIndex polls until the table is ACTIVE and the index is gone, or is
// ACTIVE and no longer backfilling.
func (s *Store) waitIndex(ctx context.Context, name string, gone bool) error {
	return s.poll(ctx, func() (bool, error) {
		d, err := s.DescribeTable(ctx)
		if err != nil {
			return false, err
		}
		if d.TableStatus != types.TableStatusActive {
			return false, nil
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) != name {
				continue
			}
			if gone {
				return false, nil
			}
			return g.IndexStatus == types.IndexStatusActive && !aws.ToBool(g.Backfilling), nil
		}
		return gone, nil
	})
}

// ApplyTable makes the plan's in-place changes, one request at a time,
// waiting after each until the table and every index are ACTIVE; progress
// (may be nil) hears each step as it starts. A plan with a change apply
// cannot make is refused whole, before any request: a *TableMismatchError
// naming those changes and the way forward. After the steps the table is
// planned again and must match (settings the backend lacks aside).
func (s *Store) ApplyTable(ctx context.Context, p *TablePlan, progress func(step string)) error {
	if blocking := p.Blocking(); len(blocking) > 0 {
		diffs := make([]string, len(blocking))
		hint := "apply changed nothing; take the way forward named for each difference, then run adjl table apply again"
		for i, c := range blocking {
			diffs[i] = c.String()
			if c.Kind == ChangeRefused {
				diffs[i] += " (" + c.Action + ")"
			}
		}
		if len(p.Blocking()) == countKind(p, ChangeReshard) {
			hint = "apply changed nothing; a shard count changes with `adjl reshard RELATION --to N --yes` (named above), or put the table's count back in the schema"
		}
		return &TableMismatchError{Table: p.Table, Differences: diffs, Hint: hint}
	}
	if p.Exists {
		if err := s.waitActive(ctx); err != nil {
			return err
		}
	}
	s.applyProgress = progress
	defer func() { s.applyProgress = nil }()
	for _, st := range p.steps {
		if progress != nil {
			progress(st.what)
		}
		if err := st.run(ctx); err != nil {
			return err
		}
	}
	after, err := s.PlanTable(ctx)
	if err != nil {
		return fmt.Errorf("check the table after apply: %w", err)
	}
	var left []string
	for _, c := range after.Changes {
		if c.Kind != ChangeUnsupported {
			left = append(left, c.String())
		}
	}
	if len(left) > 0 {
		return &TableMismatchError{Table: p.Table, Differences: left,
			Hint: "the backend accepted every change but still describes these differently; run adjl table plan to see them"}
	}
	return nil
}

func countKind(p *TablePlan, k ChangeKind) int {
	n := 0
	for _, c := range p.Changes {
		if c.Kind == k {
			n++
		}
	}
	return n
}
