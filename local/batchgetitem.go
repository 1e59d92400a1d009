package local

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

type keysAndAttributes struct {
	Keys                     []attr.Item
	ConsistentRead           bool              `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
	AttributesToGet          []string          `json:",omitempty"`
}

type batchGetIn struct {
	RequestItems           map[string]keysAndAttributes
	ReturnConsumedCapacity string
}

// batchGetItem is BatchGetItem: up to 100 keys over any tables; what
// passes 16 MB comes back as UnprocessedKeys.
func (e *Engine) batchGetItem(in *batchGetIn) ([]byte, error) {
	if len(in.RequestItems) == 0 {
		return nil, validationf("The requestItems parameter is required for BatchGetItem")
	}
	names := slices.Sorted(maps.Keys(in.RequestItems))
	// RequestItems' constraints are reported ahead of ReturnConsumedCapacity's,
	// in one message (captured in two regions, 2026-10-09).
	var v violations
	v.requestItemNames(names, func() string { b, _ := json.Marshal(in.RequestItems); return string(b) })
	for _, name := range names {
		ka := in.RequestItems[name]
		member := "RequestItems." + name + ".member.Keys"
		switch {
		case len(ka.Keys) == 0:
			v.unshown(member, "Member must have length greater than or equal to 1")
		case len(ka.Keys) > maxBatchGet:
			v.unshown(member, fmt.Sprintf("Member must have length less than or equal to %d", maxBatchGet))
		}
		v.attributesToGet("requestItems."+name+".member.attributesToGet", ka.AttributesToGet)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	if err := v.err(); err != nil {
		return nil, err
	}
	wantCC := in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	type getPlan struct {
		t    *table
		keys []primaryKey
		proj projFn
		ka   keysAndAttributes
	}
	// What the keys and projections say is checked for every table before
	// any table is looked up.
	var legacy, exprs []param
	for _, name := range names {
		ka := in.RequestItems[name]
		legacy = append(legacy, param{"AttributesToGet", ka.AttributesToGet != nil})
		exprs = append(exprs, param{"ProjectionExpression", ka.ProjectionExpression != nil})
	}
	if err := checkMixing(oneParam(legacy), oneParam(exprs), nil, nil, false); err != nil {
		return nil, err
	}
	total := 0
	plans := make([]getPlan, len(names))
	for i, name := range names {
		ka := in.RequestItems[name]
		if err := checkMixing([]param{{"AttributesToGet", ka.AttributesToGet != nil}},
			[]param{{"ProjectionExpression", ka.ProjectionExpression != nil}}, ka.ExpressionAttributeNames, nil, false); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, k := range ka.Keys {
			enc := string(canonicalMap(nil, k))
			if seen[enc] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[enc] = true
		}
		if total += len(ka.Keys); total > maxBatchGet {
			return nil, validationf("Too many items requested for the BatchGetItem call")
		}
		ex := newExprs(ka.ExpressionAttributeNames, nil)
		var err error
		if plans[i].proj, err = ex.lastProjection(ka.ProjectionExpression, ka.AttributesToGet); err != nil {
			return nil, err
		}
		plans[i].ka = ka
	}
	for i, name := range names {
		gp := &plans[i]
		t, err := e.tableFor(name)
		if err != nil {
			return nil, err
		}
		gp.t = t
		for _, k := range gp.ka.Keys {
			pk, err := t.keyFromKey(k)
			if err != nil {
				return nil, err
			}
			gp.keys = append(gp.keys, pk)
		}
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '{')
	var ccs []*capacity
	// DynamoDB returns at most 16 MB; keys it did not get to come back as
	// UnprocessedKeys for the caller to retry.
	unprocessed := map[string][]attr.Item{}
	err := e.db.View(func(tx kv.Tx) error {
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
