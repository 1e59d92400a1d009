package local

import (
	"bytes"
	"hash/fnv"
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// The walk of a table or index in key order that Query and Scan share: the
// storage key range of a key condition, one page of items read from the
// store (Limit, 1 MB, filter, projection) and the page's rendering.

// keyCond is a parsed KeyConditionExpression: the partition value and an
// optional sort key comparison (op "" when absent).
type keyCond struct {
	hash   attr.Value
	op     string // "", "=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"
	v1, v2 attr.Value
}

// source is what a Query or Scan walks: the table's data bucket or one index.
type source struct {
	t     *table
	x     *index // nil for the table itself
	hash  string // key attribute names of the source
	rng   string
	hkind attr.Kind
	rkind attr.Kind
}

func newSource(t *table, x *index) source {
	if x == nil {
		return source{t: t, hash: t.hash, rng: t.rng, hkind: t.hashKind, rkind: t.rngKind}
	}
	return source{t: t, x: x, hash: x.hash, rng: x.rng, hkind: x.hashKind, rkind: x.rngKind}
}

// succ returns the smallest byte string greater than every string that has
// p as a prefix (nil when none exists).
func succ(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xFF {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

// bounds turns a key condition into the byte range [lo, hi) of the source.
func (s source) bounds(kc keyCond) (lo, hi []byte) {
	p := attr.AppendKey(nil, kc.hash)
	enc := func(v attr.Value) []byte { return attr.AppendKey(append([]byte(nil), p...), v) }
	lo, hi = p, succ(p)
	switch kc.op {
	case "=":
		k := enc(kc.v1)
		lo, hi = k, succ(k)
	case "<":
		hi = enc(kc.v1)
	case "<=":
		hi = succ(enc(kc.v1))
	case ">":
		lo = succ(enc(kc.v1))
	case ">=":
		lo = enc(kc.v1)
	case "BETWEEN":
		lo, hi = enc(kc.v1), succ(enc(kc.v2))
	case "begins_with":
		k := attr.AppendKeyPrefix(append([]byte(nil), p...), kc.v1)
		lo, hi = k, succ(k)
	}
	return lo, hi
}

// page is the result of walking a source.
type page struct {
	items    []attr.Item
	raw      []byte // fast path: the items' JSON, comma separated
	rawMode  bool
	count    int
	scanned  int
	lek      attr.Item
	readSize int
}

// walkOpts controls one walk over a source.
type walkOpts struct {
	lo, hi  []byte // range of storage keys, hi exclusive (nil: unbounded)
	forward bool
	limit   int // items evaluated before filtering; 0 = no limit
	filter  condFn
	proj    projFn
	count   bool // Select=COUNT: keep no items
	segment func(tableKey []byte) bool
	fetch   bool // index walk must fetch the table item (LSI with ALL_ATTRIBUTES)
}

// walk reads items of s in key order within [lo, hi), applying Limit, the
// 1 MB page limit, filter and projection, and computes LastEvaluatedKey.
func (s source) walk(tx kv.Tx, o walkOpts) (*page, error) {
	bucketName := s.t.bucket
	if s.x != nil {
		bucketName = s.x.bucket
	}
	b := tx.Bucket(bucketName)
	if b == nil {
		return nil, resourceNotFound()
	}
	data := tx.Bucket(s.t.bucket)
	c := b.Cursor()
	var k, v []byte
	if o.forward {
		if o.lo == nil {
			k, v = c.First()
		} else {
			k, v = c.Seek(o.lo)
		}
	} else {
		if o.hi == nil {
			k, v = c.Last()
		} else {
			k, v = c.Seek(o.hi)
			if k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
	}
	pg := &page{}
	// Fast path: whole items go out unchanged, so transcode the stored bytes
	// to JSON without building maps.
	pg.rawMode = o.filter == nil && o.proj == nil && !o.count && (s.x == nil || s.x.projType == "ALL" || o.fetch)
	if pg.rawMode {
		pg.raw = make([]byte, 0, 16<<10)
	}
	var last attr.Item
	for ; k != nil; func() {
		if o.forward {
			k, v = c.Next()
		} else {
			k, v = c.Prev()
		}
	}() {
		if o.forward && o.hi != nil && bytes.Compare(k, o.hi) >= 0 {
			break
		}
		if !o.forward && o.lo != nil && bytes.Compare(k, o.lo) < 0 {
			break
		}
		tableKey := k
		raw := v
		if s.x != nil {
			var err error
			if tableKey, err = s.x.tableKeyOf(k, v); err != nil {
				return nil, err
			}
			raw = data.Get(tableKey)
			if raw == nil {
				continue // index entry without item: cannot happen in one transaction
			}
		}
		if o.segment != nil && !o.segment(tableKey) {
			continue
		}
		if pg.rawMode {
			if pg.count > 0 {
				pg.raw = append(pg.raw, ',')
			}
			var size int
			var err error
			if pg.raw, size, err = attr.AppendJSONFromBinary(pg.raw, raw); err != nil {
				return nil, err
			}
			pg.readSize += size
			pg.scanned++
			pg.count++
			if (o.limit > 0 && pg.scanned >= o.limit) || pg.readSize >= maxPageBytes {
				it, err := attr.DecodeItem(raw)
				if err != nil {
					return nil, err
				}
				pg.lek = s.lastKey(it)
				break
			}
			continue
		}
		it, err := attr.DecodeItem(raw)
		if err != nil {
			return nil, err
		}
		if s.x != nil && !o.fetch {
			it = s.x.project(s.t, it)
			pg.readSize += s.x.projectedSize(s.t, it)
		} else {
			pg.readSize += attr.ItemSize(it)
		}
		pg.scanned++
		last = it
		keep := true
		if o.filter != nil {
			keep, err = o.filter(it)
			if err != nil {
				return nil, err
			}
		}
		if keep {
			pg.count++
			if !o.count {
				if o.proj != nil {
					it = o.proj(it)
				}
				pg.items = append(pg.items, it)
			}
		}
		if (o.limit > 0 && pg.scanned >= o.limit) || pg.readSize >= maxPageBytes {
			pg.lek = s.lastKey(last)
			break
		}
	}
	return pg, nil
}

// lastKey is LastEvaluatedKey for item it: the table key, plus the index key
// when walking an index.
func (s source) lastKey(it attr.Item) attr.Item {
	k := s.t.keyItem(it)
	if s.x != nil {
		k[s.x.hash] = it[s.x.hash]
		if s.x.rng != "" {
			k[s.x.rng] = it[s.x.rng]
		}
	}
	return k
}

// startKey validates ExclusiveStartKey and returns its storage key.
func (s source) startKey(esk attr.Item) ([]byte, error) {
	bad := func() error {
		return validationf("The provided starting key is invalid: The provided key element does not match the schema")
	}
	pk, err := s.t.keyFromKey(s.t.keyItem(esk))
	if err != nil {
		return nil, bad()
	}
	if s.x == nil {
		if len(esk) != len(s.t.keyItem(esk)) {
			return nil, bad()
		}
		return pk.enc, nil
	}
	for k := range esk {
		if k != s.t.hash && k != s.t.rng && k != s.x.hash && k != s.x.rng {
			return nil, bad()
		}
	}
	key := s.x.indexKey(nil, esk, pk.enc)
	if key == nil {
		return nil, bad()
	}
	return key, nil
}

// segmentOf assigns a table key to a parallel-scan segment by hashing its
// partition key, as DynamoDB does, so one partition stays in one segment.
func segmentOf(t *table, total, seg int64) func([]byte) bool {
	return func(tableKey []byte) bool {
		_, rest, err := attr.DecodeKey(tableKey, t.hashKind)
		if err != nil {
			return false
		}
		h := fnv.New64a()
		h.Write(tableKey[:len(tableKey)-len(rest)])
		return int64(h.Sum64()%uint64(total)) == seg
	}
}

// appendPage renders Items/Count/ScannedCount/LastEvaluatedKey.
func appendPage(r *response, pg *page, count bool) error {
	if pg.rawMode {
		r.field("Items")
		r.b = append(r.b, '[')
		r.b = append(r.b, pg.raw...)
		r.b = append(r.b, ']')
	} else if !count {
		r.field("Items")
		r.b = append(r.b, '[')
		for i, it := range pg.items {
			if i > 0 {
				r.b = append(r.b, ',')
			}
			var err error
			r.b, err = it.AppendJSON(r.b)
			if err != nil {
				return err
			}
		}
		r.b = append(r.b, ']')
	}
	r.field("Count")
	r.b = strconv.AppendInt(r.b, int64(pg.count), 10)
	r.field("ScannedCount")
	r.b = strconv.AppendInt(r.b, int64(pg.scanned), 10)
	if pg.lek != nil {
		if err := r.item("LastEvaluatedKey", pg.lek); err != nil {
			return err
		}
	}
	return nil
}
