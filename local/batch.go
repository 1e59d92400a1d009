package local

import (
	"sort"
	"sync"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

func init() {
	operations["BatchGetItem"] = (*Engine).batchGetItem
	operations["BatchWriteItem"] = (*Engine).batchWriteItem
}

const (
	maxBatchGet      = 100
	maxBatchWrite    = 25
	maxBatchGetBytes = 16 << 20
)

type keysAndAttributes struct {
	Keys                     []attr.Item
	ConsistentRead           bool
	ProjectionExpression     *string
	ExpressionAttributeNames map[string]string
	AttributesToGet          []string
}

type batchGetIn struct {
	RequestItems           map[string]keysAndAttributes
	ReturnConsumedCapacity string
}

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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkBatch validates what BatchGetItem and BatchWriteItem share
// (ReturnConsumedCapacity, then at least one table) and reports whether
// capacity is wanted.
func checkBatch(rcc string, tables int) (bool, error) {
	wantCC, err := wantCapacity(rcc)
	if err != nil {
		return false, err
	}
	if tables == 0 {
		return false, validationf("1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	return wantCC, nil
}

func (e *Engine) batchGetItem(body []byte) ([]byte, error) {
	var in batchGetIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	wantCC, err := checkBatch(in.ReturnConsumedCapacity, len(in.RequestItems))
	if err != nil {
		return nil, err
	}
	type getPlan struct {
		t    *table
		keys []primaryKey
		proj projFn
		ka   keysAndAttributes
	}
	total := 0
	var plans []getPlan
	for _, name := range sortedKeys(in.RequestItems) {
		ka := in.RequestItems[name]
		t, err := e.tableFor(name)
		if err != nil {
			return nil, err
		}
		if len(ka.Keys) == 0 {
			return nil, validationf("1 validation error detected: Value '[]' at 'requestItems.%s.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1", name)
		}
		total += len(ka.Keys)
		if total > maxBatchGet {
			return nil, validationf("Too many items requested for the BatchGetItem call")
		}
		gp := getPlan{t: t, ka: ka}
		seen := map[string]bool{}
		for _, k := range ka.Keys {
			pk, err := t.keyFromKey(k)
			if err != nil {
				return nil, err
			}
			if seen[string(pk.enc)] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(pk.enc)] = true
			gp.keys = append(gp.keys, pk)
		}
		ex := newExprs(ka.ExpressionAttributeNames, nil)
		if gp.proj, err = ex.projection(ka.ProjectionExpression, ka.AttributesToGet); err != nil {
			return nil, err
		}
		if err := ex.checkUnused(); err != nil {
			return nil, err
		}
		plans = append(plans, gp)
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '{')
	var ccs []*capacity
	// DynamoDB returns at most 16 MB; keys it did not get to come back as
	// UnprocessedKeys for the caller to retry.
	unprocessed := map[string][]attr.Item{}
	err = e.db.View(func(tx kv.Tx) error {
		for i, gp := range plans {
			if i > 0 {
				r.b = append(r.b, ',')
			}
			r.b = attr.AppendJSONString(r.b, gp.t.name)
			r.b = append(r.b, ':', '[')
			cc := newCapacity(gp.t)
			n := 0
			for ki, pk := range gp.keys {
				if len(r.b) >= maxBatchGetBytes {
					unprocessed[gp.t.name] = append(unprocessed[gp.t.name], gp.ka.Keys[ki])
					continue
				}
				it, err := getItem(tx, gp.t, pk.enc)
				if err != nil {
					return err
				}
				size := 0
				if it != nil {
					size = attr.ItemSize(it)
				}
				cc.addRead(nil, size, gp.ka.ConsistentRead, 1)
				if it == nil {
					continue
				}
				if gp.proj != nil {
					it = gp.proj(it)
				}
				if n > 0 {
					r.b = append(r.b, ',')
				}
				n++
				if r.b, err = it.AppendJSON(r.b); err != nil {
					return err
				}
			}
			r.b = append(r.b, ']')
			ccs = append(ccs, cc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.b = append(r.b, '}')
	r.field("UnprocessedKeys")
	r.b = append(r.b, '{')
	for i, name := range sortedKeys(unprocessed) {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		r.b = attr.AppendJSONString(r.b, name)
		r.b = append(r.b, `:{"Keys":[`...)
		for j, k := range unprocessed[name] {
			if j > 0 {
				r.b = append(r.b, ',')
			}
			if r.b, err = k.AppendJSON(r.b); err != nil {
				return nil, err
			}
		}
		r.b = append(r.b, ']')
		ka := in.RequestItems[name]
		if ka.ConsistentRead {
			r.b = append(r.b, `,"ConsistentRead":true`...)
		}
		if ka.ProjectionExpression != nil {
			r.b = append(r.b, `,"ProjectionExpression":`...)
			r.b = attr.AppendJSONString(r.b, *ka.ProjectionExpression)
		}
		if len(ka.ExpressionAttributeNames) > 0 {
			b, _ := encodeResponse(ka.ExpressionAttributeNames)
			r.b = append(r.b, `,"ExpressionAttributeNames":`...)
			r.b = append(r.b, b...)
		}
		if ka.AttributesToGet != nil {
			b, _ := encodeResponse(ka.AttributesToGet)
			r.b = append(r.b, `,"AttributesToGet":`...)
			r.b = append(r.b, b...)
		}
		r.b = append(r.b, '}')
	}
	r.b = append(r.b, '}')
	if wantCC {
		appendCapacities(&r, in.ReturnConsumedCapacity, ccs)
	}
	return r.bytes(), nil
}

func appendCapacities(r *response, mode string, ccs []*capacity) {
	r.field("ConsumedCapacity")
	r.b = append(r.b, '[')
	for i, cc := range ccs {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		r.b = cc.appendJSON(r.b, mode)
	}
	r.b = append(r.b, ']')
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

func (e *Engine) batchWriteItem(body []byte) ([]byte, error) {
	var in batchWriteIn
	err := decodeBatchWrite(body, &in)
	defer releaseBatchWrite(&in)
	if err != nil {
		return nil, err
	}
	wantCC, err := checkBatch(in.ReturnConsumedCapacity, len(in.RequestItems))
	if err != nil {
		return nil, err
	}
	total := 0
	for _, reqs := range in.RequestItems {
		if len(reqs) > maxBatchWrite {
			return nil, validationf("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
		}
		total += len(reqs)
	}
	if total > maxBatchWrite {
		return nil, validationf("Too many items requested for the BatchWriteItem call")
	}
	ops := batchOps.Get().(*[]batchOp)
	defer putBatchOps(ops)
	var tables []*table
	for _, name := range sortedKeys(in.RequestItems) {
		reqs := in.RequestItems[name]
		t, err := e.tableFor(name)
		if err != nil {
			return nil, err
		}
		if len(reqs) == 0 {
			return nil, validationf("1 validation error detected: Value '[]' at 'requestItems.%s.member' failed to satisfy constraint: Member must have length greater than or equal to 1", name)
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
				if op.pk, err = t.keyFromItem(wr.PutRequest.Item); err != nil {
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
	err = e.update(func(w *writer) error {
		clear(ccByTable) // the function may run twice (group commit)
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
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var r response
	r.field("UnprocessedItems")
	r.b = append(r.b, '{', '}')
	if wantCC {
		var ccs []*capacity
		for _, t := range tables {
			ccs = append(ccs, ccByTable[t.name])
		}
		appendCapacities(&r, in.ReturnConsumedCapacity, ccs)
	}
	return r.bytes(), nil
}
