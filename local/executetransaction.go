package local

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/partiql"
)

// parameterizedStatement is a statement of ExecuteTransaction, and the
// members a statement of BatchExecuteStatement shares with it.
type parameterizedStatement struct {
	Statement                           *string
	Parameters                          []attr.Value
	ReturnValuesOnConditionCheckFailure string
}

func (s parameterizedStatement) statement() parameterizedStatement { return s }

type executeTransactionIn struct {
	TransactStatements     []parameterizedStatement
	ClientRequestToken     *string
	ReturnConsumedCapacity string
}

// executeTransaction runs up to 100 statements as one transaction: either
// all reads (SELECTs naming one item each, as TransactGetItems) or all
// writes (INSERT, UPDATE, DELETE and EXISTS conditions, as
// TransactWriteItems, whose idempotency tokens, cancellation reasons and
// capacity they share).
func (e *Engine) executeTransaction(in *executeTransactionIn) ([]byte, error) {
	if err := checkStatements("transactStatements", in.TransactStatements, maxTransactItems); err != nil {
		return nil, err
	}
	if _, err := wantCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if tok := in.ClientRequestToken; tok != nil && (len(*tok) < 1 || len(*tok) > 36) {
		return nil, validationf("1 validation error detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36", *tok)
	}
	stmts := make([]partiql.Statement, len(in.TransactStatements))
	reads := false
	for i, s := range in.TransactStatements {
		st, err := partiql.Parse(*s.Statement)
		if err != nil {
			return nil, inStatement(i, partiqlError(err))
		}
		_, read := st.(*partiql.Select)
		if i == 0 {
			reads = read
		} else if read != reads {
			return nil, validationf("ExecuteTransaction API does not support both read and write operations in the same request.")
		}
		stmts[i] = st
	}
	if reads {
		return e.transactionReads(in, stmts)
	}
	return e.transactionWrites(in, stmts)
}

// inStatement prefixes a statement's validation error with its place, as
// DynamoDB does for errors found before the transaction runs.
func inStatement(i int, err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Type == errValidation {
		return validationf("Validation failed in TransactStatements[%d]: %s", i, ae.Message)
	}
	return err
}

// reasons collects per-statement cancellation reasons found before the
// transaction runs (a missing table, a key that does not match the schema).
type reasons []cancelReason

func newReasons(n int) reasons {
	rs := make(reasons, n)
	for i := range rs {
		rs[i].Code = "None"
	}
	return rs
}

// set records err as statement i's reason.
func (rs reasons) set(i int, err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return err
	}
	rs[i] = cancelReason{Code: statementErrorCode(ae.Type), Message: ae.Message}
	return nil
}

