package local

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/adjl/adjl/local/internal/attr"
)

type writeRequest struct {
	PutRequest *struct {
		Item attr.Item
	} `json:",omitempty"`
	DeleteRequest *struct {
		Key attr.Item
	} `json:",omitempty"`
}

type batchWriteIn struct {
	RequestItems                map[string][]writeRequest
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

// releaseBatchWrite hands a BatchWriteItem's item maps back to batchItems
// once it has answered: nothing keeps them, the store keeps encodings.
func releaseBatchWrite(in *batchWriteIn) {
	for _, reqs := range in.RequestItems {
		for _, wr := range reqs {
			if wr.PutRequest != nil {
				batchItems.Put(wr.PutRequest.Item)
			}
			if wr.DeleteRequest != nil {
				batchItems.Put(wr.DeleteRequest.Key)
			}
		}
	}
}

// batchOps recycles BatchWriteItem's plans (25 ops of ~300 bytes).
var batchOps = sync.Pool{New: func() any { return new([]batchOp) }}

func putBatchOps(ops *[]batchOp) {
	clear(*ops)
	*ops = (*ops)[:0]
	batchOps.Put(ops)
}

// batchOp is one validated write of a BatchWriteItem.
type batchOp struct {
	t    *table
	pk   primaryKey
	item attr.Item // nil for a delete
}

// batchWriteItem is BatchWriteItem: up to 25 puts and deletes over any
// tables, all checked before any is written, in one group commit.
func (e *Engine) batchWriteItem(body []byte) ([]byte, error) {
	var in batchWriteIn
	err := decodeBatchWrite(body, &in)
	defer releaseBatchWrite(&in)
	if err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validationf("The requestItems parameter is required for BatchWriteItem")
	}
	names := slices.Sorted(maps.Keys(in.RequestItems))
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	total := 0
	for _, name := range names {
		if n := len(in.RequestItems[name]); n < 1 || n > maxBatchWrite {
			s := showWriteRequests(in.RequestItems, names)
			v.add(&s, "requestItems", fmt.Sprintf("Map value must satisfy constraint: [Member must have length less than or equal to %d, Member must have length greater than or equal to 1]", maxBatchWrite))
			break
		}
		total += len(in.RequestItems[name])
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	// A malformed table name is reported only once the members above pass:
	// the captures (two regions, 2026-10-09) show the enums alone over it,
	// unlike BatchGetItem's; that a request count does the same is their
	// model, not a capture.
	var bad violations
	bad.requestItemNames(names, func() string { return showWriteRequests(in.RequestItems, names) })
	if err := bad.err(); err != nil {
		return nil, err
	}
	if total > maxBatchWrite {
		return nil, validationf("Too many items requested for the BatchWriteItem call")
	}
	wantCC := in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	ops := batchOps.Get().(*[]batchOp)
	defer putBatchOps(ops)
	var tables []*table
	for _, name := range names {
		reqs := in.RequestItems[name]
		// An attribute named "" before the table, as in a transaction.
		for _, wr := range reqs {
			if wr.PutRequest != nil {
				if _, ok := wr.PutRequest.Item[""]; ok {
					return nil, emptyAttributeName()
				}
			}
		}
		t, err := e.tableFor(name)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
		seen := make(map[string]bool, len(reqs))
		for _, wr := range reqs {
			var op batchOp
			op.t = t
			switch {
			case wr.PutRequest != nil && wr.DeleteRequest == nil:
				if wr.PutRequest.Item == nil {
					return nil, validationf("1 validation error detected: Value null at 'requestItems.%s.member.putRequest.item' failed to satisfy constraint: Member must not be null", name)
				}
				if op.pk, err = t.keyFromBatchItem(wr.PutRequest.Item); err != nil {
					return nil, err
				}
				if err := t.checkIndexKeys(wr.PutRequest.Item); err != nil {
					return nil, err
				}
				if err := checkItemSize(wr.PutRequest.Item); err != nil {
					return nil, err
				}
				op.item = wr.PutRequest.Item
			case wr.DeleteRequest != nil && wr.PutRequest == nil:
				if op.pk, err = t.keyFromKey(wr.DeleteRequest.Key); err != nil {
					return nil, err
				}
			default:
				return nil, validationf("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if seen[string(op.pk.enc)] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(op.pk.enc)] = true
			*ops = append(*ops, op)
		}
	}
	ccByTable := map[string]*capacity{}
	var collected collections
	var metrics map[string][]collectionMetrics
	err = e.update(func(w *writer) error {
		// The function may run twice (group commit): start from scratch.
		clear(ccByTable)
		collected, metrics = collections{}, nil
		for _, op := range *ops {
			old, err := getItem(w.tx, op.t, op.pk.enc)
			if err != nil {
				return err
			}
			if wantCC {
				cc := ccByTable[op.t.name]
				if cc == nil {
					cc = newCapacity(op.t)
					ccByTable[op.t.name] = cc
				}
				cc.addWrite(op.t, op.pk, old, op.item, 1)
			}
			if op.item == nil {
				err = w.del(op.t, op.pk, old)
			} else {
				err = w.put(op.t, op.pk, old, op.item)
			}
			if err != nil {
				return err
			}
			if wantCollections(in.ReturnItemCollectionMetrics, op.t) {
				collected.touch(op.t, op.pk.hash)
			}
		}
		var err error
		metrics, err = collected.measure(w)
		return err
	})
	if err != nil {
		return nil, err
	}
	var r response
	r.field("UnprocessedItems")
	r.b = append(r.b, '{', '}')
	if wantCC {
		appendCapacities(&r, in.ReturnConsumedCapacity, capacitiesOf(tables, ccByTable))
	}
	if err := appendCollectionsPerTable(&r, collected.tables, metrics); err != nil {
		return nil, err
	}
	return r.bytes(), nil
}

// showWriteRequests renders RequestItems the way a validation message
// echoes it: {table=[{PutRequest: {Item: {...}}}, ...]}.
func showWriteRequests(items map[string][]writeRequest, names []string) string {
	tables := make([]string, len(names))
	for i, name := range names {
		reqs := make([]string, len(items[name]))
		for j, wr := range items[name] {
			switch {
			case wr.PutRequest != nil:
				b, _ := wr.PutRequest.Item.AppendJSON(nil)
				reqs[j] = "{PutRequest: {Item: " + string(b) + "}}"
			case wr.DeleteRequest != nil:
				b, _ := wr.DeleteRequest.Key.AppendJSON(nil)
				reqs[j] = "{DeleteRequest: {Key: " + string(b) + "}}"
			default:
				reqs[j] = "{}"
			}
		}
		tables[i] = name + "=[" + strings.Join(reqs, ", ") + "]"
	}
	return "{" + strings.Join(tables, ", ") + "}"
}
