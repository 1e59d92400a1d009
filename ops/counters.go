package ops

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// shardedCounters names the sharded counters kept on the item of key (empty
// for most keys, which then cost no extra request), and the key's prefix.
func (s *Store) shardedCounters(key string) (prefix string, names []string) {
	_, prefix, err := s.schema.ResolveKey(key)
	if err != nil {
		return "", nil
	}
	return prefix, s.schema.ShardedCounters(prefix)
}

// counterItems reads every counter shard item of key with one Query (paged
// only past 1 MB, which 64 shards per counter never reach).
func (s *Store) counterItems(ctx context.Context, key string, consistent bool) ([]Item, error) {
	ex, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(s.layout.PK).Equal(expression.Value(key)).
			And(expression.Key(s.layout.SK).BeginsWith(schema.CounterSKPrefix))).Build()
	if err != nil {
		return nil, fmt.Errorf("build counter query: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(s.schema.Table.Name), KeyConditionExpression: ex.KeyCondition(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	var items []Item
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("read counters of %s: %w", key, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// withCounters presents the sharded counters of key as if they were kept on
// its item: each counter is the sum of its shards (plus any value the item
// itself still holds from before the counter was sharded), the items the
// schema spreads it over and no other, as a recount sums them. A counter a
// part of which holds no number (a hand edit) has no sum: it is shown as
// its parts as stored, as verify shows it ("x + 2 + 3"), as an unsharded
// counter holding no number is shown as it is. An item that does
// not exist but has counter shards is shown as the item the unsharded layout
// would have created. With no sharded counters on key, item is returned as is.
func (s *Store) withCounters(ctx context.Context, key string, item Item, consistent bool) (Item, error) {
	prefix, names := s.shardedCounters(key)
	if len(names) == 0 {
		return item, nil
	}
	shards, err := s.counterItems(ctx, key, consistent)
	if err != nil || len(shards) == 0 {
		return item, err
	}
	type part struct {
		k    int
		text string
	}
	sums := map[string]*big.Rat{}
	parts := map[string][]part{}
	bad := map[string]bool{}
	for _, it := range shards {
		name, k, ok := schema.CounterShardOfSK(sOf(it, s.layout.SK))
		if !ok || !slices.Contains(names, name) || k >= s.schema.CounterShards(prefix, name) {
			continue // not one of the counter's items (see schema.CounterShards)
		}
		if it[name] == nil {
			continue
		}
		_, text, _ := storedNumber(it[name])
		parts[name] = append(parts[name], part{k, text})
		n, ok := it[name].(*types.AttributeValueMemberN)
		if !ok {
			bad[name] = true
			continue
		}
		v, ok := new(big.Rat).SetString(n.Value)
		if !ok {
			return nil, fmt.Errorf("counter %s of %s: %q is not a number", name, key, n.Value)
		}
		if sums[name] == nil {
			sums[name] = new(big.Rat)
		}
		sums[name].Add(sums[name], v)
	}
	if len(parts) == 0 {
		return item, nil
	}
	out := make(Item, len(item)+len(parts))
	for k, v := range item {
		out[k] = v
	}
	if len(item) == 0 {
		ent, _, err := s.schema.ResolveKey(key)
		if err != nil {
			return nil, err
		}
		for name, v := range s.keyItem(s.layout.ItemKeys(key)) {
			out[name] = v
		}
		if t := s.layout.Type; t != "" {
			out[t] = str(ent.Name)
		}
	}
	for name, ps := range parts {
		sum := sums[name]
		if sum == nil {
			sum = new(big.Rat)
		}
		// The parts as stored, in shard order and then the item's own, as
		// verify lists them.
		slices.SortFunc(ps, func(a, b part) int { return cmp.Compare(a.k, b.k) })
		texts := make([]string, 0, len(ps)+1)
		for _, p := range ps {
			texts = append(texts, p.text)
		}
		if v := item[name]; v != nil {
			_, text, _ := storedNumber(v)
			texts = append(texts, text)
			r, isNum := new(big.Rat), false
			if _, ok := v.(*types.AttributeValueMemberN); ok {
				_, isNum = r.SetString(text)
			}
			if isNum {
				sum.Add(sum, r)
			} else {
				bad[name] = true
			}
		}
		if bad[name] {
			out[name] = str(strings.Join(texts, " + "))
			continue
		}
		out[name] = &types.AttributeValueMemberN{Value: decimalString(sum)}
	}
	return out, nil
}

// decimalString is r, a sum of decimal numbers, written as a decimal with
// the fraction digits it needs (a sum of decimals has a power of ten as its
// denominator), at most maxFractionDigits.
func decimalString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	x, ten := new(big.Rat).Set(r), big.NewRat(10, 1)
	digits := 0
	for !x.IsInt() && digits < maxFractionDigits {
		x.Mul(x, ten)
		digits++
	}
	return r.FloatString(digits)
}

// maxFractionDigits bounds decimalString: DynamoDB's smallest number is
// 1E-130.
const maxFractionDigits = 130

// deleteCounterItems removes the counter shard items of key; it reports
// whether there were any.
func (s *Store) deleteCounterItems(ctx context.Context, key string) (bool, error) {
	if _, names := s.shardedCounters(key); len(names) == 0 {
		return false, nil
	}
	items, err := s.counterItems(ctx, key, true)
	if err != nil {
		return false, err
	}
	if s.explaining() {
		s.explainWhen("DeleteItem", &dynamodb.DeleteItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(key, schema.CounterSKPrefix+"<counter>#<k>"),
			ReturnConsumedCapacity: s.rcc(),
		}, "once per counter item the Query finds")
	}
	for _, it := range items {
		sk := sOf(it, s.layout.SK)
		if _, err := s.deleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(key, sk),
		}); err != nil {
			return false, fmt.Errorf("delete %s %s: %w", key, sk, err)
		}
	}
	return len(items) > 0, nil
}
