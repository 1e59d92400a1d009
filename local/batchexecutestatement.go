package local

import (
	"errors"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
	"github.com/adjl/adjl/local/internal/partiql"
)

// maxBatchStatements is BatchExecuteStatement's limit.
const maxBatchStatements = 25

// batchStatementIn spells out parameterizedStatement's members instead of
// embedding it: encoding/json names a member of an embedded struct in a
// type error with the struct's type name (Statements.parameterizedStatement
// .Statement), and DynamoDB's message names Statements.Statement.
type batchStatementIn struct {
	Statement                           *string
	Parameters                          []attr.Value
	ReturnValuesOnConditionCheckFailure string
	ConsistentRead                      bool
}

func (s batchStatementIn) statement() parameterizedStatement {
	return parameterizedStatement{s.Statement, s.Parameters, s.ReturnValuesOnConditionCheckFailure}
}

type batchExecuteStatementIn struct {
	Statements             []batchStatementIn
	ReturnConsumedCapacity string
}

// batchResult is one entry of Responses: the item a read found, or the
// error of a statement that failed.
type batchResult struct {
	table string
	item  attr.Item
	code  string
	msg   string
	old   []byte // the item of a failed condition, when asked for
}

// batchExecuteStatement runs up to 25 reads (each naming one item by its
// key, like BatchGetItem) or up to 25 singleton writes. It is not a
// transaction: each statement succeeds or fails on its own, and a failure
// is that statement's Error while the request answers 200.
func (e *Engine) batchExecuteStatement(in *batchExecuteStatementIn) ([]byte, error) {
	if err := checkStatements("statements", in.Statements, maxBatchStatements); err != nil {
		return nil, err
	}
	wantCC, err := wantCapacity(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	results := make([]batchResult, len(in.Statements))
	stmts := make([]partiql.Statement, len(in.Statements))
	reads, writes := false, false
	for i, s := range in.Statements {
		st, err := partiql.Parse(*s.Statement)
		if err == nil {
			if _, ok := st.(*partiql.Exists); ok {
				err = validationf("EXISTS can only be used in ExecuteTransaction write requests.")
			}
		}
		if err != nil {
			results[i].fail(partiqlError(err))
			continue
		}
		stmts[i] = st
		if _, ok := st.(*partiql.Select); ok {
			reads = true
		} else {
			writes = true
		}
		if reads && writes {
			return nil, validationf("Read and write requests together in the same batch is not supported.")
		}
	}
	ccs := newCapacities()
	if reads {
		err = e.batchReads(in.Statements, stmts, results, ccs)
	} else {
		err = e.batchWrites(in.Statements, stmts, results, ccs)
	}
	if err != nil {
		return nil, err
	}
	var r response
	r.field("Responses")
	r.b = append(r.b, '[')
	for i, res := range results {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		if r.b, err = res.appendJSON(r.b); err != nil {
			return nil, err
		}
	}
	r.b = append(r.b, ']')
	if wantCC {
		appendCapacities(&r, in.ReturnConsumedCapacity, ccs.list)
	}
	return r.bytes(), nil
}

// fail records err as the statement's Error; errors that are not
// DynamoDB's are reported as InternalServerError.
func (res *batchResult) fail(err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		res.code, res.msg = "InternalServerError", err.Error()
		return
	}
	res.code, res.msg, res.old = statementErrorCode(ae.Type), ae.Message, ae.Item
}

// statementErrorCode is the BatchStatementError code of an exception.
func statementErrorCode(exception string) string {
	switch exception {
	case errValidation:
		return "ValidationError"
	case errConditional:
		return "ConditionalCheckFailed"
	case errDuplicateItem:
		return "DuplicateItem"
	case errNotFound:
		return "ResourceNotFound"
	case "TransactionConflictException":
		return "TransactionConflict"
	case "ProvisionedThroughputExceededException":
		return "ProvisionedThroughputExceeded"
	case "ItemCollectionSizeLimitExceededException":
		return "ItemCollectionSizeLimitExceeded"
	case "RequestLimitExceeded":
		return "RequestLimitExceeded"
	}
	return "InternalServerError"
}

