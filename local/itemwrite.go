package local

import (
	"errors"
	"slices"

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
	Expected                            legacyConditions
	ConditionalOperator                 string

	tableNameSet bool       // TableName was sent, if only as ""
	deep         *deepValue // a value nested past the limit, for checkWrite
	emptyName    bool       // the item (or key) has a member named "", read even when its values nest too deep
}

// field reads member k into c and reports whether k is one of the shared
// members.
func (c *itemWriteIn) field(r *jreader, k string) (bool, error) {
	var err error
	switch k {
	case "TableName":
		err = r.tableName(&c.TableName, &c.tableNameSet)
	case "ConditionExpression":
		c.ConditionExpression, err = r.optStr()
	case "ExpressionAttributeNames":
		c.ExpressionAttributeNames, err = r.names()
	case "ExpressionAttributeValues":
		c.ExpressionAttributeValues, err = readNested(r, &c.deep, r.exprValues, entriesWithoutValues)
	case "ReturnValues":
		c.ReturnValues, err = r.str()
	case "ReturnConsumedCapacity":
		c.ReturnConsumedCapacity, err = r.str()
	case "ReturnItemCollectionMetrics":
		c.ReturnItemCollectionMetrics, err = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		c.ReturnValuesOnConditionCheckFailure, err = r.str()
	case "Expected":
		c.Expected, err = readNested(r, &c.deep, r.legacyConds, conditionsWithoutValues)
	case "ConditionalOperator":
		c.ConditionalOperator, err = r.str()
	default:
		return false, nil
	}
	return true, err
}

// decodeItemWrite reads an item write request: member itemField ("Item" or
// "Key") into item, the shared members into c, the operation's own through
// extra (nil when it has none).
func decodeItemWrite(body []byte, c *itemWriteIn, itemField string, item *attr.Item, extra func(r *jreader, k string) error) error {
	return decodeWith(body, func(r *jreader, k string) error {
		if k == itemField {
			start := r.i
			var err error
			*item, err = readNested(r, &c.deep, r.item, entriesWithoutValues)
			if err == nil {
				// When the item's values nest too deep an empty item stands in
				// for it, so its names are read from the JSON: checkWrite
				// reports an attribute named "" before the nesting.
				_, c.emptyName = (*item)[""]
				if !c.emptyName && c.deep != nil && len(*item) == 0 {
					c.emptyName = hasEmptyName(r.b[start:r.i])
				}
			}
			return err
		}
		if ok, err := c.field(r, k); ok {
			return err
		}
		if extra != nil {
			return extra(r, k)
		}
		return nil
	})
}

// itemWrite describes what one of PutItem, DeleteItem and UpdateItem adds
// to the shared members.
type itemWrite struct {
	itemMember   string    // "item" or "key", which must be sent
	itemSet      bool      // it was
	emptyName    bool      // the item has an attribute named ""
	returnValues []string  // the ReturnValues the operation takes besides NONE
	isUpdate     bool      // UpdateItem, whose update is one of the next two
	update       *string   // UpdateExpression
	updates      updateMap // AttributeUpdates
}

// takes reports whether the operation takes ReturnValues rv.
func (w itemWrite) takes(rv string) bool {
	return rv == "" || rv == "NONE" || slices.Contains(w.returnValues, rv)
}

// emptyAttributeName refuses an item with an attribute named "": names
// are at least one character long ("Naming rules" in DynamoDB's developer
// guide), and this is what a transaction's Put of one gets (captured in
// ten regions, 2026-10-09).
func emptyAttributeName() *apiError { return validationf("Empty attribute name") }

// returnValuesRefused refuses a ReturnValues the operation does not take.
func returnValuesRefused() *apiError { return validationf("ReturnValues can only be ALL_OLD or NONE") }

// enveloped is err, a ValidationException, as DynamoDB's request validation
// reports it: "1 validation error detected: " and the message. Other
// errors are returned as they are.
func enveloped(err error) error {
	var ae *apiError
	if !errors.As(err, &ae) || ae.Type != errValidation {
		return err
	}
	out := *ae
	out.Message = envelopePrefix + ae.Message
	return &out
}

const envelopePrefix = "1 validation error detected: "

// updateMap is UpdateItem's AttributeUpdates (nil when not sent).
type updateMap = map[string]attributeUpdate

// checkedWrite is an item write that passed the checks DynamoDB makes
// before it looks the table up: its condition and update are parsed.
type checkedWrite struct {
	t      *table
	wantCC bool
	cond   condFn
	ex     *exprs
}

