package local

import (
	"fmt"
	"strings"
	"testing"
)

// transaction is an ExecuteTransaction body of statements without
// parameters.
func transaction(stmts ...string) string { return statementList("TransactStatements", stmts) }

// reasonsOf renders a TransactionCanceledException's reasons.
func reasonsOf(ae *apiError) string {
	if ae == nil || ae.Type != errTxCanceled {
		return fmt.Sprint(ae)
	}
	var out []string
	for _, r := range ae.Reasons {
		s := r.Code
		if r.Message != "" {
			s += ": " + r.Message
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

// Errors found in a statement before the transaction runs name the
// statement; the request as a whole is refused before anything is read.
func TestExecuteTransactionRefusals(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`)
	var many []string
	for i := range 101 {
		many = append(many, fmt.Sprintf(`INSERT INTO tbl VALUE {'pk': '%d', 'sk': 'x'}`, i))
	}
	for _, c := range []struct{ body, msg string }{
		{`{}`, "1 validation error detected: Value null at 'transactStatements' failed to satisfy constraint: Member must not be null"},
		{transaction(many...), "1 validation error detected: Value at 'transactStatements' failed to satisfy constraint: Member must have length less than or equal to 100"},
		{transaction(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1'`, `INSERT INTO tbl VALUE {'pk': 'b', 'sk': '1'}`),
			"ExecuteTransaction API does not support both read and write operations in the same request."},
		{transaction(`INSERT INTO tbl VALUE {'pk': 'b', 'sk': '1'}`, `SELECT * FROM tbl WHERE`),
			"Validation failed in TransactStatements[1]: Statement wasn't well formed, can't be processed: Unexpected term"},
		{transaction(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1' AND v = 1`),
			"Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause."},
		{transaction(`SELECT * FROM "tbl"."gsi" WHERE gpk = 'a' AND gsk = 'b'`),
			"Validation failed in TransactStatements[0]: Reads on indices are not supported within transactions."},
		{transaction(`UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = '1'`, `UPDATE tbl SET v = 1 WHERE pk = 'b' AND sk = '1' RETURNING ALL NEW *`),
			"Validation failed in TransactStatements[1]: RETURNING clause is not supported in ExecuteTransaction."},
		{transaction(`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = '1')`, `DELETE FROM tbl WHERE pk = 'a' AND sk = '2'`),
			"Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition"},
		{transaction(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1'`, `SELECT pk FROM tbl WHERE sk = '1' AND pk = 'a'`),
			"Transaction request cannot include multiple operations on one item"},
		{transaction(`UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = '1'`, `DELETE FROM tbl WHERE pk = 'a' AND sk = '1'`),
			"Transaction request cannot include multiple operations on one item"},
		{transaction(`DELETE FROM tbl WHERE pk = 'a' AND sk = '1'`, `UPDATE tbl SET v = 1 WHERE pk = 'b' AND sk = '1' AND attribute_type(v, 'Q')`),
			"Validation failed in TransactStatements[1]: Invalid attribute type name found; type: Q, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{`{"ClientRequestToken":"` + strings.Repeat("x", 37) + `","TransactStatements":[{"Statement":"DELETE FROM tbl WHERE pk = 'a' AND sk = '1'"}]}`,
			"1 validation error detected: Value '" + strings.Repeat("x", 37) + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
	} {
		wantRefused(t, e, "ExecuteTransaction", c.body, errValidation, c.msg)
	}
	wantNoItem(t, e, "b", "1", "a refused transaction")
}

// A missing table or a WHERE that does not name one item cancels the
// transaction with a reason for that statement, as DynamoDB reports it.
func TestExecuteTransactionCancellationReasons(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"1"}}}`)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"d"},"sk":{"S":"1"},"w":{"S":"text"}}}`)
	for _, c := range []struct{ body, reasons string }{
		{transaction(`UPDATE nope SET v = 1 WHERE pk = 'a' AND sk = '1'`, `DELETE FROM tbl WHERE pk = 'a' AND sk = '1'`),
			"ResourceNotFound: Requested resource not found | None"},
		{transaction(`UPDATE tbl SET v = 1 WHERE pk = 'a'`, `UPDATE tbl SET v = 1 WHERE pk IN ['a'] AND sk = '1'`,
			`UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = '1' AND pk = 'b'`, `UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = 1`,
			`INSERT INTO tbl VALUE {'pk': 'x'}`, `DELETE FROM tbl WHERE pk = 'z' AND sk = '9'`),
			"ValidationError: The provided key element does not match the schema | ValidationError: The provided key element does not match the schema | " +
				"ValidationError: Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported | " +
				"ValidationError: The provided key element does not match the schema | " +
				"ValidationError: One or more parameter values were invalid: Missing the key sk in the item | None"},
		{transaction(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1'`, `SELECT * FROM tbl WHERE pk = 'a' AND sk = 1`, `SELECT * FROM nope WHERE pk = 'a'`),
			"None | ValidationError: The provided key element does not match the schema | ResourceNotFound: Requested resource not found"},
		{transaction(`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = '1' AND v = 2)`, `INSERT INTO tbl VALUE {'pk': 'd', 'sk': '1'}`,
			`UPDATE tbl SET v = v + 1 WHERE pk = 'b' AND sk = '1'`, `INSERT INTO tbl VALUE {'pk': 'c', 'sk': '1'}`),
			"ConditionalCheckFailed: The conditional request failed | DuplicateItem: Duplicate primary key exists in table | " +
				"ConditionalCheckFailed: The conditional request failed | None"},
		{transaction(`UPDATE tbl SET w = w + 1 WHERE pk = 'd' AND sk = '1'`),
			"ValidationError: An operand in the update expression has an incorrect data type"},
		{transaction(`UPDATE tbl SET sk = 'x' WHERE pk = 'd' AND sk = '1'`, `DELETE FROM tbl WHERE pk = 'a' AND sk = '1'`),
			"ValidationError: One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key | None"},
	} {
		_, ae := call(t, e, "ExecuteTransaction", c.body)
		if got := reasonsOf(ae); got != c.reasons {
			t.Errorf("%s:\n got  %s\n want %s", c.body, got, c.reasons)
		}
	}
	_, ae := call(t, e, "ExecuteTransaction", transaction(`UPDATE nope SET v = 1 WHERE pk = 'a' AND sk = '1'`, `DELETE FROM tbl WHERE pk = 'a' AND sk = '1'`))
	if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [ResourceNotFound, None]"; ae == nil || ae.Message != want {
		t.Errorf("message %v, want %q", ae, want)
	}
	wantNoItem(t, e, "c", "1", "a cancelled transaction")
	v := okCall(t, e, "GetItem", `{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"S":"1"}}}`)
	if got := compact(v["Item"]); got != `{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"1"}}` {
		t.Errorf("item after cancelled transactions = %s", got)
	}
}

