package ops

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An entity's delete looks for its edges and then deletes its items. A link
// committed in between would leave an edge whose entity is gone. In the
// generic layout every link and unlink moves the changes attribute of each
// counter it changes (schema.ChangesPrefix), so where the entity keeps
// counters its items are read before the look, and deleted in one
// transaction on condition that no counter's changes attribute moved: a link
// or unlink in between cancels the delete, and nothing of the entity is
// deleted. Where it keeps none (or in the inverted layout) nothing records a
// link on its items, and they are deleted one by one as found.

// deleteGuard is what an entity's items held before its edges were looked
// for.
type deleteGuard struct {
	items [][2]string            // every item to delete: entity and role items, then counter shard items
	held  map[[2]string]Item     // what each held; absent where it was not there
	watch map[[2]string][]string // the changes attributes each must still hold as read
}

// readDeleteGuard reads the items of an entity (keys are its entity and
// role keys) that hold the counters its sides keep, with every item to be
// deleted; nil when no side keeps a counter that records its changes.
func (s *Store) readDeleteGuard(ctx context.Context, keys []string, sides []side) (*deleteGuard, error) {
	if !s.layout.CountsChanges() {
		return nil, nil
	}
	g := &deleteGuard{held: map[[2]string]Item{}, watch: map[[2]string][]string{}}
	for _, k := range keys {
		g.items = append(g.items, [2]string{k, k})
	}
	watch := func(item [2]string, counter string) {
		if !slices.Contains(g.items, item) {
			g.items = append(g.items, item)
		}
		if name := schema.Changes(counter); !slices.Contains(g.watch[item], name) {
			g.watch[item] = append(g.watch[item], name)
		}
	}
	for _, sd := range sides {
		end := schema.ToEnd
		if sd.forward {
			end = schema.FromEnd
		}
		name, shards := sd.rel.Counter(end)
		switch {
		case name == "":
		case shards <= 1:
			watch([2]string{sd.key, sd.key}, name)
		default:
			for k := range shards {
				watch([2]string{sd.key, schema.CounterSK(name, k)}, name)
			}
		}
	}
	if len(g.watch) == 0 {
		return nil, nil
	}
	if err := s.batchGetAll(ctx, "read the items to delete", g.items, expression.Expression{}, g.held, recountOptions{}, ""); err != nil {
		return nil, err
	}
	return g, nil
}

// existed reports whether any of the guarded items was there when read.
func (g *deleteGuard) existed() bool {
	return slices.ContainsFunc(g.items, func(it [2]string) bool { return len(g.held[it]) > 0 })
}

// deleteGuarded deletes the guarded items, at most 100 to a transaction,
// each on condition that its counters' changes attributes hold what was
// read. A link or unlink of the entity's edges since then is a
// ConflictError, with its entity and role items kept.
func (s *Store) deleteGuarded(ctx context.Context, key string, g *deleteGuard) error {
	table := aws.String(s.schema.Table.Name)
	var acts, shardActs []types.TransactWriteItem // entity and role items; counter items
	for _, it := range g.items {
		d := &types.Delete{TableName: table, Key: s.keyOf(it[0], it[1])}
		if watched := g.watch[it]; len(watched) > 0 {
			names := map[string]string{}
			values := map[string]types.AttributeValue{}
			var conds []string
			for i, name := range slices.Sorted(slices.Values(watched)) {
				n, v := "#g"+strconv.Itoa(i), ":g"+strconv.Itoa(i)
				names[n] = name
				if was, ok := g.held[it][name]; ok {
					values[v] = was
					conds = append(conds, n+" = "+v)
				} else {
					conds = append(conds, "attribute_not_exists("+n+")")
				}
			}
			d.ConditionExpression = aws.String(strings.Join(conds, " AND "))
			d.ExpressionAttributeNames, d.ExpressionAttributeValues = names, emptyAsNil(values)
		}
		if it[0] == it[1] {
			acts = append(acts, types.TransactWriteItem{Delete: d})
		} else {
			shardActs = append(shardActs, types.TransactWriteItem{Delete: d})
		}
	}
	// The entity and role items go in the last transaction: one cancelled
	// after others committed leaves them whole, those having deleted only
	// counter items, which hold no count of an entity without edges.
	acts = append(shardActs, acts...)
	for i := 0; i < len(acts); {
		n := len(acts) - i
		if n > 100 {
			n = (n-1)%100 + 1 // the first transactions take the remainder
		}
		chunk := acts[i : i+n]
		_, err := s.transact(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: chunk})
		i += n
		if len(cancelledSteps(err)) > 0 {
			// A retry of this transaction after its answer was lost (where
			// the backend keeps no idempotency token, as moto) finds the
			// items it deleted gone: that is no conflict.
			gone, rerr := s.allGone(ctx, chunk)
			if rerr != nil {
				return rerr
			}
			if gone {
				continue
			}
			return &ConflictError{Msg: fmt.Sprintf("%s: an edge of it was linked or unlinked while it was being deleted, so it was not deleted; run the delete again", key), Err: err}
		}
		if err != nil {
			return fmt.Errorf("delete %s: %w", key, err)
		}
	}
	return nil
}

// allGone reports whether none of the items the deletes name is there
// (read strongly consistent).
func (s *Store) allGone(ctx context.Context, deletes []types.TransactWriteItem) (bool, error) {
	keys := make([][2]string, len(deletes))
	for i, a := range deletes {
		keys[i] = [2]string{sOf(a.Delete.Key, s.layout.PK), sOf(a.Delete.Key, s.layout.SK)}
	}
	found := map[[2]string]Item{}
	if err := s.batchGetAll(ctx, "read the items a cancelled delete names", keys, expression.Expression{}, found, recountOptions{}, ""); err != nil {
		return false, err
	}
	return len(found) == 0, nil
}
