package local

import (
	"github.com/adjl/adjl/local/internal/attr"
)

// itemWriteIn holds the request members PutItem, DeleteItem and UpdateItem
// share, so the three read, validate and answer them one way.
type itemWriteIn struct {
	TableName                           string
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

// field reads member k into c and reports whether k is one of the shared
// members.
func (c *itemWriteIn) field(r *jreader, k string) (bool, error) {
	var err error
	switch k {
	case "TableName":
		c.TableName, err = r.str()
	case "ConditionExpression":
		c.ConditionExpression, err = r.optStr()
	case "ExpressionAttributeNames":
		c.ExpressionAttributeNames, err = r.names()
	case "ExpressionAttributeValues":
		c.ExpressionAttributeValues, err = r.exprValues()
	case "ReturnValues":
		c.ReturnValues, err = r.str()
	case "ReturnConsumedCapacity":
		c.ReturnConsumedCapacity, err = r.str()
	case "ReturnItemCollectionMetrics":
		c.ReturnItemCollectionMetrics, err = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		c.ReturnValuesOnConditionCheckFailure, err = r.str()
	case "Expected":
		c.Expected, err = r.anyMap()
	case "ConditionalOperator":
		c.ConditionalOperator, err = r.str()
	default:
		return false, nil
	}
	return true, err
}

// decodeItemWrite reads an item write request: member itemField ("Item" or
// "Key") into item, the shared members into c, the operation's own through
// extra (nil when it has none); unknown members are skipped.
func decodeItemWrite(body []byte, c *itemWriteIn, itemField string, item *attr.Item, extra func(r *jreader, k string) (bool, error)) error {
	return decodeWith(body, func(r *jreader, k string) error {
		if k == itemField {
			var err error
			*item, err = r.item()
			return err
		}
		if ok, err := c.field(r, k); ok {
			return err
		}
		if extra != nil {
			if ok, err := extra(r, k); ok {
				return err
			}
		}
		return skipField(r)
	})
}

// writeTarget refuses the legacy parameters (attributeUpdates is
// UpdateItem's, nil elsewhere), resolves the table of an item write and
// checks the shared members in DynamoDB's order; returnValues are the
// ReturnValues the operation accepts besides NONE. It reports whether
// capacity is wanted.
func (e *Engine) writeTarget(in *itemWriteIn, attributeUpdates map[string]any, returnValues ...string) (*table, bool, error) {
	if err := legacyParams("Expected", in.Expected, "ConditionalOperator", in.ConditionalOperator, "AttributeUpdates", attributeUpdates); err != nil {
		return nil, false, err
	}
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, false, err
	}
	if err := checkReturnValues(in.ReturnValues, returnValues...); err != nil {
		return nil, false, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, false, err
	}
	wantCC, err := wantCapacity(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, false, err
	}
	return t, wantCC, nil
}

// conditionalWrite runs apply on the item stored under pk (nil when absent)
// in one write transaction once cond (nil: none) holds; when it does not,
// the write fails with ConditionalCheckFailedException carrying the item as
// onFailure asks. It returns the old item and the capacity consumed.
func (e *Engine) conditionalWrite(t *table, pk primaryKey, cond condFn, onFailure string, apply func(w *writer, old attr.Item, cc *capacity) error) (attr.Item, *capacity, error) {
	cc := newCapacity(t)
	var old attr.Item
	err := e.update(func(w *writer) error {
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
				cc.addFailedWrite(old)
				return conditionFailed(failedItem(onFailure, old))
			}
		}
		return apply(w, old, cc)
	})
	if err != nil {
		return nil, nil, err
	}
	return old, cc, nil
}

// replaceItem is the write of PutItem and DeleteItem: item (nil: none)
// replaces what is stored under pk once the request's ConditionExpression
// holds; the answer carries the old item when ReturnValues is ALL_OLD.
func (e *Engine) replaceItem(in *itemWriteIn, t *table, wantCC bool, pk primaryKey, item attr.Item) ([]byte, error) {
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	cond, err := ex.lastCondition(in.ConditionExpression)
	if err != nil {
		return nil, err
	}
	old, cc, err := e.conditionalWrite(t, pk, cond, in.ReturnValuesOnConditionCheckFailure, func(w *writer, old attr.Item, cc *capacity) error {
		cc.addWrite(t, pk, old, item, 1)
		if item == nil {
			return w.del(t, pk, old)
		}
		return w.put(t, pk, old, item)
	})
	if err != nil {
		return nil, err
	}
	if in.ReturnValues != "ALL_OLD" {
		old = nil
	}
	return writeResponse(in, old, wantCC, cc)
}

// writeResponse answers an item write: Attributes when attrs is not nil,
// ConsumedCapacity when asked.
func writeResponse(in *itemWriteIn, attrs attr.Item, wantCC bool, cc *capacity) ([]byte, error) {
	var r response
	if attrs != nil {
		if err := r.item("Attributes", attrs); err != nil {
			return nil, err
		}
	}
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
}
