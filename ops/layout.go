package ops

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// A schema whose shard count disagrees with the table would write edges to
// the wrong index partition and read only some of them. No command reads a
// shared item to find out (on DynamoDB every command would read one
// partition): the items a request touches anyway carry the count instead
// (schema.ShardStampPrefix).
//
//   - A link's counter updates record the relation's shard count on each
//     counter item and require it to record no other count, so a link under
//     the wrong count is refused by its own transaction as soon as either
//     side has been linked before under the right one.
//   - Each edge of a sharded relation records the count; a reverse read (or
//     a cascading delete) refuses a page holding an edge stamped with
//     another count. An index that does not project the stamp (KEYS_ONLY,
//     INCLUDE) still returns the keys, and each edge's index partition must
//     be the one the schema's count gives its from-key: that catches most
//     differences, though not a schema whose count divides the table's
//     (2 shards reading a 4-shard table see only shards 0 and 1, where the
//     edges agree with both counts).
//   - Only when a stamp disagrees is the metadata item read, to say whether
//     a reshard is under way.
//
// What this cannot see: a read that returns no edge (an unsharded read of a
// sharded table finds none), the divisor case above when the index does
// not project the stamp, and a link whose both sides were never linked
// through a counter (or whose relation keeps no counters). `adjl table create`, `table describe` and `reshard` compare the
// metadata item, which records every relation's count, with the schema.

// stampCondition holds when the item records no shard count under stamp or
// records n.
func stampCondition(stamp string, n int) expression.ConditionBuilder {
	name := expression.NameNoDotSplit(stamp)
	return expression.AttributeNotExists(name).Or(name.Equal(expression.Value(n)))
}

// stampOf is the shard count recorded on it under stamp; ok is false when
// none is.
func stampOf(it Item, stamp string) (n int, ok bool) {
	v, found := it[stamp].(*types.AttributeValueMemberN)
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(v.Value)
	return n, err == nil
}

// checkEdgeStamps refuses edges of rel read from the index that were
// written under another shard count: by their stamp when the index
// projects it, else by the partition their from-key would have. Only
// sharded relations are checked: an unsharded read of a sharded table finds
// no edge at all, which no check can tell from an empty list.
func (s *Store) checkEdgeStamps(ctx context.Context, rel *schema.Relation, items []Item) error {
	if rel.Shards <= 1 {
		return nil
	}
	for _, it := range items {
		if n, ok := stampOf(it, rel.ShardStamp()); ok && n != rel.Shards {
			return s.layoutError(ctx, rel, n)
		}
		part, from, sk := sOf(it, s.layout.IndexPK), sOf(it, s.layout.PK), sOf(it, s.layout.SK)
		if part == "" || from == "" || len(sk) < len(rel.Edge) || sOf(it, s.layout.PK) == sk {
			continue
		}
		if want := s.layout.ReversePartition(rel, sk[len(rel.Edge):], rel.Shard(from)); part != want {
			return s.layoutError(ctx, rel, 0)
		}
	}
	return nil
}

// layoutError explains an item of rel written under found shards (0: under
// some other count than the schema's) . It reads the metadata item: only
// here, on the way to an error, so that an unfinished reshard is named as
// such and an unknown count is filled in.
func (s *Store) layoutError(ctx context.Context, rel *schema.Relation, found int) error {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, true); err == nil {
		if st, ok := s.metaReshard[rel.Name]; ok {
			return &TableMismatchError{Table: s.schema.Table.Name, Differences: []string{reshardingMessage(rel.Name, st)},
				Hint: fmt.Sprintf("run `adjl reshard %s --to %d --yes` to finish it", rel.Name, st.To)}
		}
		if n, ok := s.metaShards[rel.Name]; ok && found == 0 && n != shardsOf(rel) {
			found = n
		}
	}
	if found == 0 {
		return &TableMismatchError{Table: s.schema.Table.Name,
			Differences: []string{fmt.Sprintf("edges of the %s relation are in index partitions its %d shards would not give them: the table was written with another shard count", rel.Name, shardsOf(rel))},
			Hint:        fmt.Sprintf("`adjl reshard %s --to %d` (a dry run) shows the edges' layout; `--yes` moves them to the schema's count", rel.Name, shardsOf(rel))}
	}
	return &TableMismatchError{Table: s.schema.Table.Name, Differences: []string{shardsMessage(rel, found)},
		Hint: reshardHint(rel, found)}
}

// shardsMessage says what is true when the table's items record found
// shards for rel.
func shardsMessage(rel *schema.Relation, found int) string {
	return fmt.Sprintf("the table's %s relation has %d %s; the schema says %d", rel.Name, found, shardWord(found), shardsOf(rel))
}

func reshardingMessage(rel string, st reshardState) string {
	return fmt.Sprintf("relation %s is being resharded from %d to %d shards and the reshard has not finished", rel, st.From, st.To)
}

// reshardHint names both ways out of a shard difference: move the edges to
// the schema's count, or put the table's count back in the schema.
func reshardHint(rel *schema.Relation, found int) string {
	return fmt.Sprintf("run `adjl reshard %s --to %d --yes` to move the edges to the schema's count (without --yes it is a dry run), or put shards: %d back in the schema",
		rel.Name, shardsOf(rel), found)
}

func shardWord(n int) string {
	if n == 1 {
		return "shard"
	}
	return "shards"
}

