package dyntest

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchExecuteStatement: "The entire batch must consist of either read
// statements or write statements"; "Each read statement ... must specify an
// equality condition on all key attributes"; "A HTTP 200 response does not
// mean that all statements in the BatchExecuteStatement succeeded."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
func (s *suite) testPartiQLBatch(t *testing.T) {
	s.runExpecting(t, "Writes", composite, QuirkPartiQLBatchLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("dup"), "sk": vS("1")}, item{"pk": vS("keep"), "sk": vS("1")})
		out, err := s.c.BatchExecuteStatement(s.ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': ?, 'sk': '1'}`), Parameters: []types.AttributeValue{vS("a")}},
			{Statement: aws.String(`UPDATE ` + quote(tb) + ` SET v = 'x' WHERE pk = 'none' AND sk = '1'`)},
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': 'dup', 'sk': '1'}`)},
			{Statement: aws.String(`DELETE FROM ` + quote(tb) + ` WHERE pk = 'keep' AND sk = '1' AND nope = 'x'`)},
		}})
		if !e.that(err == nil, "BatchExecuteStatement: %v", err) {
			return
		}
		var codes []string
		for _, r := range out.Responses {
			code := "ok"
			if r.Error != nil {
				code = string(r.Error.Code)
			}
			codes = append(codes, code)
		}
		want := "ok,ConditionalCheckFailed,DuplicateItem,ConditionalCheckFailed"
		e.that(join(codes) == want, "Responses = %s, want %s", join(codes), want)
		e.that(s.get(t, tb, item{"pk": vS("a"), "sk": vS("1")}) != nil, "the batch's successful INSERT was not applied")
		e.that(s.get(t, tb, item{"pk": vS("keep"), "sk": vS("1")}) != nil, "the batch's failed DELETE deleted")
	})

	s.runExpecting(t, "Reads", composite, QuirkPartiQLBatchLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("a"), "sk": vS("1"), "v": vS("x")})
		out, err := s.c.BatchExecuteStatement(s.ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'a' AND sk = '1'`), ConsistentRead: aws.Bool(true)},
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'b' AND sk = '1'`)},
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'a'`)},
		}})
		if !e.that(err == nil && len(out.Responses) == 3, "BatchExecuteStatement reads: %v", err) {
			return
		}
		r := out.Responses
		e.that(showItem(r[0].Item) == showItem(item{"pk": vS("a"), "sk": vS("1"), "v": vS("x")}), "read of a = %s", showItem(r[0].Item))
		e.that(r[1].Item == nil && r[1].Error == nil, "read of a missing item: Item %s, Error %+v, want neither", showItem(r[1].Item), r[1].Error)
		e.that(r[2].Error != nil && r[2].Error.Code == types.BatchStatementErrorCodeEnumValidationError &&
			strings.Contains(aws.ToString(r[2].Error.Message), "must specify the primary key"), "read without the full key: Error %+v", r[2].Error)
	})

	s.runExpecting(t, "Refusals", composite, QuirkPartiQLBatchLimited, func(t *testing.T, tb string, e *expectation) {
		_, err := s.c.BatchExecuteStatement(s.ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'a' AND sk = '1'`)},
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': 'mixed', 'sk': '1'}`)},
		}})
		e.that(apiCode(err) == "ValidationException", "reads and writes in one batch: %v", err)
		e.that(s.get(t, tb, item{"pk": vS("mixed"), "sk": vS("1")}) == nil, "a refused batch wrote")
		var many []types.BatchStatementRequest
		for i := range 26 {
			many = append(many, types.BatchStatementRequest{Statement: aws.String(fmt.Sprintf(`INSERT INTO %s VALUE {'pk': '%d', 'sk': '1'}`, quote(tb), i))})
		}
		_, err = s.c.BatchExecuteStatement(s.ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: many})
		e.that(apiCode(err) == "ValidationException", "26 statements: %v", err)
		out, err := s.c.BatchExecuteStatement(s.ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE`)},
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'a' AND sk = '1'`)},
		}})
		e.that(err == nil && len(out.Responses) == 2 && out.Responses[0].Error != nil &&
			out.Responses[0].Error.Code == types.BatchStatementErrorCodeEnumValidationError && out.Responses[1].Error == nil,
			"a malformed statement beside a valid one: %v, want a ValidationError for the first only", err)
	})
}

