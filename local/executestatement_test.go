package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// partiqlEngine is an in-memory engine with table "tbl" (pk S, sk S), its
// GSI "gsi" (gpk S, gsk S) projecting KEYS_ONLY, and table "hash" (pk S).
func partiqlEngine(t *testing.T) *Engine {
	t.Helper()
	e := openMem(t)
	c := clientFor(e)
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("tbl"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gpk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gsk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("gsi"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("gpk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("gsk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("hash"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// call runs operation op on body and returns the decoded answer, or the
// error DynamoDB's client would see.
func call(t *testing.T, e *Engine, op, body string) (map[string]any, *apiError) {
	t.Helper()
	out, err := operations[op](e, []byte(body))
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			t.Fatalf("%s %s: %v (not an apiError)", op, body, err)
		}
		return nil, ae
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s answered %s: %v", op, out, err)
	}
	return v, nil
}

// okCall is call for a request that must succeed.
func okCall(t *testing.T, e *Engine, op, body string) map[string]any {
	t.Helper()
	v, ae := call(t, e, op, body)
	if ae != nil {
		t.Fatalf("%s %s: %v", op, body, ae)
	}
	return v
}

// wantAPIErr fails unless ae is exception typ with message msg.
func wantAPIErr(t *testing.T, what string, ae *apiError, typ, msg string) {
	t.Helper()
	if ae == nil {
		t.Errorf("%s: succeeded, want %s %q", what, typ, msg)
		return
	}
	if ae.Type != typ || ae.Message != msg {
		t.Errorf("%s:\n got  %s %q\n want %s %q", what, ae.Type, ae.Message, typ, msg)
	}
}

// wantRefused sends body to op and fails unless it is refused with
// exception typ and message msg.
func wantRefused(t *testing.T, e *Engine, op, body, typ, msg string) {
	t.Helper()
	_, ae := call(t, e, op, body)
	wantAPIErr(t, body, ae, typ, msg)
}

// wantNoItem fails unless tbl holds no item with key pk, sk; what names
// the refused request that must not have written it.
func wantNoItem(t *testing.T, e *Engine, pk, sk, what string) {
	t.Helper()
	key := fmt.Sprintf(`{"TableName":"tbl","Key":{"pk":{"S":%q},"sk":{"S":%q}}}`, pk, sk)
	if v, _ := call(t, e, "GetItem", key); v["Item"] != nil {
		t.Errorf("%s wrote %v", what, v["Item"])
	}
}

// statement is an ExecuteStatement body.
func statement(stmt string, extra ...string) string {
	b, _ := json.Marshal(stmt)
	return `{"Statement":` + string(b) + strings.Join(extra, "") + `}`
}

// statementList is a body whose member lists stmts as statements without
// parameters.
func statementList(member string, stmts []string) string {
	parts := make([]string, len(stmts))
	for i, stmt := range stmts {
		parts[i] = statement(stmt)
	}
	return `{"` + member + `":[` + strings.Join(parts, ",") + `]}`
}

// compact renders a decoded JSON value compactly with sorted keys.
func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExecuteStatementValidation(t *testing.T) {
	e := partiqlEngine(t)
	for _, c := range []struct{ body, typ, msg string }{
		{`{}`, errValidation, "1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null"},
		{`{"Statement":""}`, errValidation, "1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{statement("SELECT * FROM tbl", `,"Parameters":[]`), errValidation, "1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{statement("SELECT * FROM tbl", `,"Limit":0`), errValidation, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{statement("SELECT * FROM tbl", `,"ReturnConsumedCapacity":"SOME"`), errValidation, "1 validation error detected: Value 'SOME' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		{statement("SELECT * FROM tbl", `,"Parameters":[{"NULL":false}]`), errValidation, "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{statement("SELECT * FROM tbl", `,"Parameters":[{"SS":["a","a"]}]`), errValidation, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{statement(`SELECT * FROM "missing"`), errNotFound, "Requested resource not found"},
		{statement(`SELECT * FROM "tbl"."nope"`), errNotFound, "Requested resource not found"},
		{statement(`SELECT * FROM tbl WHERE`), errValidation, "Statement wasn't well formed, can't be processed: Unexpected term"},
		{statement(`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = 'b' AND v = 1)`), errValidation, "EXISTS can only be used in ExecuteTransaction write requests."},
		{statement(`SELECT * FROM tbl WHERE pk = ?`), errValidation, "Number of parameters in request and statement don't match."},
		{statement(`SELECT * FROM "tbl"."gsi" WHERE gpk = 'a'`, `,"ConsistentRead":true`), errValidation, "Strongly consistent read is not supported on Global Secondary Indexes"},
		{statement(`SELECT pk, v, w FROM "tbl"."gsi"`), errValidation, "One or more parameter values were invalid: Global secondary index gsi does not project [v, w]"},
		{statement(`UPDATE tbl SET sk = 'x' WHERE pk = 'a' AND sk = 'b'`), errValidation, "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
		{statement(`UPDATE tbl SET v = 1 WHERE pk = 'a' AND sk = 'b' AND attribute_type(v, 'Q')`), errValidation, "Invalid attribute type name found; type: Q, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{statement(`INSERT INTO tbl VALUE {'pk': 'a'}`), errValidation, "One or more parameter values were invalid: Missing the key sk in the item"},
		{statement(`INSERT INTO tbl VALUE {'pk': 'a', 'sk': 1}`), errValidation, "One or more parameter values were invalid: Type mismatch for key sk expected: S actual: N"},
		{statement(`INSERT INTO tbl VALUE {'pk': 'a', 'sk': 'b', 'gpk': 1}`), errValidation, "One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi"},
	} {
		wantRefused(t, e, "ExecuteStatement", c.body, c.typ, c.msg)
	}
}

func TestExecuteStatementWrites(t *testing.T) {
	e := partiqlEngine(t)
	okCall(t, e, "ExecuteStatement", statement(`INSERT INTO tbl VALUE {'pk': 'a', 'sk': 'b', 'n': 1, 'l': [1]}`))
	_, ae := call(t, e, "ExecuteStatement", statement(`INSERT INTO tbl VALUE {'pk': 'a', 'sk': 'b'}`))
	wantAPIErr(t, "duplicate INSERT", ae, errDuplicateItem, "Duplicate primary key exists in table")
	v := okCall(t, e, "ExecuteStatement", statement(`UPDATE tbl SET n = n + ?, l = list_append(l, [2]) WHERE pk = 'a' AND sk = 'b' RETURNING MODIFIED NEW *`,
		`,"Parameters":[{"N":"10"}]`))
	if got := compact(v["Items"]); got != `[{"l":{"L":[{"N":"1"},{"N":"2"}]},"n":{"N":"11"}}]` {
		t.Errorf("RETURNING MODIFIED NEW * = %s", got)
	}
	_, ae = call(t, e, "ExecuteStatement", statement(`UPDATE tbl SET n = 0 WHERE pk = 'a' AND sk = 'b' AND n > 100`,
		`,"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`))
	if ae == nil || ae.Type != errConditional || !strings.Contains(string(ae.Item), `"n":{"N":"11"}`) {
		t.Errorf("false condition with ALL_OLD: %v item %s", ae, ae.Item)
	}
	v = okCall(t, e, "ExecuteStatement", statement(`DELETE FROM tbl WHERE pk = 'a' AND sk = 'b' RETURNING ALL OLD *`))
	if got := compact(v["Items"]); !strings.Contains(got, `"n":{"N":"11"}`) {
		t.Errorf("DELETE RETURNING ALL OLD * = %s", got)
	}
	v = okCall(t, e, "ExecuteStatement", statement(`DELETE FROM tbl WHERE pk = 'a' AND sk = 'b'`, `,"ReturnConsumedCapacity":"TOTAL"`))
	if got := compact(v); got != `{"ConsumedCapacity":{"CapacityUnits":1,"TableName":"tbl","WriteCapacityUnits":1},"Items":[]}` {
		t.Errorf("DELETE of a missing item = %s", got)
	}
}

// seedPartitions writes items pk p0..p2 x sk 0..3 into tbl.
func seedPartitions(t *testing.T, e *Engine) {
	t.Helper()
	for _, pk := range []string{"p0", "p1", "p2"} {
		for _, sk := range []string{"0", "1", "2", "3"} {
			okCall(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"`+pk+`"},"sk":{"S":"`+sk+`"},"gpk":{"S":"g"},"gsk":{"S":"`+pk+sk+`"}}}`)
		}
	}
}

// keys lists the pk/sk of a page's items.
func keys(v map[string]any) string {
	var out []string
	items, _ := v["Items"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		pk, _ := m["pk"].(map[string]any)
		sk, _ := m["sk"].(map[string]any)
		out = append(out, pk["S"].(string)+"/"+sk["S"].(string))
	}
	return strings.Join(out, ",")
}

// selectAll pages through a SELECT with Limit and returns every page's keys.
func selectAll(t *testing.T, e *Engine, stmt string, limit string) []string {
	t.Helper()
	var pages []string
	token := ""
	for range 50 {
		extra := `,"Limit":` + limit
		if token != "" {
			extra += `,"NextToken":"` + token + `"`
		}
		v := okCall(t, e, "ExecuteStatement", statement(stmt, extra))
		pages = append(pages, keys(v))
		next, _ := v["NextToken"].(string)
		if next == "" {
			return pages
		}
		token = next
	}
	t.Fatalf("%s: no end after 50 pages", stmt)
	return nil
}

func TestExecuteStatementPagingAcrossPartitions(t *testing.T) {
	e := partiqlEngine(t)
	seedPartitions(t, e)
	pages := selectAll(t, e, `SELECT * FROM tbl WHERE pk IN ['p2', 'p0'] AND sk > '1' ORDER BY pk DESC, sk DESC`, "3")
	if got := strings.Join(pages, " | "); got != "p2/3,p2/2,p0/3 | p0/2" {
		t.Errorf("pages = %s", got)
	}
	pages = selectAll(t, e, `SELECT * FROM tbl WHERE sk = '3'`, "5")
	if got := strings.Join(pages, " | "); strings.Count(got, "/3") != 3 || len(pages) < 3 {
		t.Errorf("scan pages of 5 items read = %s", got)
	}
	pages = selectAll(t, e, `SELECT pk, sk FROM "tbl"."gsi" WHERE gpk = 'g' AND gsk BETWEEN 'p01' AND 'p10'`, "2")
	if got := strings.Join(pages, " | "); got != "p0/1,p0/2 | p0/3,p1/0 | " {
		t.Errorf("index pages = %s", got)
	}
}

// A SELECT read as several Queries (an IN on the partition key) returns
// pages of up to 10 items.
func TestExecuteStatementMultiQueryPages(t *testing.T) {
	e := partiqlEngine(t)
	seedPartitions(t, e)
	pages := selectAll(t, e, `SELECT * FROM tbl WHERE pk IN ['p0', 'p1', 'p2']`, "100")
	if len(pages) != 2 || strings.Count(pages[0], ",") != 9 || strings.Count(pages[1], ",") != 1 {
		t.Errorf("pages = %q, want 10 items then 2", pages)
	}
	pages = selectAll(t, e, `SELECT * FROM tbl WHERE pk = 'p0' OR pk = 'p1' OR pk = 'p2'`, "4")
	if got := strings.Join(pages, " | "); got != "p0/0,p0/1,p0/2,p0/3 | p1/0,p1/1,p1/2,p1/3 | p2/0,p2/1,p2/2,p2/3 | " {
		t.Errorf("pages of Limit 4 = %s", got)
	}
}

func TestExecuteStatementNextToken(t *testing.T) {
	e := partiqlEngine(t)
	seedPartitions(t, e)
	stmt := `SELECT * FROM tbl WHERE pk = ?`
	v := okCall(t, e, "ExecuteStatement", statement(stmt, `,"Parameters":[{"S":"p1"}],"Limit":1`))
	token, _ := v["NextToken"].(string)
	if token == "" {
		t.Fatal("no NextToken after a page of 1")
	}
	// A changed Limit or ConsistentRead keeps the token valid.
	v = okCall(t, e, "ExecuteStatement", statement(stmt, `,"Parameters":[{"S":"p1"}],"Limit":2,"ConsistentRead":true,"NextToken":"`+token+`"`))
	if got := keys(v); got != "p1/1,p1/2" {
		t.Errorf("second page = %s", got)
	}
	_, ae := call(t, e, "ExecuteStatement", statement(stmt, `,"Parameters":[{"S":"p2"}],"NextToken":"`+token+`"`))
	wantAPIErr(t, "token of other parameters", ae, errValidation, "NextToken does not match request")
	_, ae = call(t, e, "ExecuteStatement", statement(`SELECT * FROM tbl WHERE pk = 'p1'`, `,"NextToken":"`+token+`"`))
	wantAPIErr(t, "token of another statement", ae, errValidation, "NextToken does not match request")
	_, ae = call(t, e, "ExecuteStatement", statement(stmt, `,"Parameters":[{"S":"p1"}],"NextToken":"not-a-token"`))
	wantAPIErr(t, "garbage token", ae, errValidation, "Invalid NextToken")
}

func TestExecuteStatementCapacity(t *testing.T) {
	e := partiqlEngine(t)
	seedPartitions(t, e)
	v := okCall(t, e, "ExecuteStatement", statement(`SELECT * FROM tbl WHERE pk = 'p0'`, `,"ReturnConsumedCapacity":"TOTAL","ConsistentRead":true`))
	if got := compact(v["ConsumedCapacity"]); got != `{"CapacityUnits":1,"ReadCapacityUnits":1,"TableName":"tbl"}` {
		t.Errorf("consistent SELECT capacity = %s", got)
	}
	v = okCall(t, e, "ExecuteStatement", statement(`SELECT * FROM "tbl"."gsi" WHERE gpk = 'g'`, `,"ReturnConsumedCapacity":"INDEXES"`))
	if got := compact(v["ConsumedCapacity"]); !strings.Contains(got, `"GlobalSecondaryIndexes":{"gsi":{"CapacityUnits":0.5`) {
		t.Errorf("index SELECT capacity = %s", got)
	}
}

// BenchmarkExecuteStatementSelectGSI100 is BenchmarkQueryGSI100 as a PartiQL
// SELECT: the statement's parse and translation on top of the same walk.
func BenchmarkExecuteStatementSelectGSI100(b *testing.B) {
	c := courseOf100(b)
	runClients(b, func(int64) error {
		out, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Limit: aws.Int32(100),
			Statement: aws.String(`SELECT * FROM "school"."GSI1" WHERE GSI1PK = ?`), Parameters: []av{s("CRS#math")}})
		if err == nil && len(out.Items) != 100 {
			err = fmt.Errorf("count %d", len(out.Items))
		}
		return err
	})
}

// BenchmarkExecuteStatementInsert is BenchmarkPutItemConditional as a
// PartiQL INSERT (a put conditioned on attribute_not_exists).
func BenchmarkExecuteStatementInsert(b *testing.B) {
	c := schoolBenchClient(b)
	runClients(b, func(i int64) error {
		from, to := fmt.Sprintf("STU#%d", i), fmt.Sprintf("CRS#%d", i%1000)
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement:  aws.String(`INSERT INTO "school" VALUE {'PK': ?, 'SK': ?, 'GSI1PK': ?, 'GSI1SK': ?, 'grade': 'A', 'enrolledOn': '2026-09-01'}`),
			Parameters: []av{s(from), s("ENROLL#" + to), s(to), s(from)}})
		return err
	})
}

// A statement naming an attribute "" is not refused with the check of
// ExpressionAttributeNames: the placeholders the engine writes for a
// statement are its own, and no answer names them (DynamoDB's answer to
// such a statement is not known).
func TestStatementsWithAnEmptyNameDoNotNameThePlaceholders(t *testing.T) {
	e := partiqlEngine(t)
	if _, err := call(t, e, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`); err != nil {
		t.Fatal(err)
	}
	const update = `UPDATE tbl SET \"\" = 'x' WHERE pk = 'a' AND sk = '1'`
	for _, c := range []struct{ name, op, body string }{
		{"ExecuteStatementUpdate", "ExecuteStatement", `{"Statement":"` + update + `"}`},
		{"ExecuteStatementWhere", "ExecuteStatement", `{"Statement":"SELECT * FROM tbl WHERE pk = 'a' AND \"\" = 'x'"}`},
		{"BatchExecuteStatementUpdate", "BatchExecuteStatement", `{"Statements":[{"Statement":"` + update + `"}]}`},
		{"ExecuteTransactionUpdate", "ExecuteTransaction", `{"TransactStatements":[{"Statement":"` + update + `"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, raw := postRaw(t, e, c.op, c.body); strings.Contains(string(raw), "#n") {
				t.Errorf("%s names a placeholder the statement does not have: %s", c.op, raw)
			}
		})
	}
}
