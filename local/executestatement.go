package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/partiql"
)

type executeStatementIn struct {
	Statement                           *string
	Parameters                          []attr.Value
	ConsistentRead                      bool
	NextToken                           *string
	Limit                               *int64
	ReturnConsumedCapacity              string
	ReturnValuesOnConditionCheckFailure string
}

// executeStatement runs one PartiQL statement: a SELECT page, or one
// singleton write.
func (e *Engine) executeStatement(in *executeStatementIn) ([]byte, error) {
	if err := checkStatement("statement", in.Statement); err != nil {
		return nil, err
	}
	if err := checkParameters("parameters", in.Parameters); err != nil {
		return nil, err
	}
	if in.Limit != nil && *in.Limit < 1 {
		return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
	}
	if in.NextToken != nil && (len(*in.NextToken) < 1 || len(*in.NextToken) > 32768) {
		return nil, validationf("1 validation error detected: Value '%s' at 'nextToken' failed to satisfy constraint: Member must have length less than or equal to 32768, Member must have length greater than or equal to 1", *in.NextToken)
	}
	wantCC, err := wantCapacity(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	st, err := partiql.Parse(*in.Statement)
	if err != nil {
		return nil, partiqlError(err)
	}
	if _, ok := st.(*partiql.Exists); ok {
		return nil, validationf("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	if err := partiql.CheckParams(st, in.Parameters); err != nil {
		return nil, partiqlError(err)
	}
	var r response
	if sel, ok := st.(*partiql.Select); ok {
		if err := e.selectStatement(&r, sel, in, wantCC); err != nil {
			return nil, err
		}
		return r.bytes(), nil
	}
	t, _, err := e.statementSource(st.TableName(), "")
	if err != nil {
		return nil, err
	}
	w, err := partiql.PlanWrite(st, schemaOf(t, nil), in.Parameters, false)
	if err != nil {
		return nil, partiqlError(err)
	}
	attrs, cc, err := e.runWrite(t, w, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	r.field("Items")
	r.b = append(r.b, '[')
	if attrs != nil {
		if r.b, err = attrs.AppendJSON(r.b); err != nil {
			return nil, err
		}
	}
	r.b = append(r.b, ']')
	if wantCC {
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return r.bytes(), nil
}

// selectStatement answers one page of a SELECT into r: Items, NextToken
// when the read stopped early, ConsumedCapacity when asked.
func (e *Engine) selectStatement(r *response, sel *partiql.Select, in *executeStatementIn, wantCC bool) error {
	t, x, err := e.statementSource(sel.Table, sel.Index)
	if err != nil {
		return err
	}
	rd, err := partiql.PlanSelect(sel, schemaOf(t, x), in.Parameters, true)
	if err != nil {
		return partiqlError(err)
	}
	if err := checkReadSource(t, x, rd, in.ConsistentRead); err != nil {
		return err
	}
	digest := statementDigest(*in.Statement, in.Parameters)
	var from selectCursor
	if in.NextToken != nil {
		if from, err = decodeNextToken(*in.NextToken, digest); err != nil {
			return err
		}
	}
	limit := 0
	if in.Limit != nil {
		limit = int(min(*in.Limit, 1<<31-1))
	}
	pg, err := e.runSelect(t, x, rd, from, limit)
	if err != nil {
		return err
	}
	r.field("Items")
	r.b = append(r.b, '[')
	r.b = append(r.b, pg.items...)
	r.b = append(r.b, ']')
	if pg.next != nil {
		token, err := encodeNextToken(digest, pg.next)
		if err != nil {
			return err
		}
		r.field("NextToken")
		r.b = attr.AppendJSONString(r.b, token)
	}
	if wantCC {
		cc := newCapacity(t)
		cc.addRead(x, pg.readSize, in.ConsistentRead, 1)
		r.capacity(in.ReturnConsumedCapacity, cc)
	}
	return nil
}
