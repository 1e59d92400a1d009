package schema

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"
)

// KeyError reports a key the user typed that cannot be used: wrong prefix,
// empty id, too long. It is input error, caught before any request is sent.
type KeyError struct {
	Input string
	// Reason says what is wrong; Want names the expected form, e.g. "STU#<id> or <id>".
	Reason, Want string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("key %q: %s (expected %s)", shortKey(e.Input), e.Reason, e.Want)
}

// shortKey keeps a message about an oversized key readable: its first 40
// characters and "...", since the reason already gives its size.
func shortKey(s string) string {
	const keep = 40
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + "..."
		}
		n++
	}
	return s
}

// FromKey returns the full from-side key from a bare id or a prefixed key.
// Only the side's prefix is accepted, so `enroll CRS#x STU#y` fails before a
// request is sent. The key is also the edge's GSI1SK, hence the sort-key limit.
func (r *Relation) FromKey(input string) (string, error) {
	return normalizeKey(input, r.From.Prefix, MaxSortKeyBytes)
}

// ToKey returns the full to-side key; the edge SK is Edge+key, so the edge
// prefix counts against the sort-key limit.
func (r *Relation) ToKey(input string) (string, error) {
	return normalizeKey(input, r.To.Prefix, MaxSortKeyBytes-len(r.Edge))
}

// Key returns the full key of an entity from a bare id or a prefixed key.
func (e *Entity) Key(input string) (string, error) {
	return normalizeKey(input, e.Prefix, MaxSortKeyBytes)
}

func normalizeKey(input, prefix string, maxBytes int) (string, error) {
	want := prefix + "<id> or <id>"
	key := input
	if !strings.HasPrefix(input, prefix) {
		if i := strings.Index(input, Delimiter); i > 0 && isPrefixWord(input[:i]) {
			return "", &KeyError{Input: input, Reason: fmt.Sprintf("prefix %q does not belong here", input[:i+1]), Want: want}
		}
		key = prefix + input
	}
	id := key[len(prefix):]
	switch {
	case id == "":
		return "", &KeyError{Input: input, Reason: "empty id", Want: want}
	case !utf8.ValidString(id):
		return "", &KeyError{Input: input, Reason: "id is not valid UTF-8", Want: want}
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", &KeyError{Input: input, Reason: "id contains a control character", Want: want}
	case len(key) > maxBytes:
		return "", &KeyError{Input: input, Reason: fmt.Sprintf("key is %d bytes, over the %d-byte limit", len(key), maxBytes), Want: want}
	}
	return key, nil
}

// isPrefixWord reports whether s looks like a type prefix (STU, CRS, ACTOR):
// upper-case letters, digits and underscores. Ids such as "a#1" are not refused.
func isPrefixWord(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// ItemKeys are the keys of an entity (or role) item: the key in all four
// attributes, so the item is returned by both a forward and a reverse Query of
// its own partition ("profile + edges in one read").
func ItemKeys(key string) Keys {
	return Keys{PK: key, SK: key, GSI1PK: key, GSI1SK: key}
}

// EdgeSKPrefix is what every forward edge SK of the relation starts with.
func (r *Relation) EdgeSKPrefix() string { return r.Edge + r.To.Prefix }

// EdgeKeys derives the keys of the edge item between two full keys
// (already normalised with From.Key and To.Key).
func (r *Relation) EdgeKeys(fromKey, toKey string) Keys {
	return Keys{
		PK:     fromKey,
		SK:     r.Edge + toKey,
		GSI1PK: r.ReversePartition(toKey, r.Shard(fromKey)),
		GSI1SK: fromKey,
	}
}

// Shard is the stable shard of an edge: FNV-1a of the from-key mod Shards.
// The same edge always lands on the same shard, so linking stays idempotent.
func (r *Relation) Shard(fromKey string) int {
	if r.Shards <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(fromKey))
	return int(h.Sum32() % uint32(r.Shards))
}

// ReversePartition is the GSI1PK of shard k of toKey's reverse list.
func (r *Relation) ReversePartition(toKey string, k int) string {
	if r.Shards <= 1 {
		return toKey
	}
	return toKey + Delimiter + strconv.Itoa(k)
}

// ReversePartitions lists every GSI1PK a reverse read of toKey must query.
func (r *Relation) ReversePartitions(toKey string) []string {
	n := max(r.Shards, 1)
	out := make([]string, n)
	for k := range n {
		out[k] = r.ReversePartition(toKey, k)
	}
	return out
}
