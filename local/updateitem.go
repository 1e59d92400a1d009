package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// updateItem is UpdateItem: UpdateExpression or AttributeUpdates applied to
// the item (or a new one made of the key), conditional on
// ConditionExpression or Expected.
func (e *Engine) updateItem(in *updateItemIn) ([]byte, error) {
	var parsed *expr.Update
	var legacy []expr.AttributeUpdate
	cw, err := e.checkWrite(&in.itemWriteIn, itemWrite{itemMember: "key", itemSet: in.Key != nil,
		returnValues: []string{"ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"},
		isUpdate:     true, update: in.UpdateExpression, updates: in.AttributeUpdates},
		func(ex *exprs) error {
			var err error
			if in.AttributeUpdates != nil {
				legacy, err = checkAttributeUpdates(in.AttributeUpdates)
				return err
			}
			parsed, err = ex.parseUpdate(in.UpdateExpression)
			return err
		})
	if err != nil {
		return nil, err
	}
	t := cw.t
	pk, err := t.keyFromKey(in.Key)
	if err != nil {
		return nil, err
	}
	var upd updateFn
	if in.AttributeUpdates != nil {
		upd, err = legacyUpdateFn(legacy, t)
	} else {
		upd, err = bindUpdate(parsed, t)
	}
	if err != nil {
		return nil, err
	}
	var item attr.Item
	var changed []string
	old, cc, metrics, err := e.measuredWrite(t, pk, cw.cond, in.ReturnValuesOnConditionCheckFailure,
		wantCollections(in.ReturnItemCollectionMetrics, t), func(w *writer, old attr.Item, cc *capacity) error {
			var err error
			item, changed, err = applyUpdate(t, upd, in.Key, old)
			if err != nil {
				return err
			}
			cc.addWrite(t, pk, old, item, 1)
			return w.put(t, pk, old, item)
		})
	if err != nil {
		return nil, err
	}
	return writeResponse(&in.itemWriteIn, updateReturn(in.ReturnValues, old, item, changed), cw.wantCC, cc, metrics)
}

// applyUpdate computes the new item of an UpdateItem (old may be nil: the
// item is created from its key) and validates it like a put.
func applyUpdate(t *table, upd updateFn, key, old attr.Item) (attr.Item, []string, error) {
	var base attr.Item
	if old != nil {
		base = old // Apply copies what it changes
	} else {
		base = attr.Item{}
		for k, v := range key {
			base[k] = v
		}
	}
	var changed []string
	if upd != nil {
		var err error
		base, changed, err = upd(base)
		if err != nil {
			return nil, nil, err
		}
	}
	if err := t.checkIndexKeys(base); err != nil {
		return nil, nil, err
	}
	if attr.ItemSize(base) > maxItemSize {
		return nil, nil, validationf("Item size to update has exceeded the maximum allowed size")
	}
	return base, changed, nil
}

// updateReturn picks the Attributes of an UpdateItem response. UPDATED_OLD
// and UPDATED_NEW return the changed fragments: for a map changed inside,
// only the entries that differ, as DynamoDB does for `SET a.b = :v`.
// (Until expr exposes the update's paths this is derived by comparing the
// item before and after; a SET to an unchanged nested value returns the
// whole top-level attribute.)
func updateReturn(mode string, old, item attr.Item, changed []string) attr.Item {
	switch mode {
	case "ALL_OLD":
		return old
	case "ALL_NEW":
		return item
	case "UPDATED_OLD", "UPDATED_NEW":
		src, other := item, old
		if mode == "UPDATED_OLD" {
			src, other = old, item
		}
		if src == nil {
			return nil
		}
		out := attr.Item{}
		for _, k := range changed {
			v, ok := src[k]
			if !ok {
				continue
			}
			if ov, ook := other[k]; ook && v.Kind == attr.M && ov.Kind == attr.M {
				if frag, changed := mapFragment(v.Map, ov.Map); changed {
					out[k] = attr.Map(frag)
					continue
				}
				if _, removed := mapFragment(ov.Map, v.Map); removed {
					continue // only removals inside: nothing new (or old) to show
				}
			}
			out[k] = v
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return nil
}

// mapFragment returns the entries of m that are absent from or differ in
// other, recursing into maps present in both; changed is false when m and
// other hold the same entries.
func mapFragment(m, other map[string]attr.Value) (map[string]attr.Value, bool) {
	frag := map[string]attr.Value{}
	for k, v := range m {
		ov, ok := other[k]
		switch {
		case !ok:
			frag[k] = v
		case v.Kind == attr.M && ov.Kind == attr.M:
			if sub, changed := mapFragment(v.Map, ov.Map); changed {
				frag[k] = attr.Map(sub)
			}
		case !attr.Equal(v, ov):
			frag[k] = v
		}
	}
	return frag, len(frag) > 0
}

type updateItemIn struct {
	itemWriteIn
	Key              attr.Item
	UpdateExpression *string
	AttributeUpdates updateMap
}
