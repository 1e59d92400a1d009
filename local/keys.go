package local

import (
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
)

// DynamoDB's key size limits.
const (
	maxHashKeySize  = 2048
	maxRangeKeySize = 1024
	maxItemSize     = 400 * 1024
)

// primaryKey is a validated table key and its storage encoding.
type primaryKey struct {
	hash, rng attr.Value
	enc       []byte // AppendKey(hash) [+ AppendKey(rng)]
}

// keyItem returns the key attributes of it as an item (for LastEvaluatedKey,
// ReturnValues of keys...).
func (t *table) keyItem(it attr.Item) attr.Item {
	k := attr.Item{t.hash: it[t.hash]}
	if t.rng != "" {
		k[t.rng] = it[t.rng]
	}
	return k
}

// keyFromKey validates a Key parameter (GetItem, DeleteItem, UpdateItem,
// BatchGet, ...): exactly the key attributes, of the declared types.
func (t *table) keyFromKey(k attr.Item) (primaryKey, error) {
	want := 1
	if t.rng != "" {
		want = 2
	}
	h, ok := k[t.hash]
	var r attr.Value
	if t.rng != "" {
		var rok bool
		r, rok = k[t.rng]
		ok = ok && rok
	}
	if !ok || len(k) != want || h.Kind != t.hashKind || t.rng != "" && r.Kind != t.rngKind {
		return primaryKey{}, errKeySchema()
	}
	return t.makeKey(h, r)
}

// keyFromBatchItem is keyFromItem for BatchWriteItem's PutRequest, which
// reports key attributes of the wrong type as a key that does not fit the
// schema.
func (t *table) keyFromBatchItem(it attr.Item) (primaryKey, error) {
	h, ok := it[t.hash]
	var r attr.Value
	if t.rng != "" {
		var rok bool
		r, rok = it[t.rng]
		ok = ok && rok && r.Kind == t.rngKind
	}
	if !ok || h.Kind != t.hashKind {
		return primaryKey{}, errKeySchema()
	}
	return t.makeKey(h, r)
}

// keyFromItem validates the key attributes of a full item (PutItem).
func (t *table) keyFromItem(it attr.Item) (primaryKey, error) {
	h, ok := it[t.hash]
	if !ok {
		return primaryKey{}, schemaMismatch("Missing the key %s in the item", t.hash)
	}
	var r attr.Value
	if t.rng != "" {
		r, ok = it[t.rng]
		if !ok {
			return primaryKey{}, schemaMismatch("Missing the key %s in the item", t.rng)
		}
	}
	return t.makeKey(h, r)
}

func (t *table) makeKey(h, r attr.Value) (primaryKey, error) {
	if err := checkKeyValue(t.hash, t.hashKind, h, maxHashKeySize); err != nil {
		return primaryKey{}, err
	}
	enc := attr.AppendKey(make([]byte, 0, 48), h)
	if t.rng != "" {
		if err := checkKeyValue(t.rng, t.rngKind, r, maxRangeKeySize); err != nil {
			return primaryKey{}, err
		}
		enc = attr.AppendKey(enc, r)
	}
	return primaryKey{hash: h, rng: r, enc: enc}, nil
}

// checkKeyValue validates one table key attribute value.
func checkKeyValue(name string, want attr.Kind, v attr.Value, max int) error {
	if v.Kind != want {
		return schemaMismatch("Type mismatch for key %s expected: %s actual: %s", name, want, v.Kind)
	}
	switch v.Kind {
	case attr.S:
		if v.Str == "" {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
		}
		if len(v.Str) > max {
			return keyTooBig(max)
		}
	case attr.B:
		if len(v.Bytes) == 0 {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
		}
		if len(v.Bytes) > max {
			return keyTooBig(max)
		}
	}
	return nil
}

func keyTooBig(max int) error {
	if max == maxHashKeySize {
		return invalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	return invalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
}

// checkIndexKeys validates the index key attributes present in an item about
// to be written: absent is fine (sparse index), present must have the
// declared type and be non-empty.
func (t *table) checkIndexKeys(it attr.Item) error {
	for _, x := range t.indexes {
		for _, ka := range [2]struct {
			name string
			kind attr.Kind
		}{{x.hash, x.hashKind}, {x.rng, x.rngKind}} {
			if ka.name == "" || ka.name == t.hash || ka.name == t.rng {
				continue
			}
			v, ok := it[ka.name]
			if !ok {
				continue
			}
			if v.Kind != ka.kind {
				return schemaMismatch("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", ka.name, ka.kind, v.Kind, x.name)
			}
			if v.Kind == attr.S && v.Str == "" || v.Kind == attr.B && len(v.Bytes) == 0 {
				kind := "string"
				if v.Kind == attr.B {
					kind = "binary"
				}
				return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, x.name, ka.name)
			}
		}
	}
	return nil
}

// indexKey returns the storage key of it in index x, or nil when the item
// lacks one of the index key attributes (a sparse index skips it): the
// index key values, then the table key. The entry's value is empty (see
// indexEntryValue), as the table key is already the key's tail.
func (x *index) indexKey(dst []byte, it attr.Item, tableKey []byte) []byte {
	h, ok := it[x.hash]
	if !ok || h.Kind != x.hashKind {
		return nil
	}
	dst = attr.AppendKey(dst, h)
	if x.rng != "" {
		r, ok := it[x.rng]
		if !ok || r.Kind != x.rngKind {
			return nil
		}
		dst = attr.AppendKey(dst, r)
	}
	return append(dst, tableKey...)
}

// indexEntryValue is the value of every index entry written. Files written
// before it held the table key here; readers take a non-empty value as the
// table key, so both kinds of entry read the same. Leaving it out makes an
// index entry about 30% smaller, in the write-ahead log and the data file.
var indexEntryValue = []byte{}

// tableKeyOf returns the table key of index x's entry k, v.
func (x *index) tableKeyOf(k, v []byte) ([]byte, error) {
	if len(v) > 0 {
		return v, nil
	}
	rest, err := attr.SkipKey(k, x.hashKind)
	if err == nil && x.rng != "" {
		rest, err = attr.SkipKey(rest, x.rngKind)
	}
	if err != nil {
		return nil, fmt.Errorf("index %s: malformed entry: %w", x.name, err)
	}
	return rest, nil
}
