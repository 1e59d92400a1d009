package local

import (
	"fmt"
	"strings"
	"testing"
)

// batch is a BatchExecuteStatement body of statements without parameters.
func batch(stmts ...string) string { return statementList("Statements", stmts) }

func TestBatchExecuteStatementRefusals(t *testing.T) {
	e := partiqlEngine(t)
	var many []string
	for i := range 26 {
		many = append(many, fmt.Sprintf(`INSERT INTO tbl VALUE {'pk': '%d', 'sk': 'x'}`, i))
	}
	for _, c := range []struct{ body, msg string }{
		{`{}`, "1 validation error detected: Value null at 'statements' failed to satisfy constraint: Member must not be null"},
		{`{"Statements":[]}`, "1 validation error detected: Value '[]' at 'statements' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{batch(many...), "1 validation error detected: Value at 'statements' failed to satisfy constraint: Member must have length less than or equal to 25"},
		{`{"Statements":[{"Statement":"SELECT * FROM tbl"},{}]}`, "1 validation error detected: Value null at 'statements.2.member.statement' failed to satisfy constraint: Member must not be null"},
		{batch(`SELECT * FROM tbl WHERE pk = 'a' AND sk = 'b'`, `DELETE FROM tbl WHERE pk = 'a' AND sk = 'b'`), "Read and write requests together in the same batch is not supported."},
		{batch(`UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = 'b'`, `DELETE FROM tbl WHERE sk = 'b' AND pk = 'a'`), "Provided list of item keys contains duplicates"},
	} {
		wantRefused(t, e, "BatchExecuteStatement", c.body, errValidation, c.msg)
	}
	wantNoItem(t, e, "0", "x", "a refused batch")
}

// Each statement of a batch succeeds or fails on its own: its Error carries
// the BatchStatementError code of the exception the statement alone would
// raise, and the table it named.
func TestBatchExecuteStatementErrors(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"old"},"sk":{"S":"1"},"v":{"N":"1"}}}`)
	v := okCall(t, e, "BatchExecuteStatement", `{"Statements":[`+
		statement(`INSERT INTO tbl VALUE {'pk': 'new', 'sk': '1'}`)+`,`+
		statement(`INSERT INTO tbl VALUE {'pk': 'old', 'sk': '1'}`)+`,`+
		`{"Statement":"UPDATE tbl SET v = 2 WHERE pk = 'old2' AND sk = '1'"},`+
		`{"Statement":"DELETE FROM tbl WHERE pk = 'x' AND sk = '1' AND v = 3","ReturnValuesOnConditionCheckFailure":"ALL_OLD"},`+
		statement(`UPDATE nope SET v = 1 WHERE pk = 'a'`)+`,`+
		statement(`UPDATE tbl SET v = 1 WHERE pk = 'a'`)+`,`+
		statement(`SELECT * FROM`)+`,`+
		statement(`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = 'b' AND v = 1)`)+`]}`)
	want := `[{"TableName":"tbl"},` +
		`{"Error":{"Code":"DuplicateItem","Message":"Duplicate primary key exists in table"},"TableName":"tbl"},` +
		`{"Error":{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},"TableName":"tbl"},` +
		`{"Error":{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},"TableName":"tbl"},` +
		`{"Error":{"Code":"ResourceNotFound","Message":"Requested resource not found"},"TableName":"nope"},` +
		`{"Error":{"Code":"ValidationError","Message":"Where clause does not contain a mandatory equality on all key attributes"},"TableName":"tbl"},` +
		`{"Error":{"Code":"ValidationError","Message":"Statement wasn't well formed, can't be processed: Unexpected term"}},` +
		`{"Error":{"Code":"ValidationError","Message":"EXISTS can only be used in ExecuteTransaction write requests."}}]`
	if got := compact(v["Responses"]); got != want {
		t.Errorf("Responses:\n got  %s\n want %s", got, want)
	}
	v = okCall(t, e, "BatchExecuteStatement", `{"Statements":[`+
		`{"Statement":"UPDATE tbl SET v = 5 WHERE pk = 'old' AND sk = '1' AND v = 9","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}]}`)
	if got := compact(v["Responses"]); !strings.Contains(got, `"Item":{"pk":{"S":"old"},"sk":{"S":"1"},"v":{"N":"1"}}`) {
		t.Errorf("ALL_OLD on a failed condition: %s", got)
	}
}

func TestBatchExecuteStatementReads(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"1"},"m":{"M":{"k":{"S":"x"}}}}}`)
	okCall(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"h"},"w":{"S":"y"}}}`)
	v := okCall(t, e, "BatchExecuteStatement", `{"ReturnConsumedCapacity":"TOTAL","Statements":[`+
		statement(`SELECT v, m.k FROM tbl WHERE pk = 'a' AND sk = '1'`)+`,`+
		statement(`SELECT * FROM hash WHERE pk = 'h'`)+`,`+
		statement(`SELECT * FROM tbl WHERE pk = 'z' AND sk = '1'`)+`,`+
		statement(`SELECT * FROM tbl WHERE pk = 'a' AND sk = '1' AND v = 1`)+`,`+
		statement(`SELECT * FROM "tbl"."gsi" WHERE gpk = 'a' AND gsk = 'b'`)+`,`+
		statement(`SELECT * FROM tbl WHERE pk = 'a' AND sk = 1`)+`]}`)
	refused := `{"Error":{"Code":"ValidationError","Message":"Select statements within BatchExecuteStatement must specify the primary key in the where clause."},"TableName":"tbl"}`
	want := `[{"Item":{"k":{"S":"x"},"v":{"N":"1"}},"TableName":"tbl"},{"Item":{"pk":{"S":"h"},"w":{"S":"y"}},"TableName":"hash"},{"TableName":"tbl"},` +
		refused + `,` + refused + `,{"Error":{"Code":"ValidationError","Message":"The provided key element does not match the schema"},"TableName":"tbl"}]`
	if got := compact(v["Responses"]); got != want {
		t.Errorf("Responses:\n got  %s\n want %s", got, want)
	}
	if got := compact(v["ConsumedCapacity"]); got != `[{"CapacityUnits":1,"ReadCapacityUnits":1,"TableName":"tbl"},{"CapacityUnits":0.5,"ReadCapacityUnits":0.5,"TableName":"hash"}]` {
		t.Errorf("ConsumedCapacity = %s", got)
	}
}

// A statement member of the wrong JSON type is named by its path of request
// members, as ExecuteTransaction names it: the Go struct that reads it is
// not part of the message.
func TestBatchExecuteStatementWrongTypeNamesMember(t *testing.T) {
	e := partiqlEngine(t)
	for _, c := range []struct{ op, body, msg string }{
		{"BatchExecuteStatement", `{"Statements":[{"Statement":5}]}`, "Unexpected value type in payload for field Statements.Statement"},
		{"BatchExecuteStatement", `{"Statements":[{"Statement":"SELECT * FROM tbl","Parameters":{}}]}`, "Unexpected value type in payload for field Statements.Parameters"},
		{"BatchExecuteStatement", `{"Statements":[{"Statement":"SELECT * FROM tbl","ReturnValuesOnConditionCheckFailure":1}]}`, "Unexpected value type in payload for field Statements.ReturnValuesOnConditionCheckFailure"},
		{"ExecuteTransaction", `{"TransactStatements":[{"Statement":5}]}`, "Unexpected value type in payload for field TransactStatements.Statement"},
	} {
		wantRefused(t, e, c.op, c.body, errSerialization, c.msg)
	}
}
