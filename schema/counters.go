package schema

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// CounterSKPrefix starts the sort key of every counter shard item. It lies
// under the reserved prefix, so it can never collide with an entity, role or
// edge sort key, and one Query (PK = key AND begins_with(SK, CounterSKPrefix))
// reads every counter shard of a key.
const CounterSKPrefix = ReservedPrefix + "COUNT#"

// CounterSK is the sort key of shard k of a counter: ADJL#COUNT#followerCount#3.
func CounterSK(counter string, k int) string {
	return CounterSKPrefix + counter + Delimiter + strconv.Itoa(k)
}

// CounterOfSK returns the counter name of a counter shard sort key; ok is
// false for any other sort key.
func CounterOfSK(sk string) (name string, ok bool) {
	name, _, ok = CounterShardOfSK(sk)
	return name, ok
}

// CounterShardOfSK returns the counter name and shard number of a counter
// shard sort key; ok is false for any other sort key. Counter names cannot
// contain the delimiter, so the name is everything up to the last one.
func CounterShardOfSK(sk string) (name string, k int, ok bool) {
	rest, found := strings.CutPrefix(sk, CounterSKPrefix)
	if !found {
		return "", 0, false
	}
	i := strings.LastIndex(rest, Delimiter)
	if i <= 0 {
		return "", 0, false
	}
	k, err := strconv.Atoi(rest[i+1:])
	if err != nil || k < 0 {
		return "", 0, false
	}
	return rest[:i], k, true
}

// Counter returns the counter kept on the side at end ("" for none) and the
// number of counter items it is spread over (at least 1).
func (r *Relation) Counter(end End) (name string, shards int) {
	if end == FromEnd {
		return r.Counters.From, max(r.Counters.FromShards, 1)
	}
	return r.Counters.To, max(r.Counters.ToShards, 1)
}

// CounterShard is the counter item an edge changes on the side at end: a
// stable hash (FNV-1a) of the OTHER side's key mod the counter's shards, so
// linking and unlinking one edge always touch the same counter item.
func (r *Relation) CounterShard(end End, otherKey string) int {
	_, n := r.Counter(end)
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(otherKey))
	return int(h.Sum32() % uint32(n))
}

// CounterShards is the number of items the counter name kept on items
// whose key starts with prefix is spread over (1: kept on the item itself,
// or no such counter). Its value is the sum of the item's own value (one
// from before the counter was sharded) and of shard items 0 to CounterShards-1
// only: one left beyond them by a schema that declared more holds counts
// no link changes any more, and no reader adds it in; after the schema
// reduces a counter's shards, counters repair makes the remaining items
// hold the count.
func (s *Schema) CounterShards(prefix, name string) int {
	for _, r := range s.Relations {
		for _, end := range []End{FromEnd, ToEnd} {
			sd := r.From
			if end == ToEnd {
				sd = r.To
			}
			if n, shards := r.Counter(end); n == name && sd.Prefix == prefix {
				return shards
			}
		}
	}
	return 1
}

// ShardedCounters lists the sharded counters kept on items whose key starts
// with prefix, in schema order: what a read of such an item must sum.
func (s *Schema) ShardedCounters(prefix string) []string {
	var out []string
	for _, r := range s.Relations {
		for _, end := range []End{FromEnd, ToEnd} {
			sd := r.From
			if end == ToEnd {
				sd = r.To
			}
			if name, n := r.Counter(end); name != "" && n > 1 && sd.Prefix == prefix && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}