// ExecuteTransaction: "The entire transaction must consist of either read
// statements or write statements ... The EXISTS function is an exception";
// "If any of the singleton INSERT, UPDATE, or DELETE operations return an
// error, the transactions are cancelled with the TransactionCanceledException".
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.transactions.html
func (s *suite) testPartiQLTransaction(t *testing.T) {
	s.runExpecting(t, "Writes", composite, QuirkPartiQLTransactionsLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("chk"), "sk": vS("1"), "ok": vBool(true)}, item{"pk": vS("upd"), "sk": vS("1"), "n": vN("1")},
			item{"pk": vS("del"), "sk": vS("1")})
		out, err := s.c.ExecuteTransaction(s.ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`EXISTS(SELECT * FROM ` + quote(tb) + ` WHERE pk = 'chk' AND sk = '1' AND ok = true)`)},
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': ?, 'sk': '1'}`), Parameters: []types.AttributeValue{vS("new")}},
			{Statement: aws.String(`UPDATE ` + quote(tb) + ` SET n = n + 1 WHERE pk = 'upd' AND sk = '1'`)},
			{Statement: aws.String(`DELETE FROM ` + quote(tb) + ` WHERE pk = 'del' AND sk = '1'`)},
		}})
		if !e.that(err == nil, "write transaction: %v", err) {
			return
		}
		e.that(len(out.Responses) == 0, "a write transaction answered %d Responses, want none", len(out.Responses))
		e.that(s.get(t, tb, item{"pk": vS("new"), "sk": vS("1")}) != nil, "INSERT not applied")
		got := s.get(t, tb, item{"pk": vS("upd"), "sk": vS("1")})
		e.that(nOf(got["n"]) == "2", "UPDATE applied as %s", showItem(got))
		e.that(s.get(t, tb, item{"pk": vS("del"), "sk": vS("1")}) == nil, "DELETE not applied")
	})

	s.runExpecting(t, "Cancel", composite, QuirkPartiQLTransactionsLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("dup"), "sk": vS("1")}, item{"pk": vS("chk"), "sk": vS("1"), "v": vS("a")})
		_, err := s.c.ExecuteTransaction(s.ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': 'new', 'sk': '1'}`)},
			{Statement: aws.String(`UPDATE ` + quote(tb) + ` SET v = 'x' WHERE pk = 'none' AND sk = '1'`)},
			{Statement: aws.String(`EXISTS(SELECT * FROM ` + quote(tb) + ` WHERE pk = 'chk' AND sk = '1' AND v = 'b')`)},
			{Statement: aws.String(`INSERT INTO ` + quote(tb) + ` VALUE {'pk': 'dup', 'sk': '1'}`)},
		}})
		want := "None,ConditionalCheckFailed,ConditionalCheckFailed,DuplicateItem"
		e.that(reasonCodes(err) == want, "failing transaction: %v, CancellationReasons %q, want %s", err, reasonCodes(err), want)
		e.that(s.get(t, tb, item{"pk": vS("new"), "sk": vS("1")}) == nil, "a cancelled transaction wrote")
	})

	s.runExpecting(t, "Reads", composite, QuirkPartiQLTransactionsLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("a"), "sk": vS("1"), "v": vS("x"), "w": vS("y")})
		out, err := s.c.ExecuteTransaction(s.ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`SELECT v FROM ` + quote(tb) + ` WHERE pk = 'a' AND sk = '1'`)},
			{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = ? AND sk = '1'`), Parameters: []types.AttributeValue{vS("b")}},
		}})
		if !e.that(err == nil && len(out.Responses) == 2, "read transaction: %v, want 2 Responses", err) {
			return
		}
		e.that(showItem(out.Responses[0].Item) == showItem(item{"v": vS("x")}), "projected read = %s", showItem(out.Responses[0].Item))
		e.that(out.Responses[1].Item == nil, "read of a missing item = %s", showItem(out.Responses[1].Item))
	})

	s.runExpecting(t, "Refusals", composite, QuirkPartiQLTransactionsLimited, func(t *testing.T, tb string, e *expectation) {
		tx := func(stmts ...string) error {
			var ps []types.ParameterizedStatement
			for _, st := range stmts {
				ps = append(ps, types.ParameterizedStatement{Statement: aws.String(st)})
			}
			_, err := s.c.ExecuteTransaction(s.ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: ps})
			return err
		}
		err := tx(`SELECT * FROM `+quote(tb)+` WHERE pk = 'a' AND sk = '1'`, `INSERT INTO `+quote(tb)+` VALUE {'pk': 'mixed', 'sk': '1'}`)
		if e.that(apiCode(err) == "ValidationException", "reads and writes in one transaction: %v", err) {
			s.wantValidation(t, err, "ExecuteTransaction API does not support both read and write operations in the same request")
		}
		e.that(s.get(t, tb, item{"pk": vS("mixed"), "sk": vS("1")}) == nil, "a refused transaction wrote")
		err = tx(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'a'`)
		if e.that(apiCode(err) == "ValidationException", "read not by key: %v", err) {
			s.wantValidation(t, err, "Select statements within ExecuteTransaction must specify the primary key in the where clause")
		}
		var many []string
		for i := range 101 {
			many = append(many, fmt.Sprintf(`INSERT INTO %s VALUE {'pk': '%d', 'sk': '1'}`, quote(tb), i))
		}
		err = tx(many...)
		e.that(apiCode(err) == "ValidationException", "101 statements: %v", err)
		e.that(s.get(t, tb, item{"pk": vS("0"), "sk": vS("1")}) == nil, "a refused 101-statement transaction wrote")
	})

	// ClientRequestToken makes the transaction idempotent: the same token
	// and statements apply once; the same token with other statements is
	// IdempotentParameterMismatchException.
	s.runExpecting(t, "Idempotency", composite, QuirkPartiQLTransactionsLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("c"), "sk": vS("1"), "n": vN("0")})
		h := fnv.New64a()
		h.Write([]byte(tb))
		token := fmt.Sprintf("token-%x", h.Sum64())
		in := func(stmt string) *dynamodb.ExecuteTransactionInput {
			return &dynamodb.ExecuteTransactionInput{ClientRequestToken: aws.String(token),
				TransactStatements: []types.ParameterizedStatement{{Statement: aws.String(stmt)}}}
		}
		inc := `UPDATE ` + quote(tb) + ` SET n = n + 1 WHERE pk = 'c' AND sk = '1'`
		for i := range 2 {
			_, err := s.c.ExecuteTransaction(s.ctx(t), in(inc))
			if !e.that(err == nil, "transaction %d with a token: %v", i+1, err) {
				return
			}
		}
		got := s.get(t, tb, item{"pk": vS("c"), "sk": vS("1")})
		e.that(nOf(got["n"]) == "1", "a repeated token applied the transaction %s times", nOf(got["n"]))
		_, err := s.c.ExecuteTransaction(s.ctx(t), in(`UPDATE `+quote(tb)+` SET n = n + 2 WHERE pk = 'c' AND sk = '1'`))
		e.that(apiCode(err) == "IdempotentParameterMismatchException", "a token reused for other statements: %v", err)
	})
}