func TestExecuteTransactionWritesAndReads(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"1"}}}`)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"2"}}}`)
	body := `{"ReturnConsumedCapacity":"TOTAL","ClientRequestToken":"tok-1","TransactStatements":[` +
		statement(`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = '1' AND v = 1)`) + `,` +
		`{"Statement":"INSERT INTO hash VALUE {'pk': ?, 'n': 0}","Parameters":[{"S":"h"}]},` +
		statement(`UPDATE tbl SET w = 'x' WHERE pk = 'b' AND sk = '1' OR pk = 'c'`) + `]}`
	_, ae := call(t, e, "ExecuteTransaction", body)
	if got := reasonsOf(ae); got != "None | None | ValidationError: The provided key element does not match the schema" {
		t.Errorf("an UPDATE whose WHERE names no item: %s", got)
	}
	body = strings.Replace(body, `WHERE pk = 'b' AND sk = '1' OR pk = 'c'`, `WHERE pk = 'a' AND sk = '2'`, 1)
	v := okCall(t, e, "ExecuteTransaction", body)
	if got := compact(v); got != `{"ConsumedCapacity":[{"CapacityUnits":4,"ReadCapacityUnits":2,"TableName":"tbl","WriteCapacityUnits":2},`+
		`{"CapacityUnits":2,"TableName":"hash","WriteCapacityUnits":2}],"Responses":[]}` {
		t.Errorf("write transaction answered %s", got)
	}
	// The same token and statements again: applied once, answered again.
	okCall(t, e, "ExecuteTransaction", body)
	_, ae = call(t, e, "ExecuteTransaction", strings.Replace(body, `'n': 0`, `'n': 1`, 1))
	wantAPIErr(t, "a token reused for other statements", ae, errIdempotent,
		"The request uses the same client token as a previous, but non-identical request.")
	v = okCall(t, e, "ExecuteTransaction", `{"TransactStatements":[`+
		statement(`SELECT n FROM hash WHERE pk = 'h'`)+`,`+statement(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1'`)+`,`+
		statement(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '2'`)+`,`+statement(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '3'`)+`]}`)
	if got := compact(v["Responses"]); got != `[{"Item":{"n":{"N":"0"}}},{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"1"}}},{"Item":{"pk":{"S":"a"},"sk":{"S":"2"},"w":{"S":"x"}}},{}]` {
		t.Errorf("read transaction Responses = %s", got)
	}
}
