package local

import (
	"crypto/sha256"
	"maps"
	"slices"

	"github.com/adjl/adjl/local/internal/attr"
)

type txAction struct {
	TableName                           string
	Key                                 attr.Item
	Item                                attr.Item
	ConditionExpression                 *string
	UpdateExpression                    *string
	ProjectionExpression                *string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           attr.Item
	ReturnValuesOnConditionCheckFailure string
	// What the action's values got wrong, reported in the action's turn
	// (checkTxWrite): DynamoDB checks the actions one at a time, in request
	// order, so a later action's value never beats an earlier action's
	// error. valuesErr is ExpressionAttributeValues', itemErr the Item's,
	// keyErr the Key's; emptyName says the Item has an attribute named "".
	valuesErr, itemErr, keyErr error
	emptyName                  bool
}

type transactWriteItem struct {
	ConditionCheck *txAction
	Put            *txAction
	Delete         *txAction
	Update         *txAction
}

type transactWriteIn struct {
	TransactItems               []transactWriteItem
	ClientRequestToken          *string
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

// txOp is one validated action of TransactWriteItems.
type txOp struct {
	kind string // ConditionCheck, Put, Delete, Update
	t    *table
	pk   primaryKey
	a    *txAction
	cond condFn
	upd  updateFn
	// invalid is the ValidationError reason of an action whose key does
	// not fit its table: it cancels the transaction.
	invalid *cancelReason
}

// claimItem records that a transaction acts on the item pk of t; DynamoDB
// allows one action per item.
func claimItem(seen map[string]bool, t *table, pk primaryKey) error {
	id := t.name + "\x00" + string(pk.enc)
	if seen[id] {
		return validationf("Transaction request cannot include multiple operations on one item")
	}
	seen[id] = true
	return nil
}

// transactWriteItems is TransactWriteItems: up to 100 actions, one per item,
// written together or not at all (CancellationReasons say why), made
// idempotent by ClientRequestToken.
func (e *Engine) transactWriteItems(body []byte) ([]byte, error) {
	return e.transactWrite(body, false)
}

// transactWrite is transactWriteItems; statements says body is the request
// ExecuteTransaction writes for its statements, whose placeholders stand
// for the statements' identifiers (newStatementExprs).
func (e *Engine) transactWrite(body []byte, statements bool) ([]byte, error) {
	var in transactWriteIn
	if err := decodeTransactWrite(body, &in); err != nil {
		return nil, err
	}
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	v.transactItems(len(in.TransactItems), func() string { return showTxWrites(in.TransactItems) })
	if tok := in.ClientRequestToken; tok != nil && (len(*tok) < 1 || len(*tok) > 36) {
		if len(*tok) < 1 {
			v.add(tok, "clientRequestToken", "Member must have length greater than or equal to 1")
		} else {
			v.add(tok, "clientRequestToken", "Member must have length less than or equal to 36")
		}
	}
	actions := make([]txWrite, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		actions[i] = ti.action()
		actions[i].statement = statements
		actions[i].constraints(&v, i)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	for _, a := range actions {
		if a.kind == "" {
			if a.n == 0 {
				return nil, validationf("1 validation error detected: Value '' at 'transactItems' failed to satisfy constraint: TransactWriteRequest should contain Delete or Put or Update or ConditionCheck")
			}
			return nil, validationf("TransactItems can only contain one of Check, Put, Update or Delete")
		}
	}
	wantCC := in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	if len(body) > maxTransactBytes {
		return nil, validationf("Transaction request size exceeded the maximum allowed size of 4 MB")
	}
	var token []byte
	var digest [32]byte
	if in.ClientRequestToken != nil {
		token = []byte(*in.ClientRequestToken)
		digest = requestDigest(&in)
	}
	ops := make([]txOp, 0, len(in.TransactItems))
	seen := map[string]bool{}
	canceled := false
	for _, a := range actions {
		op, err := e.checkTxWrite(a)
		if err != nil {
			return nil, err
		}
		if op.invalid != nil {
			canceled = true
		} else if err := claimItem(seen, op.t, op.pk); err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if canceled {
		// An action whose key does not fit its table cancels the
		// transaction before anything is read.
		reasons := make([]cancelReason, len(ops))
		for i, op := range ops {
			reasons[i] = cancelReason{Code: "None"}
			if op.invalid != nil {
				reasons[i] = *op.invalid
			}
		}
		return nil, txCanceled(reasons)
	}
	var collected collections
	var metrics map[string][]collectionMetrics
	ccByTable := map[string]*capacity{}
	var tables []*table
	charge := func(op txOp, old, item attr.Item) {
		cc := ccByTable[op.t.name]
		if cc == nil {
			cc = newCapacity(op.t)
			ccByTable[op.t.name] = cc
			tables = append(tables, op.t)
		}
		if op.kind == "ConditionCheck" {
			size := 0
			if old != nil {
				size = attr.ItemSize(old)
			}
			cc.addRead(nil, size, true, 2)
			return
		}
		cc.addWrite(op.t, op.pk, old, item, 2)
	}
	replayed := false
	err := e.update(func(w *writer) error {
		// The function may run twice (group commit): start from scratch.
		clear(ccByTable)
		tables = tables[:0]
		replayed = false
		collected, metrics = collections{}, nil
		if token != nil {
			dup, err := tokenSeen(w.tx, token, digest, e.now())
			if err != nil {
				return err
			}
			if dup {
				replayed = true
				return nil
			}
		}
		reasons := make([]cancelReason, len(ops))
		olds := make([]attr.Item, len(ops))
		news := make([]attr.Item, len(ops))
		failed := false
		for i, op := range ops {
			reasons[i].Code = "None"
			old, err := getItem(w.tx, op.t, op.pk.enc)
			if err != nil {
				return err
			}
			olds[i] = old
			if op.cond != nil {
				ok, err := op.cond(old)
				if err != nil {
					return err
				}
				if !ok {
					failed = true
					reasons[i] = cancelReason{Code: "ConditionalCheckFailed", Message: "The conditional request failed",
						Item: failedItem(op.a.ReturnValuesOnConditionCheckFailure, old)}
					continue
				}
			}
			switch op.kind {
			case "Put":
				news[i] = op.a.Item
			case "Update":
				item, _, err := applyUpdate(op.t, op.upd, op.a.Key, old)
				if err != nil {
					if ae, ok := err.(*apiError); ok && ae.Type == errValidation {
						failed = true
						reasons[i] = cancelReason{Code: "ValidationError", Message: ae.Message}
						continue
					}
					return err
				}
				news[i] = item
			}
		}
		if failed {
			return txCanceled(reasons)
		}
		for i, op := range ops {
			charge(op, olds[i], news[i])
			var err error
			switch op.kind {
			case "Put", "Update":
				err = w.put(op.t, op.pk, olds[i], news[i])
			case "Delete":
				err = w.del(op.t, op.pk, olds[i])
			}
			if err != nil {
				return err
			}
			if op.kind != "ConditionCheck" && wantCollections(in.ReturnItemCollectionMetrics, op.t) {
				collected.touch(op.t, op.pk.hash)
			}
		}
		var err error
		if metrics, err = collected.measure(w); err != nil {
			return err
		}
		if token != nil {
			return recordToken(w.tx, token, digest, e.now())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var r response
	if wantCC {
		if replayed {
			// A replay only reads the items, as DynamoDB reports.
			for _, op := range ops {
				charge(txOp{kind: "ConditionCheck", t: op.t}, nil, nil)
			}
		}
		appendCapacities(&r, in.ReturnConsumedCapacity, capacitiesOf(tables, ccByTable))
	}
	if err := appendCollectionsPerTable(&r, collected.tables, metrics); err != nil {
		return nil, err
	}
	return r.bytes(), nil
}

// requestDigest identifies a TransactWriteItems request for idempotency: the
// canonical re-encoding of its actions (JSON field order is irrelevant).
func requestDigest(in *transactWriteIn) [32]byte {
	h := sha256.New()
	for _, ti := range in.TransactItems {
		for _, a := range []*txAction{ti.ConditionCheck, ti.Put, ti.Delete, ti.Update} {
			if a == nil {
				h.Write([]byte{0})
				continue
			}
			h.Write([]byte(a.TableName))
			for _, it := range []attr.Item{a.Key, a.Item, a.ExpressionAttributeValues} {
				h.Write([]byte{1})
				h.Write(canonicalMap(nil, it))
			}
			for _, s := range []*string{a.ConditionExpression, a.UpdateExpression} {
				h.Write([]byte{2})
				if s != nil {
					h.Write([]byte(*s))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(a.ExpressionAttributeNames)) {
				h.Write([]byte(k + "\x00" + a.ExpressionAttributeNames[k] + "\x00"))
			}
		}
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

// canonicalMap appends a deterministic encoding of m (names sorted at every
// level), since attr.AppendItem follows map iteration order.
func canonicalMap(dst []byte, m map[string]attr.Value) []byte {
	dst = append(dst, '{')
	for _, k := range slices.Sorted(maps.Keys(m)) {
		dst = append(dst, k...)
		dst = append(dst, 0)
		dst = canonicalValue(dst, m[k])
	}
	return append(dst, '}')
}

func canonicalValue(dst []byte, v attr.Value) []byte {
	switch v.Kind {
	case attr.M:
		return canonicalMap(append(dst, byte(v.Kind)), v.Map)
	case attr.L:
		dst = append(dst, byte(v.Kind), '[')
		for _, e := range v.List {
			dst = canonicalValue(dst, e)
		}
		return append(dst, ']')
	}
	return attr.AppendValue(dst, v)
}
