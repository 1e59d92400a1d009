package local

import (
	"github.com/adjl/adjl/local/internal/attr"
)

type putItemIn struct {
	itemWriteIn
	Item attr.Item
}

// putItem is PutItem, conditional on ConditionExpression.
func (e *Engine) putItem(body []byte) ([]byte, error) {
	var in putItemIn
	if err := decodePutItem(body, &in); err != nil {
		return nil, err
	}
	t, wantCC, err := e.writeTarget(&in.itemWriteIn, nil, "ALL_OLD")
	if err != nil {
		return nil, err
	}
	if in.Item == nil {
		return nil, validationf("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
	}
	pk, err := t.keyFromItem(in.Item)
	if err != nil {
		return nil, err
	}
	if err := t.checkIndexKeys(in.Item); err != nil {
		return nil, err
	}
	if err := checkItemSize(in.Item); err != nil {
		return nil, err
	}
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	cond, err := ex.condition(in.ConditionExpression)
	if err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	old, cc, err := e.conditionalWrite(t, pk, cond, in.ReturnValuesOnConditionCheckFailure, func(w *writer, old attr.Item, cc *capacity) error {
		cc.addWrite(t, pk, old, in.Item, 1)
		return w.put(t, pk, old, in.Item)
	})
	if err != nil {
		return nil, err
	}
	if in.ReturnValues != "ALL_OLD" {
		old = nil
	}
	return writeResponse(&in.itemWriteIn, old, wantCC, cc)
}