// checkWrite validates an item write in DynamoDB's order — the members'
// constraints, a value nested too deep, then the mixing of legacy and
// expression parameters, ConditionalOperator, ReturnValues, the legacy
// parameters themselves and the expressions — and only then resolves the
// table. The caller parses its update (parseUpdate) before cond, which is
// parsed here.
func (e *Engine) checkWrite(in *itemWriteIn, w itemWrite, parseUpdate func(ex *exprs) error) (*checkedWrite, error) {
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.tableName("tableName", in.TableName, in.tableNameSet || in.TableName != "")
	if !w.itemSet {
		v.null(w.itemMember)
	}
	v.enum("returnValues", in.ReturnValues, enumReturnValues)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	v.enum("conditionalOperator", in.ConditionalOperator, enumConditionalOperator)
	v.operators("expected", in.Expected, false)
	v.actions(w.updates)
	v.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, enumReturnOnFailure)
	if err := v.err(); err != nil {
		return nil, err
	}
	// An attribute named "" first, as a transaction's Put reports it.
	if w.emptyName {
		return nil, emptyAttributeName()
	}
	// A value nested past the limit, kept for here (nesting.go).
	if d := in.deep; d != nil {
		if d.older && !w.takes(in.ReturnValues) {
			return nil, returnValuesRefused()
		}
		return nil, serialization(d.err)
	}
	legacy := []param{{"AttributeUpdates", w.updates != nil}, {"Expected", in.Expected != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}}
	exprs := []param{{"UpdateExpression", w.update != nil}, {"ConditionExpression", in.ConditionExpression != nil}}
	if !w.isUpdate {
		legacy, exprs = legacy[1:], exprs[1:]
	}
	// DynamoDB reports the checks of the expression parameters, ReturnValues,
	// Expected and the condition inside the validation envelope, the first
	// in their current wording (captured in two regions, 2026-10-09).
	if err := checkMixing(legacy, exprs, in.ExpressionAttributeNames, in.ExpressionAttributeValues, true); err != nil {
		return nil, enveloped(err)
	}
	if err := checkConditionalOperator(in.ConditionalOperator, in.Expected); err != nil {
		return nil, err // bare: no capture shows this one enveloped
	}
	if !w.takes(in.ReturnValues) {
		return nil, enveloped(returnValuesRefused())
	}
	cw := &checkedWrite{ex: newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)}
	expected, err := expectedComparisons(in.Expected)
	if err != nil {
		return nil, enveloped(err)
	}
	if cw.ex.err != nil { // an empty or malformed placeholder map
		return nil, enveloped(cw.ex.err)
	}
	if parseUpdate != nil {
		if err := parseUpdate(cw.ex); err != nil {
			return nil, err
		}
	}
	if len(expected) > 0 {
		_, cw.cond = legacyCondFn(expected, in.ConditionalOperator)
	} else if cw.cond, err = cw.ex.condition(in.ConditionExpression); err != nil {
		return nil, enveloped(err)
	}
	if err := cw.ex.checkUnused(); err != nil {
		return nil, err
	}
	if cw.t, err = e.tableFor(in.TableName); err != nil {
		return nil, err
	}
	cw.wantCC = in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	return cw, nil
}

// conditionalWrite runs apply on the item stored under pk (nil when absent)
// in one write transaction once cond (nil: none) holds; when it does not,
// the write fails with ConditionalCheckFailedException carrying the item as
// onFailure asks. It returns the old item and the capacity consumed.
func (e *Engine) conditionalWrite(t *table, pk primaryKey, cond condFn, onFailure string, apply func(w *writer, old attr.Item, cc *capacity) error) (attr.Item, *capacity, error) {
	old, cc, _, err := e.measuredWrite(t, pk, cond, onFailure, false, apply)
	return old, cc, err
}

// measuredWrite is conditionalWrite that also returns, when collection is
// set, pk's item collection measured after the write.
func (e *Engine) measuredWrite(t *table, pk primaryKey, cond condFn, onFailure string, collection bool, apply func(w *writer, old attr.Item, cc *capacity) error) (attr.Item, *capacity, *collectionMetrics, error) {
	cc := newCapacity(t)
	var old attr.Item
	var metrics *collectionMetrics
	err := e.update(func(w *writer) error {
		*cc = *newCapacity(t) // the function may run twice (group commit)
		metrics = nil
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
		if err := apply(w, old, cc); err != nil {
			return err
		}
		if collection {
			m, err := w.collection(t, pk.hash)
			if err != nil {
				return err
			}
			metrics = &m
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return old, cc, metrics, nil
}

// replaceItem is the write of PutItem and DeleteItem: item (nil: none)
// replaces what is stored under pk once the request's condition holds; the
// answer carries the old item when ReturnValues is ALL_OLD.
func (e *Engine) replaceItem(in *itemWriteIn, cw *checkedWrite, pk primaryKey, item attr.Item) ([]byte, error) {
	t := cw.t
	old, cc, metrics, err := e.measuredWrite(t, pk, cw.cond, in.ReturnValuesOnConditionCheckFailure,
		wantCollections(in.ReturnItemCollectionMetrics, t), func(w *writer, old attr.Item, cc *capacity) error {
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
	return writeResponse(in, old, cw.wantCC, cc, metrics)
}

// writeResponse answers an item write: Attributes when attrs is not nil,
// ConsumedCapacity when asked, ItemCollectionMetrics when measured.
func writeResponse(in *itemWriteIn, attrs attr.Item, wantCC bool, cc *capacity, metrics *collectionMetrics) ([]byte, error) {
	var r response
	if attrs != nil {
		if err := r.item("Attributes", attrs); err != nil {
			return nil, err
		}
	}
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	if metrics != nil {
		r.field("ItemCollectionMetrics")
		var err error
		if r.b, err = metrics.appendJSON(r.b); err != nil {
			return nil, err
		}
	}
	return r.bytes(), nil
}
