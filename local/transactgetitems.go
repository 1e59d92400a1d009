package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

type transactGetIn struct {
	TransactItems []struct {
		Get *txAction
	}
	ReturnConsumedCapacity string
}

// transactGetItems is TransactGetItems: up to 100 gets read in one
// transaction.
func (e *Engine) transactGetItems(body []byte) ([]byte, error) {
	var in transactGetIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	wantCC, err := checkTransact(in.ReturnConsumedCapacity, len(in.TransactItems))
	if err != nil {
		return nil, err
	}
	type getOp struct {
		t    *table
		pk   primaryKey
		proj projFn
	}
	ops := make([]getOp, 0, len(in.TransactItems))
	seen := map[string]bool{}
	for _, ti := range in.TransactItems {
		a := ti.Get
		if a == nil {
			return nil, validationf("1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null")
		}
		var op getOp
		if op.t, err = e.tableFor(a.TableName); err != nil {
			return nil, err
		}
		if op.pk, err = op.t.keyFromKey(a.Key); err != nil {
			return nil, err
		}
		ex := newExprs(a.ExpressionAttributeNames, nil)
		if op.proj, err = ex.lastProjection(a.ProjectionExpression, nil); err != nil {
			return nil, err
		}
		if err := claimItem(seen, op.t, op.pk); err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '[')
	ccByTable := map[string]*capacity{}
	var tables []*table
	err = e.db.View(func(tx kv.Tx) error {
		for i, op := range ops {
			if i > 0 {
				r.b = append(r.b, ',')
			}
			it, err := getItem(tx, op.t, op.pk.enc)
			if err != nil {
				return err
			}
			cc := ccByTable[op.t.name]
			if cc == nil {
				cc = newCapacity(op.t)
				ccByTable[op.t.name] = cc
				tables = append(tables, op.t)
			}
			size := 0
			if it != nil {
				size = attr.ItemSize(it)
			}
			cc.addRead(nil, size, true, 2)
			if it == nil {
				r.b = append(r.b, '{', '}')
				continue
			}
			if op.proj != nil {
				it = op.proj(it)
			}
			r.b = append(r.b, `{"Item":`...)
			if r.b, err = it.AppendJSON(r.b); err != nil {
				return err
			}
			r.b = append(r.b, '}')
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.b = append(r.b, ']')
	if wantCC {
		ccs := make([]*capacity, 0, len(tables))
		for _, t := range tables {
			ccs = append(ccs, ccByTable[t.name])
		}
		appendCapacities(&r, in.ReturnConsumedCapacity, ccs)
	}
	return r.bytes(), nil
}
