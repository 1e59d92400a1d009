package local

import (
	bolt "go.etcd.io/bbolt"

	"github.com/adjl/adjl/local/internal/attr"
)

func init() {
	operations["PutItem"] = (*Engine).putItem
	operations["GetItem"] = (*Engine).getItem
	operations["DeleteItem"] = (*Engine).deleteItem
	operations["UpdateItem"] = (*Engine).updateItem
}

type putItemIn struct {
	TableName                           string
	Item                                attr.Item
	ConditionExpression                 *string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           attr.Item
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
	Expected                            map[string]any
	ConditionalOperator                 string
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
	TableName                           string
	Key                                 attr.Item
	ConditionExpression                 *string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           attr.Item
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
	Expected                            map[string]any
	ConditionalOperator                 string
}

type updateItemIn struct {
	TableName                           string
	Key                                 attr.Item
	UpdateExpression                    *string
	ConditionExpression                 *string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           attr.Item
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
	AttributeUpdates                    map[string]any
	Expected                            map[string]any
	ConditionalOperator                 string
}

// legacyParams rejects the pre-expression parameters the engine does not
// implement, rather than silently ignoring a condition.
func legacyParams(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		name := pairs[i].(string)
		set := false
		switch v := pairs[i+1].(type) {
		case map[string]any:
			set = v != nil
		case string:
			set = v != ""
		case []string:
			set = v != nil
		}
		if set {
			return validationf("The legacy parameter %s is not supported by the adjl local engine; use expressions instead", name)
		}
	}
	return nil
}

func checkReturnValues(rv string, allowed ...string) error {
	if rv == "" || rv == "NONE" {
		return nil
	}
	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}
	return validationf("Return values set to invalid value")
}

func checkReturnOnFailure(v string) error {
	switch v {
	case "", "NONE", "ALL_OLD":
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", v)
}

// checkItemSize enforces DynamoDB's 400 KB item limit.
func checkItemSize(it attr.Item) error {
	if attr.ItemSize(it) > maxItemSize {
		return validationf("Item size has exceeded the maximum allowed size")
	}
	return nil
}

// failedItem renders the old item for ConditionalCheckFailedException when
// the request asked for ALL_OLD.
func failedItem(mode string, old attr.Item) []byte {
	if mode != "ALL_OLD" || old == nil {
		return nil
	}
	b, _ := old.AppendJSON(nil)
	return b
}

// response builds the small JSON bodies of the item operations.
type response struct{ b []byte }

func (r *response) field(name string) {
	if len(r.b) == 0 {
		r.b = append(r.b, '{')
	} else {
		r.b = append(r.b, ',')
	}
	r.b = append(r.b, '"')
	r.b = append(r.b, name...)
	r.b = append(r.b, '"', ':')
}

func (r *response) item(name string, it attr.Item) error {
	r.field(name)
	var err error
	r.b, err = it.AppendJSON(r.b)
	return err
}

func (r *response) capacity(mode string, c *capacity) {
	r.field("ConsumedCapacity")
	r.b = c.appendJSON(r.b, mode)
}

func (r *response) bytes() []byte {
	if len(r.b) == 0 {
		return []byte("{}")
	}
	return append(r.b, '}')
}

func (e *Engine) putItem(body []byte) ([]byte, error) {
	var in putItemIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := legacyParams("Expected", in.Expected, "ConditionalOperator", in.ConditionalOperator); err != nil {
		return nil, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkReturnValues(in.ReturnValues, "ALL_OLD"); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	wantCC, err := wantCapacity(in.ReturnConsumedCapacity)
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
	cc := newCapacity(t)
	var old attr.Item
	err = e.update(func(w *writer) error {
		*cc = *newCapacity(t) // the function may run twice (group commit)
		var err error
		old, err = getItem(w.tx, t, pk.enc)
		if err != nil {
			return err
		}
		if cond != nil {
			ok, err := cond(old)
			if err != nil {
				return err
			}
			if !ok {
				cc.addWrite(t, pk, old, nil, 1)
				return conditionFailed(failedItem(in.ReturnValuesOnConditionCheckFailure, old))
			}
		}
		cc.addWrite(t, pk, old, in.Item, 1)
		return w.put(t, pk, old, in.Item)
	})
	if err != nil {
		return nil, err
	}
	var r response
	if in.ReturnValues == "ALL_OLD" && old != nil {
		if err := r.item("Attributes", old); err != nil {
			return nil, err
		}
	}
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
}

func (e *Engine) getItem(body []byte) ([]byte, error) {
	var in getItemIn
	if err := decodeRequest(body, &in); err != nil {
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
	err = e.db.View(func(tx *bolt.Tx) error {
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
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := legacyParams("Expected", in.Expected, "ConditionalOperator", in.ConditionalOperator); err != nil {
		return nil, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkReturnValues(in.ReturnValues, "ALL_OLD"); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
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
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	cond, err := ex.condition(in.ConditionExpression)
	if err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	cc := newCapacity(t)
	var old attr.Item
	err = e.update(func(w *writer) error {
		*cc = *newCapacity(t) // the function may run twice (group commit)
		var err error
		old, err = getItem(w.tx, t, pk.enc)
		if err != nil {
			return err
		}
		if cond != nil {
			ok, err := cond(old)
			if err != nil {
				return err
			}
			if !ok {
				cc.addWrite(t, pk, old, nil, 1)
				return conditionFailed(failedItem(in.ReturnValuesOnConditionCheckFailure, old))
			}
		}
		cc.addWrite(t, pk, old, nil, 1)
		return w.del(t, pk, old)
	})
	if err != nil {
		return nil, err
	}
	var r response
	if in.ReturnValues == "ALL_OLD" && old != nil {
		if err := r.item("Attributes", old); err != nil {
			return nil, err
		}
	}
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
}

func (e *Engine) updateItem(body []byte) ([]byte, error) {
	var in updateItemIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := legacyParams("Expected", in.Expected, "ConditionalOperator", in.ConditionalOperator, "AttributeUpdates", in.AttributeUpdates); err != nil {
		return nil, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkReturnValues(in.ReturnValues, "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
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
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	upd, err := ex.update(in.UpdateExpression, t)
	if err != nil {
		return nil, err
	}
	cond, err := ex.condition(in.ConditionExpression)
	if err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	cc := newCapacity(t)
	var old, item attr.Item
	var changed []string
	err = e.update(func(w *writer) error {
		*cc = *newCapacity(t) // the function may run twice (group commit)
		var err error
		old, err = getItem(w.tx, t, pk.enc)
		if err != nil {
			return err
		}
		if cond != nil {
			ok, err := cond(old)
			if err != nil {
				return err
			}
			if !ok {
				cc.addWrite(t, pk, old, nil, 1)
				return conditionFailed(failedItem(in.ReturnValuesOnConditionCheckFailure, old))
			}
		}
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
	var r response
	if attrs := updateReturn(in.ReturnValues, old, item, changed); attrs != nil {
		if err := r.item("Attributes", attrs); err != nil {
			return nil, err
		}
	}
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
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

// updateReturn picks the Attributes of an UpdateItem response.
func updateReturn(mode string, old, item attr.Item, changed []string) attr.Item {
	switch mode {
	case "ALL_OLD":
		return old
	case "ALL_NEW":
		return item
	case "UPDATED_OLD", "UPDATED_NEW":
		src := item
		if mode == "UPDATED_OLD" {
			src = old
		}
		if src == nil {
			return nil
		}
		out := attr.Item{}
		for _, k := range changed {
			if v, ok := src[k]; ok {
				out[k] = v
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return nil
}
