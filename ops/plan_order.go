package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// planOrder compares what ordered relations need with the live table:
// the local secondary index of ordered forward lists (only a new table
// can have it), the multi-attribute indexes (apply creates them), and the
// sort each relation's edges were written under (apply rewrites their
// keys: the backfill).
func (s *Store) planOrder(ctx context.Context, p *TablePlan, desc *types.TableDescription) error {
	s.planForwardIndex(p, desc)
	s.planSortIndexes(p, desc)
	return s.planBackfills(ctx, p)
}

// planForwardIndex: a local secondary index is made with its table.
func (s *Store) planForwardIndex(p *TablePlan, desc *types.TableDescription) {
	if !s.schema.NeedsForwardIndex() {
		return
	}
	for _, l := range desc.LocalSecondaryIndexes {
		if aws.ToString(l.IndexName) == schema.ForwardIndexName {
			return
		}
	}
	p.add(TableChange{Field: "index " + schema.ForwardIndexName, Has: "no local secondary index " + schema.ForwardIndexName, Wants: schema.ForwardIndexName + " (sort.forward: true)",
		Kind:   ChangeRefused,
		Action: "a local secondary index can only be created with its table, so ordered forward lists need a new table: " + recreateAdvice + "; or drop forward: true from the relation's sort"})
}

// planSortIndexes: apply creates a missing multi-attribute index and
// waits for DynamoDB's backfill of it; one with other keys is refused.
func (s *Store) planSortIndexes(p *TablePlan, desc *types.TableDescription) {
	for i, a := range s.schema.SortAttributes() {
		want := tabledef.SortIndexes(s.schema)[i]
		name := aws.ToString(want.IndexName)
		idx := slices.IndexFunc(desc.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool { return aws.ToString(g.IndexName) == name })
		if idx < 0 {
			p.add(TableChange{Field: "index " + name, Has: "no index " + name, Wants: name + " " + keySchemaString(want.KeySchema), Kind: ChangeInPlace,
				Action: fmt.Sprintf("create index %s with multi-attribute keys %s and wait until DynamoDB has backfilled it (edges with %s only)", name, keySchemaString(want.KeySchema), a.Name)},
				s.createSortIndexStep(want, a))
			continue
		}
		if has := keySchemaString(desc.GlobalSecondaryIndexes[idx].KeySchema); has != keySchemaString(want.KeySchema) {
			p.add(TableChange{Field: "index " + name + " keys", Has: has, Wants: keySchemaString(want.KeySchema), Kind: ChangeRefused,
				Action: "an index's keys cannot change in place: delete the index (aws dynamodb update-table), then run adjl table apply to create it"})
		}
	}
}

// createSortIndexStep creates a multi-attribute index and waits for it.
func (s *Store) createSortIndexStep(ix types.GlobalSecondaryIndex, a schema.Attribute) applyStep {
	name := aws.ToString(ix.IndexName)
	in := &dynamodb.UpdateTableInput{
		TableName:            aws.String(s.schema.Table.Name),
		AttributeDefinitions: tabledef.SortIndexAttributeDefinitions(s.schema, a),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection, ProvisionedThroughput: ix.ProvisionedThroughput,
		}}},
	}
	return s.updateStep("create index "+name+" and wait for its backfill", "create index "+name, in,
		func(ctx context.Context) error { return s.waitIndex(ctx, name, false) })
}

// planBackfills lists the relations whose edges were written under
// another sort than the schema's, each a backfill apply runs.
func (s *Store) planBackfills(ctx context.Context, p *TablePlan) error {
	s.metaMu.Lock()
	err := s.loadMeta(ctx, true)
	sorts, ordering := s.metaSort, s.metaOrdering
	s.metaMu.Unlock()
	var nf *TableNotFoundError
	if errors.As(err, &nf) {
		return nil
	} else if err != nil {
		return err
	}
	for _, rel := range s.schema.Relations {
		has, wants := sorts[rel.Name], rel.Sort.Signature()
		if has == wants {
			continue
		}
		action := fmt.Sprintf("rewrite the index keys of every %s edge (%s) in a Scan of the table, one UpdateItem per edge that changes; run apply again after an interruption to resume; until it finishes %s", rel.Name, keysRewritten(rel), readsDuringBackfill(rel))
		if st, ok := ordering[rel.Name]; ok && st.Signature == wants {
			action += fmt.Sprintf(" (resumes: %d edges rewritten so far)", st.Rewritten)
		}
		p.add(TableChange{Field: "relation " + rel.Name + " order", Has: orderWords(has), Wants: orderWords(wants), Kind: ChangeInPlace, Action: action},
			applyStep{what: "rewrite the index keys of relation " + rel.Name + "'s edges (" + orderWords(wants) + ")", run: func(ctx context.Context) error {
				_, err := s.backfillOrder(ctx, rel, s.stepProgress)
				return err
			}})
	}
	return nil
}

// stepProgress tells the running apply how a long step is doing.
func (s *Store) stepProgress(msg string) {
	if s.applyProgress != nil {
		s.applyProgress(msg)
	}
}

func orderWords(sig string) string {
	if sig == "" {
		return "key order"
	}
	return "ordered by " + sig
}

func keysRewritten(rel *schema.Relation) string {
	switch {
	case rel.Sort == nil:
		return "GSI1SK back to the from-key, LSI1SK removed"
	case rel.SortedForward() && rel.IsComposite():
		return "GSI1SK and LSI1SK from " + rel.Sort.By
	case rel.SortedForward():
		return "LSI1SK from " + rel.Sort.By + "; GSI1SK stays the from-key"
	case rel.IsComposite():
		return "GSI1SK from " + rel.Sort.By
	}
	return "GSI1SK stays the from-key; edges without " + rel.Sort.By + " get the default"
}

func readsDuringBackfill(rel *schema.Relation) string {
	if rel.IsMultiAttribute() {
		return "its reverse lists leave out edges without " + rel.Sort.By
	}
	return "its reverse lists stop with an error at an edge not yet rewritten"
}
