package local

import (
	"github.com/adjl/adjl/local/internal/attr"
)

type putItemIn struct {
	itemWriteIn
	Item attr.Item
}

// putItem is PutItem, conditional on ConditionExpression or Expected.
func (e *Engine) putItem(in *putItemIn) ([]byte, error) {
	cw, err := e.checkWrite(&in.itemWriteIn, itemWrite{itemMember: "item", itemSet: in.Item != nil, emptyName: in.emptyName, returnValues: []string{"ALL_OLD"}}, nil)
	if err != nil {
		return nil, err
	}
	pk, err := cw.t.keyFromItem(in.Item)
	if err != nil {
		return nil, err
	}
	if err := cw.t.checkIndexKeys(in.Item); err != nil {
		return nil, err
	}
	if err := checkItemSize(in.Item); err != nil {
		return nil, err
	}
	return e.replaceItem(&in.itemWriteIn, cw, pk, in.Item)
}
