package local

import (
	"bytes"
	"math"
	"slices"

	"github.com/adjl/adjl/local/internal/attr"
)

// Item collections: on a table with local secondary indexes, the items that
// share a partition key value, whose size (the items plus what the local
// indexes project of them) DynamoDB limits to 10 GB. A write asked for
// ReturnItemCollectionMetrics SIZE reports the collections it touched;
// tables without local indexes report nothing.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html

// collectionMetrics is one ItemCollectionMetrics entry.
type collectionMetrics struct {
	key   attr.Item // the partition key attribute and its value
	bytes int64
}

// hasLocalIndex reports whether t has item collections to report.
func (t *table) hasLocalIndex() bool {
	return slices.ContainsFunc(t.indexes, func(x *index) bool { return !x.global })
}

// wantCollections reports whether a write to t answers with
// ItemCollectionMetrics.
func wantCollections(mode string, t *table) bool {
	return mode == "SIZE" && t.hasLocalIndex()
}

// collection measures the item collection of partition key value hash in
// t, writes included: every item's size plus the size each local index
// projects of it.
func (w *writer) collection(t *table, hash attr.Value) (collectionMetrics, error) {
	t, b, err := w.itemBucket(t)
	if err != nil {
		return collectionMetrics{}, err
	}
	m := collectionMetrics{key: attr.Item{t.hash: hash}}
	prefix := attr.AppendKey(nil, hash)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		it, err := attr.DecodeItem(v)
		if err != nil {
			return collectionMetrics{}, err
		}
		size := attr.ItemSize(it)
		m.bytes += int64(size)
		for _, x := range t.indexes {
			if !x.global && x.indexKey(nil, it, k) != nil {
				m.bytes += int64(x.projectedSizeOf(t, it, size))
			}
		}
	}
	return m, nil
}

// sizeRange is SizeEstimateRangeGB: the whole gigabytes below the size and
// the next one, the form DynamoDB gives (a collection of a few items is
// [0.0, 1.0]); the API reference promises a lower and an upper bound and
// warns that their precision may change.
func (m collectionMetrics) sizeRange() (lo, hi float64) {
	lo = math.Floor(float64(m.bytes) / (1 << 30))
	return lo, lo + 1
}

// appendJSON renders the entry.
func (m collectionMetrics) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"ItemCollectionKey":`...)
	b, err := m.key.AppendJSON(b)
	if err != nil {
		return nil, err
	}
	lo, hi := m.sizeRange()
	b = append(b, `,"SizeEstimateRangeGB":[`...)
	b = appendFloat(b, lo)
	b = append(b, ',')
	b = appendFloat(b, hi)
	return append(b, ']', '}'), nil
}

// collections gathers the item collections one batch or transaction
// touches, per table, measured once its writes are made.
type collections struct {
	tables []*table                   // in the order first touched
	keys   map[string][]attr.Value    // table name -> partition key values
	seen   map[string]map[string]bool // table name -> encoded keys
}

// touch records a write to the collection of hash in t, if t has one.
func (cs *collections) touch(t *table, hash attr.Value) {
	if !t.hasLocalIndex() {
		return
	}
	if cs.seen == nil {
		cs.keys, cs.seen = map[string][]attr.Value{}, map[string]map[string]bool{}
	}
	enc := string(attr.AppendKey(nil, hash))
	if cs.seen[t.name] == nil {
		cs.seen[t.name] = map[string]bool{}
		cs.tables = append(cs.tables, t)
	}
	if !cs.seen[t.name][enc] {
		cs.seen[t.name][enc] = true
		cs.keys[t.name] = append(cs.keys[t.name], hash)
	}
}

// measure returns the metrics of every touched collection, per table.
func (cs *collections) measure(w *writer) (map[string][]collectionMetrics, error) {
	out := map[string][]collectionMetrics{}
	for _, t := range cs.tables {
		for _, h := range cs.keys[t.name] {
			m, err := w.collection(t, h)
			if err != nil {
				return nil, err
			}
			out[t.name] = append(out[t.name], m)
		}
	}
	return out, nil
}

// appendCollectionsPerTable renders ItemCollectionMetrics of
// BatchWriteItem and TransactWriteItems: table name to entries, for the
// tables in order; with no entries at all, no member.
func appendCollectionsPerTable(r *response, tables []*table, per map[string][]collectionMetrics) error {
	if len(per) == 0 {
		return nil
	}
	r.field("ItemCollectionMetrics")
	r.b = append(r.b, '{')
	n := 0
	for _, t := range tables {
		ms := per[t.name]
		if len(ms) == 0 {
			continue
		}
		if n > 0 {
			r.b = append(r.b, ',')
		}
		n++
		r.b = attr.AppendJSONString(r.b, t.name)
		r.b = append(r.b, ':', '[')
		for i, m := range ms {
			if i > 0 {
				r.b = append(r.b, ',')
			}
			var err error
			if r.b, err = m.appendJSON(r.b); err != nil {
				return err
			}
		}
		r.b = append(r.b, ']')
	}
	r.b = append(r.b, '}')
	return nil
}