// cancelledSteps lists, in order, the items of a cancelled transaction whose
// condition failed; nil for any other outcome.
func cancelledSteps(err error) []int {
	var tce *types.TransactionCanceledException
	if err == nil || !errors.As(err, &tce) {
		return nil
	}
	var out []int
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			out = append(out, i)
		}
	}
	return out
}

// CounterNotNumberError refuses a link or unlink (or a cascading delete's
// removal of one edge) because a counter it adds to (or the counter's
// changes attribute) holds something other than a number, to which
// DynamoDB refuses to ADD: a hand edit. Nothing was written, but where
// Edge is set: a cascading delete stopped at that edge, and the edges it
// removed before stay removed. It is the RejectedError it explains (exit 2).
type CounterNotNumberError struct {
	Verb, Relation, Key string
	Edge                string // the edge a cascading delete did not remove: "PK SK"
	// SK is the sort key of the counter item holding the attribute when it
	// is not Key's own item (a counter spread over shards).
	SK             string
	Attribute      string // the counter, or its changes attribute
	Value, Problem string // what it holds, as text, and why that is no number
	Err            error
}

func (e *CounterNotNumberError) Error() string {
	fix := fmt.Sprintf("run `adjl counters repair %s` to set it to its count", e.Relation)
	if strings.HasPrefix(e.Attribute, schema.ChangesPrefix) {
		fix = fmt.Sprintf("it is adjl's own record of the counter's changes: run `adjl counters repair %s` to set it again", e.Relation)
	}
	item := e.Key
	if e.SK != "" && e.SK != e.Key {
		item += " (its counter item, sort key " + e.SK + ")"
	}
	what := e.Verb + " refused, nothing written"
	if e.Edge != "" {
		what = fmt.Sprintf("%s stopped at edge %s, which it did not remove (edges removed before it stay removed)", e.Verb, e.Edge)
	}
	return fmt.Sprintf("%s: %s of %s holds %s (%s), which cannot be added to; %s",
		what, e.Attribute, item, e.Value, e.Problem, fix)
}

func (e *CounterNotNumberError) Unwrap() error { return e.Err }

// explainNotNumber reads, after a transaction of an edge's write and its
// counter updates (steps) was refused as malformed, the counter items
// whose update was refused, and where one holds a counter or changes
// attribute that is no number, returns a CounterNotNumberError saying so;
// else err. DynamoDB names the
// refused update with a ValidationError cancellation reason; moto refuses
// the whole request with a ValidationException, so every counter item is
// read. These reads happen only on the way to an error.
func (s *Store) explainNotNumber(ctx context.Context, verb string, rel *schema.Relation, steps []linkStep, err error) error {
	var refused []int
	var tce *types.TransactionCanceledException
	var apiErr smithy.APIError
	switch {
	case errors.As(err, &tce):
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ValidationError" {
				refused = append(refused, i)
			}
		}
	case errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" && strings.Contains(apiErr.ErrorMessage(), "incorrect data type"):
		for i := range steps {
			refused = append(refused, i)
		}
	}
	for _, i := range refused {
		if i >= len(steps) || len(steps[i].counters) == 0 {
			continue
		}
		st := steps[i]
		out, rerr := s.getItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(st.pk, st.sk), ConsistentRead: aws.Bool(true),
		})
		if rerr != nil {
			return err
		}
		for _, c := range st.counters {
			for _, name := range []string{c, schema.Changes(c)} {
				v, ok := out.Item[name]
				if !ok {
					continue
				}
				if _, isNum := v.(*types.AttributeValueMemberN); !isNum {
					_, text, problem := storedNumber(v)
					return &CounterNotNumberError{Verb: verb, Relation: rel.Name, Key: st.pk, SK: st.sk, Attribute: name, Value: text, Problem: problem, Err: err}
				}
			}
		}
	}
	return err
}

// MissingEntityError refuses a link whose entity item does not exist, when
// the relation or the command requires entities. It is ErrItemNotFound.
type MissingEntityError struct {
	Key, Entity string
}

func (e *MissingEntityError) Error() string {
	return fmt.Sprintf("%s has no item: links of this relation require both entities to exist", e.Key)
}

func (e *MissingEntityError) Unwrap() error { return ErrItemNotFound }

// explainRefusal reads (strongly consistent) the items whose condition
// failed in a link's transaction and says why: a missing entity, or a shard
// count recorded by an earlier link that the schema contradicts. These
// reads happen only on the way to an error.
func (s *Store) explainRefusal(ctx context.Context, rel *schema.Relation, steps []linkStep, failed []int, cause error) error {
	for _, i := range failed {
		if i >= len(steps) {
			continue
		}
		st := steps[i]
		out, err := s.getItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(st.pk, st.sk), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return fmt.Errorf("link %s: read %s to explain a refused write: %w", rel.Name, st.pk, err)
		}
		if st.entity && len(out.Item) == 0 {
			ent, _, _ := s.schema.ResolveKey(st.pk)
			name := ""
			if ent != nil {
				name = ent.Name
			}
			return &MissingEntityError{Key: st.pk, Entity: name}
		}
		if n, ok := stampOf(out.Item, rel.ShardStamp()); st.stamp && ok && n != shardsOf(rel) {
			return s.layoutError(ctx, rel, n)
		}
	}
	return &ConflictError{Msg: fmt.Sprintf("link %s: an item changed while the link was written; retry", rel.Name), Err: cause}
}
