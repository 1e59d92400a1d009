package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetWholeEntity reads an entity key (USER#taylor) as one item: the
// entity item's attributes and every counter the relations keep on its
// role items (followerCount on TARGET#taylor, followingCount on
// ACTOR#taylor). The items are read with one BatchGetItem, plus one Query
// per item whose counters are sharded; an entity without role items is one
// GetItem, as GetEntity reads it. A role key (TARGET#taylor) is read as
// GetEntity reads it: that item alone. Nothing stored under any of the
// keys is ErrItemNotFound.
func (s *Store) GetWholeEntity(ctx context.Context, key string, consistent bool) (Item, error) {
	ent, prefix, err := s.schema.ResolveKey(key)
	if err != nil {
		return nil, err
	}
	roles := s.roleCounters(key)
	if ent == nil || prefix != ent.Prefix || len(roles) == 0 {
		return s.GetEntity(ctx, key, consistent)
	}
	keys := append([]string{key}, slices.Sorted(maps.Keys(roles))...)
	items, err := s.batchGetKeys(ctx, keys, consistent)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	for _, k := range keys {
		if items[k], err = s.withCounters(ctx, k, items[k], consistent); err != nil {
			return nil, fmt.Errorf("get %s: %w", key, err)
		}
	}
	whole := s.mergeRoles(key, items, roles)
	if len(whole) == 0 {
		if s.explaining() {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", key, ErrItemNotFound)
	}
	return whole, nil
}

// roleCounters lists, by role key, the counters the relations keep on the
// role items of the entity key: ACTOR#taylor → [followingCount]. Roles
// that keep no counter hold nothing to show and are left out.
func (s *Store) roleCounters(key string) map[string][]string {
	ent, prefix, err := s.schema.ResolveKey(key)
	if err != nil || ent == nil {
		return nil
	}
	id := key[len(prefix):]
	out := map[string][]string{}
	for _, sd := range s.schema.Sides(ent) {
		name, _ := sd.Relation.Counter(sd.End)
		if sd.Prefix == ent.Prefix || name == "" {
			continue
		}
		rk := sd.Prefix + id
		if !slices.Contains(out[rk], name) {
			out[rk] = append(out[rk], name)
		}
	}
	return out
}

// mergeRoles is the entity item with its role items' counters added; a
// counter the entity item holds itself is kept. With no entity item but
// counters on its roles, the item is the keys the entity item would have.
func (s *Store) mergeRoles(key string, items map[string]Item, roles map[string][]string) Item {
	whole := maps.Clone(items[key])
	for _, rk := range slices.Sorted(maps.Keys(roles)) {
		for _, name := range roles[rk] {
			v, ok := items[rk][name]
			if !ok {
				continue
			}
			if len(whole) == 0 {
				whole = s.bareEntityItem(key)
			}
			if _, own := whole[name]; !own {
				whole[name] = v
			}
		}
	}
	return whole
}

// bareEntityItem is the item an entity put without attributes would write:
// its keys and, in a layout with one, its type.
func (s *Store) bareEntityItem(key string) Item {
	it := s.keyItem(s.layout.ItemKeys(key))
	if ent, _, err := s.schema.ResolveKey(key); err == nil && ent != nil && s.layout.Type != "" {
		it[s.layout.Type] = str(ent.Name)
	}
	return it
}

// batchGetKeys reads the items PK = SK = key for each of keys (at most 100)
// with one BatchGetItem, sending UnprocessedKeys again with backoff. The
// result holds the items found, by key.
func (s *Store) batchGetKeys(ctx context.Context, keys []string, consistent bool) (map[string]Item, error) {
	table := s.schema.Table.Name
	var req []map[string]types.AttributeValue
	for _, k := range keys {
		req = append(req, s.keyOf(k, k))
	}
	found := make(map[string]Item, len(keys))
	r := newBackoff(0)
	for len(req) > 0 {
		ka := types.KeysAndAttributes{Keys: req}
		if consistent {
			ka.ConsistentRead = aws.Bool(true)
		}
		out, err := s.batchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: ka}})
		if err != nil {
			return nil, err
		}
		for _, it := range out.Responses[table] {
			found[sOf(it, s.layout.PK)] = it
		}
		left := out.UnprocessedKeys[table].Keys
		if len(left) < len(req) {
			r.progressed()
		}
		req = left
		if len(req) > 0 {
			if err := r.wait(ctx, &ThrottledError{Err: errors.New("BatchGetItem kept returning UnprocessedKeys")}); err != nil {
				return nil, err
			}
		}
	}
	return found, nil
}
