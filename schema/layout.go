package schema

import (
	"fmt"
	"slices"
	"strconv"
)

// LayoutKind says how the inverted index is keyed.
type LayoutKind string

// Layout kinds, as written in table.index.layout.
const (
	// LayoutGeneric is adjl's own layout: the index has key attributes of
	// its own (GSI1PK/GSI1SK) that adjl writes on every entity item and edge,
	// so an edge's index partition can be a shard of its to-key.
	LayoutGeneric LayoutKind = "generic"
	// LayoutInverted is the adjacency list of AWS's best-practices guide:
	// the index is keyed on the table's own keys swapped (partition key =
	// the table's sort key, sort key = its partition key), and items carry
	// only the table's keys and their own attributes.
	LayoutInverted LayoutKind = "inverted"
)

// Layout names the key attributes of the table and its inverted index, and
// derives every item's keys from them. It is the one owner of key attribute
// names: code that builds or reads items asks Schema.Layout() for them
// (PK, SK, IndexPK, IndexSK, Type, KeyNames, KeyValues, Reserved) and for
// keys (ItemKeys, EdgeKeys, ReversePartitions), and never names an attribute
// itself.
type Layout struct {
	Kind LayoutKind
	// PK and SK are the table's partition and sort key attributes.
	PK, SK string
	// IndexPK and IndexSK are the index's partition and sort key attributes:
	// attributes of their own in the generic layout, SK and PK in the
	// inverted one.
	IndexPK, IndexSK string
	// Type is the attribute recording each item's entity or relation name,
	// or "" when the layout has none (inverted: items carry only what the
	// user's layout names, and items are told apart by their keys).
	Type string
}

// Default key attribute names: the layout of a schema that names none.
const (
	DefaultPK      = "PK"
	DefaultSK      = "SK"
	DefaultIndexPK = "GSI1PK"
	DefaultIndexSK = "GSI1SK"
	DefaultType    = "type"
)

// DefaultLayout is adjl's generic layout under its default names.
var DefaultLayout = GenericLayout(DefaultPK, DefaultSK, DefaultIndexPK, DefaultIndexSK)

// GenericLayout is the generic layout with the given key attribute names.
func GenericLayout(pk, sk, indexPK, indexSK string) Layout {
	return Layout{Kind: LayoutGeneric, PK: pk, SK: sk, IndexPK: indexPK, IndexSK: indexSK, Type: DefaultType}
}

// InvertedLayout is the inverted layout over a table keyed pk, sk.
func InvertedLayout(pk, sk string) Layout {
	return Layout{Kind: LayoutInverted, PK: pk, SK: sk, IndexPK: sk, IndexSK: pk}
}

// Layout is the schema's key layout. Schemas built by hand without one
// (tests) get DefaultLayout.
func (s *Schema) Layout() Layout {
	if s.Table.Layout.PK == "" {
		return DefaultLayout
	}
	return s.Table.Layout
}

// Inverted reports whether the index is keyed on the table's keys swapped.
func (l Layout) Inverted() bool { return l.Kind == LayoutInverted }

// WritesIndexKeys reports whether entity items and edges carry index key
// attributes of their own (generic), rather than being indexed by their
// table keys (inverted).
func (l Layout) WritesIndexKeys() bool { return !l.Inverted() }

// Stamps reports whether items record the shard count of the relation they
// were written under (see ShardStampPrefix). Only the generic layout shards,
// so only it stamps: an inverted table holds nothing it does not name.
func (l Layout) Stamps() bool { return !l.Inverted() }

// CountsChanges reports whether counter items record how often each
// counter changed (see ChangesPrefix); as with Stamps, only the generic
// layout does.
func (l Layout) CountsChanges() bool { return !l.Inverted() }

