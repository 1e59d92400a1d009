package local

import (
	"fmt"
	"strings"

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
func (e *Engine) transactGetItems(in *transactGetIn) ([]byte, error) {
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.transactItems(len(in.TransactItems), func() string {
		parts := make([]string, len(in.TransactItems))
		for i, ti := range in.TransactItems {
			parts[i] = "{Get: {}}"
			if ti.Get != nil {
				parts[i] = "{Get: {TableName: " + ti.Get.TableName + "}}"
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	})
	for i, ti := range in.TransactItems {
		member := fmt.Sprintf("transactItems.%d.member.get", i+1)
		if ti.Get == nil {
			v.null(member)
			continue
		}
		v.tableName(member+".tableName", ti.Get.TableName, ti.Get.TableName != "")
		if ti.Get.Key == nil {
			v.null(member + ".key")
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	wantCC := in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	type getOp struct {
		t    *table
		pk   primaryKey
		proj projFn
	}
	ops := make([]getOp, 0, len(in.TransactItems))
	seen := map[string]bool{}
	var invalid []cancelReason // per action, when a key does not fit its table
	for i, ti := range in.TransactItems {
		a := ti.Get
		var op getOp
		var err error
		ex := newExprs(a.ExpressionAttributeNames, nil)
		if op.proj, err = ex.lastProjection(a.ProjectionExpression, nil); err != nil {
			return nil, err
		}
		if op.t, err = e.tableFor(a.TableName); err != nil {
			return nil, err
		}
		op.pk, err = op.t.keyFromKey(a.Key)
		if ae, ok := err.(*apiError); ok && ae.cancels {
			if invalid == nil {
				invalid = make([]cancelReason, len(in.TransactItems))
				for j := range invalid {
					invalid[j].Code = "None"
				}
			}
			invalid[i] = cancelReason{Code: "ValidationError", Message: ae.Message}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := claimItem(seen, op.t, op.pk); err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if invalid != nil {
		return nil, txCanceled(invalid)
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '[')
	ccByTable := map[string]*capacity{}
	var tables []*table
	err := e.db.View(func(tx kv.Tx) error {
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
		appendCapacities(&r, in.ReturnConsumedCapacity, capacitiesOf(tables, ccByTable))
	}
	return r.bytes(), nil
}
