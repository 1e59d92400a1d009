package local

import (
	"github.com/adjl/adjl/local/internal/expr"
)

// query is Query: one partition of the table or of an index, in sort key
// order, one page (Limit, 1 MB) at a time. Its key condition is a
// KeyConditionExpression or the legacy KeyConditions, its filter a
// FilterExpression or QueryFilter.
func (e *Engine) query(in *queryIn) ([]byte, error) {
	if in.Segment != nil || in.TotalSegments != nil || in.ScanFilter != nil {
		return nil, &apiError{Type: errSerialization, Message: "Segment, TotalSegments and ScanFilter are not Query parameters"}
	}
	var v violations
	in.readConstraints(&v, "queryFilter", in.QueryFilter)
	v.operators("keyConditions", in.KeyConditions, true)
	in.indexName(&v)
	if err := v.err(); err != nil {
		return nil, err
	}
	// KeyConditions may accompany the other expressions, not its own.
	legacyKeys := param{"KeyConditions", in.KeyConditions != nil && in.KeyConditionExpression != nil}
	if err := checkMixing(
		[]param{{"AttributesToGet", in.AttributesToGet != nil}, {"QueryFilter", in.QueryFilter != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}, legacyKeys},
		[]param{{"ProjectionExpression", in.ProjectionExpression != nil}, {"FilterExpression", in.FilterExpression != nil}, {"KeyConditionExpression", in.KeyConditionExpression != nil}},
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, false); err != nil {
		return nil, err
	}
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	p := &readPlan{}
	if err := p.parseFilter(in, in.QueryFilter, ex); err != nil {
		return nil, err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return nil, validationf("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	var kce *expr.KeyCondition
	if in.KeyConditionExpression != nil {
		var err error
		if kce, err = ex.parseKeyCondition(*in.KeyConditionExpression); err != nil {
			return nil, err
		}
	}
	var err error
	if p.proj, err = ex.projection(in.ProjectionExpression, in.AttributesToGet); err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	var keyConds []expr.Comparison
	if in.KeyConditions != nil {
		if keyConds, err = filterComparisons(in.KeyConditions); err != nil {
			return nil, err
		}
		if n := len(keyConds); n != 1 && n != 2 {
			return nil, validationf("Conditions can be of length 1 or 2 only")
		}
	}
	if err := e.resolve(p, in, true); err != nil {
		return nil, err
	}
	var kc keyCond
	if kce != nil {
		kc, err = bindKeyExpression(kce, p.src)
	} else {
		kc, err = legacyKeyCondition(keyConds, p.src)
	}
	if err != nil {
		return nil, err
	}
	for _, n := range p.filterNames {
		if n != p.src.hash && n != p.src.rng {
			continue
		}
		if in.QueryFilter != nil {
			return nil, validationf("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", n)
		}
		return nil, validationf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", n)
	}
	o := p.opts()
	o.lo, o.hi = p.src.bounds(kc)
	if in.ScanIndexForward != nil && !*in.ScanIndexForward {
		o.forward = false
	}
	if in.ExclusiveStartKey != nil {
		sk, err := p.src.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if string(sk) < string(o.lo) || o.hi != nil && string(sk) >= string(o.hi) {
			return nil, validationf("The provided starting key is outside query boundaries based on provided conditions")
		}
		if o.forward {
			o.lo = append(sk, 0)
		} else {
			o.hi = sk
		}
	}
	return e.readPage(p, o)
}
