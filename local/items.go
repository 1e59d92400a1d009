package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

func init() {
	operations["PutItem"] = (*Engine).putItem
	operations["GetItem"] = (*Engine).getItem
	operations["DeleteItem"] = (*Engine).deleteItem
	operations["UpdateItem"] = (*Engine).updateItem
}

type putItemIn struct {
	itemWriteIn
	Item attr.Item
}

type getItemIn struct {
	TableName                string
	Key                      attr.Item
	ConsistentRead           bool
	ProjectionExpression     *string
	ExpressionAttributeNames map[string]string
	AttributesToGet          []string
	ReturnConsumedCapacity   string
}

type deleteItemIn struct {
	itemWriteIn
	Key attr.Item
}

type updateItemIn struct {
	itemWriteIn
	Key              attr.Item
	UpdateExpression *string
	AttributeUpdates map[string]any
}

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

func (e *Engine) getItem(body []byte) ([]byte, error) {
	var in getItemIn
	if err := decodeGetItem(body, &in); err != nil {
		return nil, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	wantCC, err := wantCapacity(in.ReturnConsumedCapacity)
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
	ex := newExprs(in.ExpressionAttributeNames, nil)
	proj, err := ex.projection(in.ProjectionExpression, in.AttributesToGet)
	if err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	var it attr.Item
	err = e.db.View(func(tx kv.Tx) error {
		it, err = getItem(tx, t, pk.enc)
		return err
	})
	if err != nil {
		return nil, err
	}
	var r response
	if it != nil {
		size := attr.ItemSize(it)
		if proj != nil {
			it = proj(it)
		}
		if err := r.item("Item", it); err != nil {
			return nil, err
		}
		if wantCC {
			cc := newCapacity(t)
			cc.addRead(nil, size, in.ConsistentRead, 1)
			r.capacity(in.ReturnConsumedCapacity, cc)
		}
	} else if wantCC {
		cc := newCapacity(t)
		cc.addRead(nil, 0, in.ConsistentRead, 1)
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
}

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
