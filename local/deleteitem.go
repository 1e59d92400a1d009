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
	pk, err := t.requestKey(in.Key)
	if err != nil {
		return nil, err
	}
	return e.replaceItem(&in.itemWriteIn, t, wantCC, pk, nil)
}
