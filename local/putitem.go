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
	return e.replaceItem(&in.itemWriteIn, t, wantCC, pk, in.Item)
}
