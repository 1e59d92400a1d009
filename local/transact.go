package local

import (
	"fmt"
	"strconv"
	"strings"
)

// What TransactGetItems (transactgetitems.go) and TransactWriteItems
// (transactwriteitems.go) share: their limits, request checks and the
// validation of each action.

const (
	maxTransactItems = 100
	maxTransactBytes = 4 << 20
)

// transactItems records a TransactItems list of n actions outside 1..100;
// show renders the list as the message echoes it.
func (v *violations) transactItems(n int, show func() string) {
	switch {
	case n == 0:
		v.minLen("transactItems", "[]", 0, 1)
	case n > maxTransactItems:
		s := show()
		v.add(&s, "transactItems", fmt.Sprintf("Member must have length less than or equal to %d", maxTransactItems))
	}
}

// txWrite is one action of TransactWriteItems: its kind (ConditionCheck,
// Put, Delete or Update; "" unless exactly one was sent) and request.
type txWrite struct {
	kind      string
	a         *txAction
	n         int  // actions sent in the element
	i         int  // position in TransactItems, from 0
	statement bool // written by ExecuteTransaction for a statement
}

func (ti transactWriteItem) action() txWrite {
	var w txWrite
	for _, c := range []struct {
		kind string
		a    *txAction
	}{{"ConditionCheck", ti.ConditionCheck}, {"Put", ti.Put}, {"Delete", ti.Delete}, {"Update", ti.Update}} {
		if c.a != nil {
			w.kind, w.a = c.kind, c.a
			w.n++
		}
	}
	if w.n != 1 {
		w.kind = ""
	}
	return w
}

// member is the path of one of the action's members in messages:
// transactItems.2.member.update.tableName.
func (w txWrite) member(name string) string {
	// Every action names its members for the checks of constraints, which
	// rarely fail: concatenated, not formatted.
	return "transactItems." + strconv.Itoa(w.i+1) + ".member." + strings.ToLower(w.kind[:1]) + w.kind[1:] + "." + name
}

// constraints adds the action's member constraints to v.
func (w *txWrite) constraints(v *violations, i int) {
	w.i = i
	if w.kind == "" {
		return
	}
	a := w.a
	v.tableName(w.member("tableName"), a.TableName, a.TableName != "")
	switch w.kind {
	case "Put":
		if a.Item == nil {
			v.null(w.member("item"))
		}
	default:
		if a.Key == nil {
			v.null(w.member("key"))
		}
	}
	switch {
	case w.kind == "Update" && a.UpdateExpression == nil:
		v.null(w.member("updateExpression"))
	case w.kind == "ConditionCheck" && a.ConditionExpression == nil:
		v.null(w.member("conditionExpression"))
	}
	v.enum(w.member("returnValuesOnConditionCheckFailure"), a.ReturnValuesOnConditionCheckFailure, enumReturnOnFailure)
}

// checkTxWrite validates one action: its expressions and its table, then
// its key. A key value DynamoDB refuses in any request (empty, too long)
// fails the whole request; a key that does not fit the table's key schema
// cancels the transaction with a ValidationError reason for the action, as
// DynamoDB reports it.
func (e *Engine) checkTxWrite(w txWrite) (txOp, error) {
	a := w.a
	op := txOp{kind: w.kind, a: a}
	// In the action's turn, as DynamoDB checks them (captured in ten
	// regions, 2026-10-09): a Put item's attribute named "", the action's
	// values, its expressions, then its item's or key's values, all before
	// its table. A member the action does not take (a Put's Key, the
	// others' Item) is not read, as DynamoDB does not.
	itemErr := a.keyErr
	if w.kind == "Put" {
		itemErr = a.itemErr
		if a.emptyName {
			return op, emptyAttributeName()
		}
	}
	if a.valuesErr != nil {
		return op, serialization(a.valuesErr)
	}
	newEx := newExprs
	if w.statement {
		newEx = newStatementExprs
	}
	ex := newEx(a.ExpressionAttributeNames, a.ExpressionAttributeValues)
	parsed, err := ex.parseUpdate(a.UpdateExpression)
	if err != nil {
		return op, err
	}
	if op.cond, err = ex.lastCondition(a.ConditionExpression); err != nil {
		return op, err
	}
	if itemErr != nil {
		return op, serialization(itemErr)
	}
	if op.t, err = e.tableFor(a.TableName); err != nil {
		return op, err
	}
	if w.kind == "Put" {
		op.pk, err = op.t.keyFromItem(a.Item)
		if err == nil {
			err = op.t.checkIndexKeys(a.Item)
		}
		if err == nil {
			err = checkItemSize(a.Item)
		}
	} else {
		op.pk, err = op.t.keyFromKey(a.Key)
	}
	if ae, ok := err.(*apiError); ok && ae.cancels {
		op.invalid = &cancelReason{Code: "ValidationError", Message: ae.Message}
		return op, nil
	}
	if err != nil {
		return op, err
	}
	if w.kind == "Update" {
		op.upd, err = bindUpdate(parsed, op.t)
	}
	return op, err
}

// txCanceled is TransactionCanceledException with its reasons, one per
// action in request order.
func txCanceled(reasons []cancelReason) *apiError {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	return &apiError{Type: errTxCanceled, Reasons: reasons,
		Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"}
}

// showTxWrites renders TransactWriteItems' actions the way a validation
// message echoes the list: each action's kind and table.
func showTxWrites(items []transactWriteItem) string {
	parts := make([]string, len(items))
	for i, ti := range items {
		w := ti.action()
		if w.kind == "" {
			parts[i] = "{}"
			continue
		}
		parts[i] = "{" + w.kind + ": {TableName: " + w.a.TableName + "}}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
