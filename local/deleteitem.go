package local

import "github.com/adjl/adjl/local/internal/attr"

type deleteItemIn struct {
	itemWriteIn
	Key attr.Item
}

// deleteItem is DeleteItem, conditional on ConditionExpression or Expected.
func (e *Engine) deleteItem(in *deleteItemIn) ([]byte, error) {
	cw, err := e.checkWrite(&in.itemWriteIn, itemWrite{itemMember: "key", itemSet: in.Key != nil, returnValues: []string{"ALL_OLD"}}, nil)
	if err != nil {
		return nil, err
	}
	pk, err := cw.t.keyFromKey(in.Key)
	if err != nil {
		return nil, err
	}
	return e.replaceItem(&in.itemWriteIn, cw, pk, nil)
}