// KeyNames are the key attributes of the table and the index, each once:
// four in the generic layout, two in the inverted one.
func (l Layout) KeyNames() []string {
	out := []string{l.PK, l.SK}
	for _, n := range []string{l.IndexPK, l.IndexSK} {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Reserved are the attributes the layout manages: its key attributes and
// the type attribute. Users cannot declare or --set them.
func (l Layout) Reserved() []string {
	out := l.KeyNames()
	if l.Type != "" {
		out = append(out, l.Type)
	}
	return out
}

// KeyValue is one key attribute of an item and its value.
type KeyValue struct {
	Name, Value string
}

// KeyValues are the key attributes an item with keys k carries, in
// KeyNames order: the table keys, and in the generic layout the index keys.
func (l Layout) KeyValues(k Keys) []KeyValue {
	out := make([]KeyValue, 2, 4)
	out[0], out[1] = KeyValue{l.PK, k.PK}, KeyValue{l.SK, k.SK}
	if l.WritesIndexKeys() {
		out = append(out, KeyValue{l.IndexPK, k.IndexPK}, KeyValue{l.IndexSK, k.IndexSK})
	}
	return out
}

// CursorKeys are the attributes of a list's position (ExclusiveStartKey):
// the table keys, and reading the index its keys first.
func (l Layout) CursorKeys(index bool) []string {
	if !index {
		return []string{l.PK, l.SK}
	}
	out := []string{l.IndexPK, l.IndexSK}
	for _, n := range []string{l.PK, l.SK} {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// ItemKeys are the keys of an entity (or role) item: the key in every key
// attribute, so the item is returned by both a forward and a reverse Query
// of its own partition ("profile + edges in one read").
func (l Layout) ItemKeys(key string) Keys {
	return Keys{PK: key, SK: key, IndexPK: key, IndexSK: key}
}

// EdgeKeys derives the keys of the edge item between two full keys (already
// normalised with FromKey and ToKey): PK the from-key, SK the edge prefix
// and the to-key; in the index, partition the reverse partition and sort
// key the from-key.
func (l Layout) EdgeKeys(r *Relation, fromKey, toKey string) Keys {
	return Keys{
		PK:      fromKey,
		SK:      r.Edge + toKey,
		IndexPK: l.ReversePartition(r, toKey, r.Shard(fromKey)),
		IndexSK: fromKey,
	}
}

// ReversePartition is the index partition of shard k of toKey's reverse
// list: toKey, or toKey#k when sharded (generic); the edge's sort key
// Edge+toKey (inverted, never sharded).
func (l Layout) ReversePartition(r *Relation, toKey string, k int) string {
	switch {
	case l.Inverted():
		return r.Edge + toKey
	case r.Shards <= 1:
		return toKey
	}
	return toKey + Delimiter + strconv.Itoa(k)
}

// ReversePartitions lists every index partition a reverse read of toKey
// must query.
func (l Layout) ReversePartitions(r *Relation, toKey string) []string {
	n := max(r.Shards, 1)
	out := make([]string, n)
	for k := range n {
		out[k] = l.ReversePartition(r, toKey, k)
	}
	return out
}

// ReverseHoldsEntity reports whether the index partition of a reverse read
// of r also holds the to-side's own item (its key in both index keys): in
// the generic layout when unsharded, in the inverted one when the edge
// prefix is empty (the edge's sort key is then the to-key itself).
func (l Layout) ReverseHoldsEntity(r *Relation) bool {
	if l.Inverted() {
		return r.Edge == ""
	}
	return r.Shards <= 1
}

// String describes the layout in one line, as table describe and plan show it.
func (l Layout) String() string {
	if l.Inverted() {
		return fmt.Sprintf("inverted (table %s, %s; index %s, %s)", l.PK, l.SK, l.IndexPK, l.IndexSK)
	}
	return fmt.Sprintf("generic (table %s, %s; index %s, %s)", l.PK, l.SK, l.IndexPK, l.IndexSK)
}

// RecognizeLayout names the layout of a table keyed pk, sk whose index is
// keyed indexPK, indexSK: inverted when the index swaps the table's keys,
// generic when it has keys of its own; ok is false for anything else (an
// index sharing one key with the table, or a missing key).
func RecognizeLayout(pk, sk, indexPK, indexSK string) (Layout, bool) {
	switch {
	case pk == "" || sk == "" || indexPK == "" || indexSK == "":
		return Layout{}, false
	case indexPK == sk && indexSK == pk:
		return InvertedLayout(pk, sk), true
	case indexPK == pk || indexPK == sk || indexSK == pk || indexSK == sk:
		return Layout{}, false
	}
	return GenericLayout(pk, sk, indexPK, indexSK), true
}
