package local

import "github.com/adjl/adjl/local/internal/attr"

type deleteItemIn struct {
	itemWriteIn
	Key attr.Item
}

// deleteItem is DeleteItem, conditional on ConditionExpression.
func (e *Engine) deleteItem(body []byte) ([]byte, error) {
	var in deleteItemIn
	if err := decodeDeleteItem(body, &in); err != nil {
		return nil, err
	}
	t, wantCC, err := e.writeTarget(&in.itemWriteIn, nil, "ALL_OLD")
	if err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, validationf("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	pk, err := t.keyFromKey(in.Key)
	if err != nil {
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
		cc.addWrite(t, pk, old, nil, 1)
		return w.del(t, pk, old)
	})
	if err != nil {
		return nil, err
	}
	if in.ReturnValues != "ALL_OLD" {
		old = nil
	}
	return writeResponse(&in.itemWriteIn, old, wantCC, cc)
}
