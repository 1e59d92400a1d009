package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

type getItemIn struct {
	readIn
	Key attr.Item
}

// getItem is GetItem.
func (e *Engine) getItem(in *getItemIn) ([]byte, error) {
	var v violations
	in.readIn.constraints(&v)
	v.tableName("tableName", in.TableName, in.tableNameSet || in.TableName != "")
	if in.Key == nil {
		v.null("key")
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkMixing([]param{{"AttributesToGet", in.AttributesToGet != nil}},
		[]param{{"ProjectionExpression", in.ProjectionExpression != nil}}, in.ExpressionAttributeNames, nil, false); err != nil {
		return nil, err
	}
	ex := newExprs(in.ExpressionAttributeNames, nil)
	proj, err := ex.lastProjection(in.ProjectionExpression, in.AttributesToGet)
	if err != nil {
		return nil, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	wantCC := in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	pk, err := t.keyFromKey(in.Key)
	if err != nil {
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
