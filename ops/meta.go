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

// reshardHint replaces the generic "recreate the table" advice, which would
// lose every edge, for shard-count differences.
const reshardHint = "run the reshard command named above, or put the table's shard count back in the schema"

// MetaKey is the PK and SK of the item that records, per relation, the shard
// count the table's edges were written with. It carries no index keys, so no
// Query of adjl ever returns it.
const MetaKey = "ADJL#META"

const metaShardsAttr = "shards"

func shardsOf(rel *schema.Relation) int { return max(rel.Shards, 1) }

// loadMeta reads the metadata item once per Store (strongly consistent).
func (s *Store) loadMeta(ctx context.Context, reload bool) error {
	if s.metaLoaded && !reload {
		return nil
	}
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.schema.Table.Name), Key: keyOf(MetaKey, MetaKey), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("read table metadata: %w", err)
	}
	s.metaShards = map[string]int{}
	s.metaReshard = reshardStates(out.Item)
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
// shard count of rel, or "".
func (s *Store) shardMismatch(rel *schema.Relation) string {
	if st, ok := s.metaReshard[rel.Name]; ok {
		return fmt.Sprintf("relation %s is being resharded from %d to %d shards and the reshard has not finished; run `adjl reshard %s --to %d` to finish it",
			rel.Name, st.From, st.To, rel.Name, st.To)
	}
	got, ok := s.metaShards[rel.Name]
	if !ok || got == shardsOf(rel) {
		return ""
	}
	return fmt.Sprintf("relation %s has shards: %d but table %s was created with %d; run `adjl reshard %s --to %d`",
		rel.Name, shardsOf(rel), s.schema.Table.Name, got, rel.Name, shardsOf(rel))
}

// checkShards refuses to read or write rel's edges when the table recorded
// another shard count: reverse reads would miss edges and links would put the
// same edge on two shards. A write records the count of a relation the table
// has not seen yet.
func (s *Store) checkShards(ctx context.Context, rel *schema.Relation, write bool) error {
	if s.explaining() {
		return nil
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, false); err != nil {
		return err
	}
	if d := s.shardMismatch(rel); d != "" {
		return &TableMismatchError{Table: s.schema.Table.Name, Differences: []string{d},
			Hint: reshardHint}
	}
	if _, ok := s.metaShards[rel.Name]; ok || !write {
		return nil
	}
	if err := s.recordShards(ctx, rel); err != nil {
		return err
	}
	if d := s.shardMismatch(rel); d != "" {
		return &TableMismatchError{Table: s.schema.Table.Name, Differences: []string{d},
			Hint: reshardHint}
	}
	return nil
}

// recordShards writes the metadata item (all relations) if it is missing, or
// adds rel to it; a concurrent writer wins and its value is re-read.
func (s *Store) recordShards(ctx context.Context, rel *schema.Relation) error {
	var err error
	if !s.metaExists {
		err = s.putMeta(ctx)
	} else {
		path := expression.Name(metaShardsAttr).AppendName(expression.NameNoDotSplit(rel.Name))
		var ex expression.Expression
		ex, err = expression.NewBuilder().
			WithUpdate(expression.Set(path, expression.Value(shardsOf(rel)))).
			WithCondition(expression.AttributeNotExists(path)).Build()
		if err != nil {
			return fmt.Errorf("build metadata update: %w", err)
		}
		_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: keyOf(MetaKey, MetaKey),
			UpdateExpression: ex.Update(), ConditionExpression: ex.Condition(),
			ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
		})
	}
	switch {
	case err == nil && !s.metaExists:
		for _, r := range s.schema.Relations {
			s.metaShards[r.Name] = shardsOf(r)
		}
		s.metaExists = true
		return nil
	case err == nil:
		s.metaShards[rel.Name] = shardsOf(rel)
		return nil
	case !conditionFailed(err):
		return fmt.Errorf("record shards of %s: %w", rel.Name, err)
	}
	// Someone else recorded it first: theirs is the truth.
	return s.loadMeta(ctx, true)
}

// putMeta creates the metadata item with every relation's shard count.
func (s *Store) putMeta(ctx context.Context) error {
	shards := map[string]types.AttributeValue{}
	for _, r := range s.schema.Relations {
		shards[r.Name] = &types.AttributeValueMemberN{Value: strconv.Itoa(shardsOf(r))}
	}
	cond, err := condition(expression.AttributeNotExists(expression.Name(schema.AttrPK)))
	if err != nil {
		return err
	}
	_, err = s.putItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.schema.Table.Name),
		Item: Item{
			schema.AttrPK: str(MetaKey), schema.AttrSK: str(MetaKey),
			schema.AttrType: str("adjl-meta"), metaShardsAttr: &types.AttributeValueMemberM{Value: shards},
		},
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	return err
}

// metaDifferences compares every relation's recorded shard count with the
// schema (used by CreateTable on an existing table).
func (s *Store) metaDifferences(ctx context.Context) ([]string, error) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, true); err != nil {
		var nf *TableNotFoundError
		if errors.As(err, &nf) {
			return nil, nil
		}
		return nil, err
	}
	var diffs []string
	for _, r := range s.schema.Relations {
		if d := s.shardMismatch(r); d != "" {
			diffs = append(diffs, d)
		}
	}
	return diffs, nil
}
