package ops

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MetaKey is the PK and SK of the item that records, per relation, the shard
// count the table's edges were written with, and any unfinished reshard.
// Table commands and reshard read it; relation commands never do (see
// layout.go), except on the way to a layout error. In the generic layout it
// carries no index keys; in the inverted one it is indexed under its own
// key, a partition no reverse read names (ADJL# is no entity's prefix), so
// no Query of adjl ever returns it.
const MetaKey = "ADJL#META"

const metaShardsAttr = "shards"

func shardsOf(rel *schema.Relation) int { return max(rel.Shards, 1) }

// loadMeta reads the metadata item once per Store (strongly consistent).
func (s *Store) loadMeta(ctx context.Context, reload bool) error {
	if s.metaLoaded && !reload {
		return nil
	}
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(MetaKey, MetaKey), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("read table metadata: %w", err)
	}
	s.metaShards = map[string]int{}
	s.metaReshard = reshardStates(out.Item)
	s.metaSort, s.metaOrdering = orderMeta(out.Item)
	s.metaExists = len(out.Item) > 0
	if m, ok := out.Item[metaShardsAttr].(*types.AttributeValueMemberM); ok {
		for name, v := range m.Value {
			if n, ok := v.(*types.AttributeValueMemberN); ok {
				if i, err := strconv.Atoi(n.Value); err == nil {
					s.metaShards[name] = i
				}
			}
		}
	}
	s.metaLoaded = true
	return nil
}

// shardMismatch is the difference between the schema's and the recorded
// shard count of rel, or "", and the remedy.
func (s *Store) shardMismatch(rel *schema.Relation) (diff, hint string) {
	if st, ok := s.metaReshard[rel.Name]; ok {
		return reshardingMessage(rel.Name, st), fmt.Sprintf("run `adjl reshard %s --to %d --yes` to finish it", rel.Name, st.To)
	}
	got, ok := s.metaShards[rel.Name]
	if !ok || got == shardsOf(rel) {
		return "", ""
	}
	return shardsMessage(rel, got), reshardHint(rel, got)
}

// checkRecordedShards refuses a bulk command (import, export, counters)
// on a relation whose shard count the metadata item records otherwise, or
// that is being resharded. Bulk commands read the item once per Store; the
// relation commands never do (layout.go).
func (s *Store) checkRecordedShards(ctx context.Context, rel *schema.Relation) error {
	if s.explaining() {
		return nil
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, false); err != nil {
		return err
	}
	if d, h := s.shardMismatch(rel); d != "" {
		return &TableMismatchError{Table: s.schema.Table.Name, Differences: []string{d}, Hint: h}
	}
	return nil
}

// recordRelations adds to the metadata item the relations of the schema it
// does not record yet (a relation added to the schema after the table was
// created), so that it names every relation's shard count. The caller
// holds metaMu and has loaded the item.
func (s *Store) recordRelations(ctx context.Context) error {
	if !s.metaExists {
		if err := s.putMeta(ctx); err != nil && !conditionFailed(err) {
			return fmt.Errorf("record table metadata: %w", err)
		}
		return s.loadMeta(ctx, true)
	}
	wrote := false
	for _, rel := range s.schema.Relations {
		if _, ok := s.metaShards[rel.Name]; ok {
			continue
		}
		wrote = true
		path := expression.Name(metaShardsAttr).AppendName(expression.NameNoDotSplit(rel.Name))
		ex, err := expression.NewBuilder().
			WithUpdate(s.newRelationSort(rel, expression.Set(path, expression.Value(shardsOf(rel))))).
			WithCondition(expression.AttributeNotExists(path)).Build()
		if err != nil {
			return fmt.Errorf("build metadata update: %w", err)
		}
		if err := s.updateMeta(ctx, ex); err != nil && !conditionFailed(err) {
			return fmt.Errorf("record shards of %s: %w", rel.Name, err)
		}
	}
	if !wrote {
		return nil
	}
	return s.loadMeta(ctx, true) // a concurrent writer's count wins: read it back
}

// putMeta creates the metadata item with every relation's shard count.
func (s *Store) putMeta(ctx context.Context) error {
	in, err := s.putMetaInput()
	if err != nil {
		return err
	}
	_, err = s.putItem(ctx, in)
	return err
}

func (s *Store) putMetaInput() (*dynamodb.PutItemInput, error) {
	shards := map[string]types.AttributeValue{}
	for _, r := range s.schema.Relations {
		shards[r.Name] = &types.AttributeValueMemberN{Value: strconv.Itoa(shardsOf(r))}
	}
	cond, err := condition(expression.AttributeNotExists(s.pkName()))
	if err != nil {
		return nil, err
	}
	return &dynamodb.PutItemInput{
		TableName:           aws.String(s.schema.Table.Name),
		Item:                s.metaItem(shards),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	}, nil
}

// metaItem is the metadata item under the layout's key names: the type
// attribute only where the layout has one.
func (s *Store) metaItem(shards map[string]types.AttributeValue) Item {
	it := s.keyOf(MetaKey, MetaKey)
	if t := s.layout.Type; t != "" {
		it[t] = str("adjl-meta")
	}
	it[metaShardsAttr] = &types.AttributeValueMemberM{Value: shards}
	s.sortSignatures(it)
	return it
}

// metaDifferences compares every relation's recorded shard count with the
// schema (used by CreateTable on an existing table), after recording the
// relations the metadata item does not name yet.
func (s *Store) metaDifferences(ctx context.Context) (diffs []string, hint string, err error) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, true); err != nil {
		var nf *TableNotFoundError
		if errors.As(err, &nf) {
			return nil, "", nil
		}
		return nil, "", err
	}
	if err := s.recordRelations(ctx); err != nil {
		return nil, "", err
	}
	for _, r := range s.schema.Relations {
		if d, h := s.shardMismatch(r); d != "" {
			diffs = append(diffs, d)
			hint = h
		}
	}
	return diffs, hint, nil
}