// err is the TransactionCanceledException for the reasons, nil when every
// statement is fine.
func (rs reasons) err() error {
	codes := make([]string, len(rs))
	failed := false
	for i, r := range rs {
		codes[i] = r.Code
		failed = failed || r.Code != "None"
	}
	if !failed {
		return nil
	}
	return &apiError{Type: errTxCanceled, Reasons: rs,
		Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"}
}

func (e *Engine) transactionWrites(in *executeTransactionIn, stmts []partiql.Statement) ([]byte, error) {
	rs := newReasons(len(stmts))
	writes := make([]*partiql.Write, len(stmts))
	for i, st := range stmts {
		params := in.TransactStatements[i].Parameters
		t, _, err := e.statementSource(st.TableName(), "")
		if err != nil {
			if err := rs.set(i, err); err != nil {
				return nil, err
			}
			continue
		}
		w, err := partiql.PlanWrite(st, schemaOf(t, nil), params, true)
		if err != nil {
			var pe *partiql.Error
			if errors.As(err, &pe) && pe.Cancels {
				rs[i] = cancelReason{Code: "ValidationError", Message: pe.Msg}
				continue
			}
			return nil, inStatement(i, partiqlError(err))
		}
		if w.Returning != "" {
			return nil, inStatement(i, validationf("RETURNING clause is not supported in ExecuteTransaction."))
		}
		if err := checkExpressions(t, w); err != nil {
			var ae *apiError
			if errors.As(err, &ae) && strings.Contains(ae.Message, "This attribute is part of the key") {
				rs[i] = cancelReason{Code: "ValidationError", Message: ae.Message}
				continue
			}
			return nil, inStatement(i, err)
		}
		if w.Kind == partiql.Put {
			_, err = t.keyFromItem(w.Item)
		} else {
			_, err = t.keyFromKey(w.Key)
		}
		if err != nil {
			if err := rs.set(i, err); err != nil {
				return nil, err
			}
			continue
		}
		writes[i] = w
	}
	if err := rs.err(); err != nil {
		return nil, err
	}
	req, err := transactWriteRequest(in, writes)
	if err != nil {
		return nil, err
	}
	out, err := e.transactWrite(req, true)
	if err != nil {
		return nil, transactionWriteError(err, writes)
	}
	var resp struct{ ConsumedCapacity json.RawMessage }
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, err
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '[', ']')
	if resp.ConsumedCapacity != nil {
		r.field("ConsumedCapacity")
		r.b = append(r.b, resp.ConsumedCapacity...)
	}
	return r.bytes(), nil
}

// checkExpressions parses a write's expressions as TransactWriteItems will,
// so that an error in one names its statement.
func checkExpressions(t *table, w *partiql.Write) error {
	ex := newStatementExprs(w.Names, w.Values)
	if _, err := ex.condition(optional(w.Condition)); err != nil {
		return partiqlError(err)
	}
	if _, err := ex.update(optional(w.Update), t); err != nil {
		return partiqlError(err)
	}
	return nil
}

// transactWriteRequest is the TransactWriteItems request the writes make.
func transactWriteRequest(in *executeTransactionIn, writes []*partiql.Write) ([]byte, error) {
	b := []byte(`{"TransactItems":[`)
	for i, w := range writes {
		if i > 0 {
			b = append(b, ',')
		}
		kind := map[partiql.WriteKind]string{partiql.Put: "Put", partiql.UpdateItem: "Update", partiql.DeleteItem: "Delete", partiql.CheckItem: "ConditionCheck"}[w.Kind]
		b = append(b, `{"`+kind+`":{"TableName":`...)
		b = attr.AppendJSONString(b, w.Table)
		var err error
		if w.Kind == partiql.Put {
			b = append(b, `,"Item":`...)
			b, err = w.Item.AppendJSON(b)
		} else {
			b = append(b, `,"Key":`...)
			b, err = w.Key.AppendJSON(b)
		}
		if err != nil {
			return nil, err
		}
		for _, f := range []struct{ name, val string }{
			{"ConditionExpression", w.Condition}, {"UpdateExpression", w.Update},
			{"ReturnValuesOnConditionCheckFailure", in.TransactStatements[i].ReturnValuesOnConditionCheckFailure},
		} {
			if f.val != "" {
				b = append(b, `,"`+f.name+`":`...)
				b = attr.AppendJSONString(b, f.val)
			}
		}
		if len(w.Names) > 0 {
			names, err := json.Marshal(w.Names)
			if err != nil {
				return nil, err
			}
			b = append(b, `,"ExpressionAttributeNames":`...)
			b = append(b, names...)
		}
		if len(w.Values) > 0 {
			b = append(b, `,"ExpressionAttributeValues":`...)
			if b, err = attr.Item(w.Values).AppendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, '}', '}')
	}
	b = append(b, ']')
	if in.ClientRequestToken != nil {
		b = append(b, `,"ClientRequestToken":`...)
		b = attr.AppendJSONString(b, *in.ClientRequestToken)
	}
	if in.ReturnConsumedCapacity != "" {
		b = append(b, `,"ReturnConsumedCapacity":`...)
		b = attr.AppendJSONString(b, in.ReturnConsumedCapacity)
	}
	return append(b, '}'), nil
}

