package local

import (
	"maps"
	"slices"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
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

// batchGetItem is BatchGetItem: up to 100 keys over any tables; what
// passes 16 MB comes back as UnprocessedKeys.
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
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
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
		if gp.proj, err = ex.lastProjection(ka.ProjectionExpression, ka.AttributesToGet); err != nil {
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
	for i, name := range slices.Sorted(maps.Keys(unprocessed)) {
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