func (res *batchResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	sep := false
	field := func(name string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	if res.code != "" {
		field("Error")
		b = append(b, `{"Code":`...)
		b = attr.AppendJSONString(b, res.code)
		b = append(b, `,"Message":`...)
		b = attr.AppendJSONString(b, res.msg)
		if res.old != nil {
			b = append(b, `,"Item":`...)
			b = append(b, res.old...)
		}
		b = append(b, '}')
	}
	if res.item != nil {
		field("Item")
		var err error
		if b, err = res.item.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	if res.table != "" {
		field("TableName")
		b = attr.AppendJSONString(b, res.table)
	}
	return append(b, '}'), nil
}

// batchReads reads the item each SELECT names, in one snapshot.
func (e *Engine) batchReads(in []batchStatementIn, stmts []partiql.Statement, results []batchResult, ccs *capacities) error {
	type read struct {
		i    int
		t    *table
		pk   primaryKey
		cols []partiql.Column
	}
	var plan []read
	for i, st := range stmts {
		if st == nil {
			continue
		}
		sel := st.(*partiql.Select)
		results[i].table = sel.Table
		t, x, err := e.statementSource(sel.Table, sel.Index)
		if err != nil {
			results[i].fail(err)
			continue
		}
		rd, err := partiql.PlanSelect(sel, schemaOf(t, x), in[i].Parameters, false)
		if err != nil {
			results[i].fail(partiqlError(err))
			continue
		}
		key, ok := rd.Key(schemaOf(t, nil))
		if !ok || x != nil {
			results[i].fail(validationf("Select statements within BatchExecuteStatement must specify the primary key in the where clause."))
			continue
		}
		pk, err := t.keyFromKey(key)
		if err != nil {
			results[i].fail(err)
			continue
		}
		plan = append(plan, read{i: i, t: t, pk: pk, cols: rd.Columns})
	}
	return e.db.View(func(tx kv.Tx) error {
		for _, rd := range plan {
			it, err := getItem(tx, rd.t, rd.pk.enc)
			if err != nil {
				return err
			}
			size := 0
			if it != nil {
				size = attr.ItemSize(it)
				results[rd.i].item = project(it, rd.cols)
			}
			ccs.of(rd.t).addRead(nil, size, in[rd.i].ConsistentRead, 1)
		}
		return nil
	})
}

// batchWrites runs each write as its own item operation.
func (e *Engine) batchWrites(in []batchStatementIn, stmts []partiql.Statement, results []batchResult, ccs *capacities) error {
	type write struct {
		i int
		t *table
		w *partiql.Write
	}
	var plan []write
	seen := map[string]bool{}
	for i, st := range stmts {
		if st == nil {
			continue
		}
		results[i].table = st.TableName()
		t, _, err := e.statementSource(st.TableName(), "")
		if err != nil {
			results[i].fail(err)
			continue
		}
		w, err := partiql.PlanWrite(st, schemaOf(t, nil), in[i].Parameters, false)
		if err != nil {
			results[i].fail(partiqlError(err))
			continue
		}
		key := w.Key
		if w.Kind == partiql.Put {
			key = t.keyItem(w.Item)
		}
		if pk, err := t.keyFromKey(key); err == nil {
			id := t.name + "\x00" + string(pk.enc)
			if seen[id] {
				return validationf("Provided list of item keys contains duplicates")
			}
			seen[id] = true
		}
		plan = append(plan, write{i: i, t: t, w: w})
	}
	for _, p := range plan {
		_, cc, err := e.runWrite(p.t, p.w, in[p.i].ReturnValuesOnConditionCheckFailure)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				return err
			}
			results[p.i].fail(err)
			continue
		}
		ccs.of(p.t).add(cc)
	}
	return nil
}

// project keeps the columns of a SELECT (all attributes when cols is nil),
// each under its column name.
func project(it attr.Item, cols []partiql.Column) attr.Item {
	if cols == nil {
		return it
	}
	out := make(attr.Item, len(cols))
	for _, c := range cols {
		if v, ok := c.Path.Get(it); ok {
			out[c.Name] = v
		}
	}
	return out
}

// capacities sums capacity per table, in the order tables first appear.
type capacities struct {
	byTable map[string]*capacity
	list    []*capacity
}

func newCapacities() *capacities { return &capacities{byTable: map[string]*capacity{}} }

func (c *capacities) of(t *table) *capacity {
	cc := c.byTable[t.name]
	if cc == nil {
		cc = newCapacity(t)
		c.byTable[t.name] = cc
		c.list = append(c.list, cc)
	}
	return cc
}

// add adds the units of o (on the same table) to c.
func (c *capacity) add(o *capacity) {
	c.read += o.read
	c.write += o.write
	for name, u := range o.idx {
		if c.idx == nil {
			c.idx = map[string]*idxUnits{}
			c.gsi = map[string]bool{}
		}
		cu := c.idx[name]
		if cu == nil {
			cu = &idxUnits{}
			c.idx[name] = cu
			c.gsi[name] = o.gsi[name]
		}
		cu.read += u.read
		cu.write += u.write
	}
}