// transactionWriteError reports TransactWriteItems' failure in PartiQL's
// terms: an INSERT whose key exists is DuplicateItem, and expression errors
// lack the item API's "Invalid ...Expression: " prefix.
func transactionWriteError(err error, writes []*partiql.Write) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return err
	}
	if ae.Type != errTxCanceled {
		return partiqlError(err)
	}
	rs := reasons(ae.Reasons)
	for i := range rs {
		switch {
		case rs[i].Code == "ConditionalCheckFailed" && writes[i].Kind == partiql.Put:
			rs[i] = cancelReason{Code: "DuplicateItem", Message: "Duplicate primary key exists in table"}
		case rs[i].Code == "ValidationError":
			if pe, ok := partiqlError(validationf("%s", rs[i].Message)).(*apiError); ok {
				rs[i].Message = pe.Message
			}
		}
	}
	return rs.err()
}

func (e *Engine) transactionReads(in *executeTransactionIn, stmts []partiql.Statement) ([]byte, error) {
	rs := newReasons(len(stmts))
	keys := make([]attr.Item, len(stmts))
	cols := make([][]partiql.Column, len(stmts))
	tables := make([]string, len(stmts))
	for i, st := range stmts {
		sel := st.(*partiql.Select)
		t, x, err := e.statementSource(sel.Table, sel.Index)
		if err != nil {
			if err := rs.set(i, err); err != nil {
				return nil, err
			}
			continue
		}
		if x != nil {
			return nil, inStatement(i, validationf("Reads on indices are not supported within transactions."))
		}
		rd, err := partiql.PlanSelect(sel, schemaOf(t, nil), in.TransactStatements[i].Parameters, false)
		if err != nil {
			return nil, inStatement(i, partiqlError(err))
		}
		key, ok := rd.Key(schemaOf(t, nil))
		if !ok {
			return nil, inStatement(i, validationf("Select statements within ExecuteTransaction must specify the primary key in the where clause."))
		}
		if _, err := t.keyFromKey(key); err != nil {
			if err := rs.set(i, err); err != nil {
				return nil, err
			}
			continue
		}
		keys[i], cols[i], tables[i] = key, rd.Columns, t.name
	}
	if err := rs.err(); err != nil {
		return nil, err
	}
	b := []byte(`{"TransactItems":[`)
	for i, key := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Get":{"TableName":`...)
		b = attr.AppendJSONString(b, tables[i])
		b = append(b, `,"Key":`...)
		var err error
		if b, err = key.AppendJSON(b); err != nil {
			return nil, err
		}
		b = append(b, '}', '}')
	}
	b = append(b, ']')
	if in.ReturnConsumedCapacity != "" {
		b = append(b, `,"ReturnConsumedCapacity":`...)
		b = attr.AppendJSONString(b, in.ReturnConsumedCapacity)
	}
	b = append(b, '}')
	out, err := decoded((*Engine).transactGetItems)(e, b)
	if err != nil {
		return nil, partiqlError(err)
	}
	var resp struct {
		Responses []struct {
			Item attr.Item
		}
		ConsumedCapacity json.RawMessage
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, err
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '[')
	for i, got := range resp.Responses {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		if got.Item == nil {
			r.b = append(r.b, '{', '}')
			continue
		}
		r.b = append(r.b, `{"Item":`...)
		if r.b, err = project(got.Item, cols[i]).AppendJSON(r.b); err != nil {
			return nil, err
		}
		r.b = append(r.b, '}')
	}
	r.b = append(r.b, ']')
	if resp.ConsumedCapacity != nil {
		r.field("ConsumedCapacity")
		r.b = append(r.b, resp.ConsumedCapacity...)
	}
	return r.bytes(), nil
}
