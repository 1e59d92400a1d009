package dyntest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// expectation collects the ways a target departs from one documented
// behaviour: a target without quirk q must depart in none, one with q in at
// least one (so a fixed reference is noticed).
type expectation struct {
	s        *suite
	t        *testing.T
	q        Quirk
	problems []string
}

// runExpecting runs body as subtest name on a new table of spec, with an
// expectation that reports its departures under quirk q when body returns.
func (s *suite) runExpecting(t *testing.T, name string, spec tableSpec, q Quirk, body func(t *testing.T, tb string, e *expectation)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		tb := s.table(t, spec)
		e := &expectation{s: s, t: t, q: q}
		defer e.done()
		body(t, tb, e)
	})
}

// that records a departure when ok is false, and returns ok.
func (e *expectation) that(ok bool, format string, args ...any) bool {
	if !ok {
		e.problems = append(e.problems, fmt.Sprintf(format, args...))
	}
	return ok
}

// done reports the departures; defer it.
func (e *expectation) done() {
	e.t.Helper()
	e.s.documented(e.t, e.q, len(e.problems) == 0, "%s", strings.Join(e.problems, "\n"))
}

// quote double-quotes a table name for a statement.
func quote(name string) string { return `"` + name + `"` }

// stmt runs one ExecuteStatement.
func (s *suite) stmt(t *testing.T, statement string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(statement)}
	if len(params) > 0 {
		in.Parameters = params
	}
	return s.c.ExecuteStatement(s.ctx(t), in)
}

// items returns the items of a successful statement, nil otherwise.
func items(out *dynamodb.ExecuteStatementOutput, err error) []item {
	if err != nil || out == nil {
		return nil
	}
	return out.Items
}

// sortedSortKeys lists the sk values of items, sorted.
func sortedSortKeys(items []item) string {
	out := sValues(items, "sk")
	sort.Strings(out)
	return join(out)
}

// reasonCodes lists the CancellationReasons codes of a cancelled
// transaction, or "" for any other outcome.
func reasonCodes(err error) string {
	var tce *types.TransactionCanceledException
	if !asErr(err, &tce) {
		return ""
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	return join(codes)
}

// testPartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
func (s *suite) testPartiQL(t *testing.T) {
	if s.quirks.Has(QuirkNoPartiQL) {
		t.Run("Refused", func(t *testing.T) {
			tb := s.table(t, composite)
			_, err := s.stmt(t, `SELECT * FROM `+quote(tb))
			s.documented(t, QuirkNoPartiQL, err == nil, "")
		})
		return
	}
	t.Run("Statement", s.testPartiQLStatement)
	t.Run("Batch", s.testPartiQLBatch)
	t.Run("Transaction", s.testPartiQLTransaction)
}

func (s *suite) testPartiQLStatement(t *testing.T) {
	// "INSERT INTO table VALUE item": strings in single quotes, numbers,
	// lists [..], maps {..}, sets <<..>>, booleans and NULL; parameters ?.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
	s.runExpecting(t, "InsertAndSelect", composite, QuirkPartiQLLiterals, func(t *testing.T, tb string, e *expectation) {
		out, err := s.stmt(t, `INSERT INTO `+quote(tb)+` VALUE {'pk': 'p', 'sk': ?, 's': 'it''s', 'n': 1.50, 'l': [1, 'two', null], `+
			`'m': {'k': {'z': true}}, 'ss': <<'a', 'b'>>, 'ns': <<1, 2>>, 'b': false}`, vS("1"))
		if !e.that(err == nil && len(out.Items) == 0, "INSERT: %v, want success and an empty Items list", err) {
			return
		}
		want := item{"pk": vS("p"), "sk": vS("1"), "s": vS("it's"), "n": vN("1.5"), "l": vL(vN("1"), vS("two"), vNull()),
			"m": vM(item{"k": vM(item{"z": vBool(true)})}), "ss": vSS("a", "b"), "ns": vNS("1", "2"), "b": vBool(false)}
		got := s.get(t, tb, item{"pk": vS("p"), "sk": vS("1")})
		e.that(showItem(got) == showItem(want), "inserted item %s, want %s", showItem(got), showItem(want))
		sel := items(s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE pk = ? AND sk = '1'`, vS("p")))
		e.that(showItems(sel) == showItems([]item{want}), "SELECT * = %s", showItems(sel))
	})

	// "If the DynamoDB table already has an item with the same primary key
	// as the primary key of the item being inserted, DuplicateItemException
	// is returned."
	s.runExpecting(t, "InsertDuplicate", composite, QuirkPartiQLInsertOverwrites, func(t *testing.T, tb string, e *expectation) {
		old := item{"pk": vS("p"), "sk": vS("1"), "v": vS("old")}
		s.put(t, tb, old)
		_, err := s.stmt(t, `INSERT INTO `+quote(tb)+` VALUE {'pk': 'p', 'sk': '1', 'v': 'new'}`)
		if e.that(apiCode(err) == "DuplicateItemException", "INSERT of an existing key: %v, want DuplicateItemException", err) {
			s.wantAPIError(t, err, "DuplicateItemException", "Duplicate primary key exists in table")
		}
		got := s.get(t, tb, item{"pk": vS("p"), "sk": vS("1")})
		e.that(showItem(got) == showItem(old), "refused INSERT changed the item to %s", showItem(got))
	})

	// "expression: A projection formed from the * wildcard or a projection
	// list of one or more attribute names or document paths"; a path comes
	// back under its last name (m.k.z as z, l[1] as l[1]).
	s.runExpecting(t, "Projection", composite, QuirkPartiQLPathProjection, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("p"), "sk": vS("1"), "a": vS("x"), "m": vM(item{"k": vM(item{"z": vN("9")})}),
			"l": vL(vS("zero"), vS("one")), "other": vS("o")})
		out, err := s.stmt(t, `SELECT a, m.k.z, l[1], "nothere" FROM `+quote(tb)+` WHERE pk = 'p'`)
		want := []item{{"a": vS("x"), "z": vN("9"), "l[1]": vS("one")}}
		e.that(err == nil && showItems(out.Items) == showItems(want), "projection = %v %s, want %s", err, showItems(items(out, err)), showItems(want))
	})

	// WHERE with =, <>, <, <=, >, >=, BETWEEN, IN, begins_with, contains,
	// attribute_exists, attribute_not_exists, size, IS [NOT] MISSING, AND,
	// OR and NOT; a WHERE without the partition key reads the whole table.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-operators.html
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.html
	s.runExpecting(t, "Where", composite, QuirkPartiQLWhereLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb,
			item{"pk": vS("p"), "sk": vS("1"), "n": vN("1"), "s": vS("apple"), "tags": vSS("x", "y")},
			item{"pk": vS("p"), "sk": vS("2"), "n": vN("2"), "s": vS("banana")},
			item{"pk": vS("p"), "sk": vS("3"), "n": vN("3"), "s": vS("avocado"), "tags": vSS("z")},
			item{"pk": vS("q"), "sk": vS("4"), "n": vN("4")},
		)
		for _, c := range []struct{ where, want string }{
			{`pk = 'p'`, "1,2,3"},
			{`n <> 2`, "1,3,4"},
			{`n < 2 OR n >= 4`, "1,4"},
			{`n <= 2 AND n > 1`, "2"},
			{`n BETWEEN 2 AND 3`, "2,3"},
			{`n IN [1, 3]`, "1,3"},
			{`pk IN ['q']`, "4"},
			{`begins_with(s, 'a')`, "1,3"},
			{`contains(tags, 'z')`, "3"},
			{`contains(s, 'nan')`, "2"},
			{`attribute_exists(tags)`, "1,3"},
			{`attribute_not_exists(tags)`, "2,4"},
			{`tags IS MISSING`, "2,4"},
			{`tags IS NOT MISSING`, "1,3"},
			{`NOT (n = 1 OR n = 2)`, "3,4"},
			{`size(s) > 5`, "2,3"},
			{`pk = 'p' AND sk > '1' AND s <> 'banana'`, "3"},
			{`n = ?`, "2"},
		} {
			var params []types.AttributeValue
			if strings.Contains(c.where, "?") {
				params = []types.AttributeValue{vN("2")}
			}
			out, err := s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE `+c.where, params...)
			got := sortedSortKeys(items(out, err))
			e.that(err == nil && got == c.want, "WHERE %s: %v, sort keys %q, want %q", c.where, err, got, c.want)
		}
	})

	// A SELECT with an equality on the partition key is a Query: the items
	// of the partition in sort key order; ORDER BY the sort key DESC
	// reverses it; ORDER BY needs a WHERE on the key.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
	s.runExpecting(t, "OrderBy", composite, QuirkPartiQLNoOrderBy, func(t *testing.T, tb string, e *expectation) {
		for _, sk := range []string{"2", "3", "1"} {
			s.put(t, tb, item{"pk": vS("p"), "sk": vS(sk)})
		}
		s.put(t, tb, item{"pk": vS("other"), "sk": vS("0")})
		out, err := s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE pk = 'p'`)
		e.that(err == nil && sortKeys(out.Items) == "1,2,3", "partition read: %v, order %s, want 1,2,3", err, sortKeys(items(out, err)))
		out, err = s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE pk = 'p' ORDER BY sk DESC`)
		e.that(err == nil && sortKeys(out.Items) == "3,2,1", "ORDER BY sk DESC: %v, order %s, want 3,2,1", err, sortKeys(items(out, err)))
		_, err = s.stmt(t, `SELECT * FROM `+quote(tb)+` ORDER BY sk`)
		e.that(apiCode(err) == "ValidationException", "ORDER BY without WHERE: %v, want ValidationException", err)
	})

	// "Limit: The maximum number of items to evaluate (not necessarily the
	// number of matching items)"; "If NextToken is present, you need to
	// paginate the result set and include NextToken."
	s.runExpecting(t, "Paging", composite, QuirkPartiQLNoPaging, func(t *testing.T, tb string, e *expectation) {
		for i := range 5 {
			s.put(t, tb, item{"pk": vS("p"), "sk": vS(fmt.Sprint(i)), "v": vN(fmt.Sprint(i))})
		}
		in := dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'p'`),
			Limit: aws.Int32(2), ConsistentRead: aws.Bool(true)}
		var all []item
		pages := 0
		for ; pages < 10; pages++ {
			q := in
			out, err := s.c.ExecuteStatement(s.ctx(t), &q)
			if !e.that(err == nil, "page %d: %v", pages+1, err) {
				return
			}
			all = append(all, out.Items...)
			if out.NextToken == nil {
				pages++
				break
			}
			in.NextToken = out.NextToken
		}
		e.that(pages == 3 && sortKeys(all) == "0,1,2,3,4", "Limit 2 over 5 items: %d pages %s, want 3 pages 0,1,2,3,4", pages, sortKeys(all))
		out, err := s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'p' AND v >= 3`), Limit: aws.Int32(2)})
		e.that(err == nil && len(out.Items) == 0 && out.NextToken != nil,
			"Limit 2, no match among the first 2 items: %v %d items, want none and a NextToken", err, len(items(out, err)))
		if err == nil && out.NextToken != nil {
			_, err = s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
				Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'p'`), NextToken: out.NextToken})
			e.that(apiCode(err) == "ValidationException", "a NextToken of another statement: %v", err)
		}
		_, err = s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM ` + quote(tb)), Limit: aws.Int32(0)})
		e.that(apiCode(err) == "ValidationException", "Limit 0: %v, want ValidationException", err)
	})

	// FROM "table"."index" reads a secondary index; strongly consistent
	// reads are refused on a global one.
	s.runExpecting(t, "Index", withGSI, QuirkPartiQLIndexLimited, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("p1"), "sk": vS("1"), "gpk": vS("g"), "gsk": vS("b")},
			item{"pk": vS("p2"), "sk": vS("1"), "gpk": vS("g"), "gsk": vS("a")},
			item{"pk": vS("p3"), "sk": vS("1")})
		out, err := s.stmt(t, `SELECT pk FROM `+quote(tb)+`."gsi1" WHERE gpk = 'g'`)
		want := []item{{"pk": vS("p2")}, {"pk": vS("p1")}}
		e.that(err == nil && showItems(out.Items) == showItems(want), "index read: %v %s, want %s (index sort key order)",
			err, showItems(items(out, err)), showItems(want))
		_, err = s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM ` + quote(tb) + `."gsi1" WHERE gpk = 'g'`), ConsistentRead: aws.Bool(true)})
		e.that(apiCode(err) == "ValidationException", "ConsistentRead on a GSI: %v, want ValidationException", err)
	})

	// UPDATE: SET (values, arithmetic, list_append, set_add, set_delete,
	// nested paths), REMOVE.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
	s.runExpecting(t, "Update", composite, QuirkPartiQLUpdateLimited, func(t *testing.T, tb string, e *expectation) {
		key := item{"pk": vS("p"), "sk": vS("1")}
		s.put(t, tb, item{"pk": vS("p"), "sk": vS("1"), "n": vN("5"), "l": vL(vN("1")), "ss": vSS("a", "b"), "gone": vS("x"),
			"m": vM(item{"k": vS("v")})})
		out, err := s.stmt(t, `UPDATE `+quote(tb)+` SET n = n + 1 SET l = list_append(l, [2]) SET ss = set_add(ss, <<'c'>>) `+
			`SET m.k = 'w', added = ? REMOVE gone WHERE pk = 'p' AND sk = '1'`, vS("new"))
		if !e.that(err == nil && len(out.Items) == 0, "UPDATE: %v, want success and no Items", err) {
			return
		}
		want := item{"pk": vS("p"), "sk": vS("1"), "n": vN("6"), "l": vL(vN("1"), vN("2")), "ss": vSS("a", "b", "c"),
			"m": vM(item{"k": vS("w")}), "added": vS("new")}
		got := s.get(t, tb, key)
		e.that(showItem(got) == showItem(want), "updated item %s, want %s", showItem(got), showItem(want))
		_, err = s.stmt(t, `UPDATE `+quote(tb)+` SET ss = set_delete(ss, <<'a', 'b', 'c'>>) WHERE pk = 'p' AND sk = '1'`)
		_, left := s.get(t, tb, key)["ss"]
		e.that(err == nil && !left, "set_delete of every member: %v, attribute left: %v", err, left)
	})

	// RETURNING ALL OLD *, MODIFIED OLD *, ALL NEW *, MODIFIED NEW *.
	s.runExpecting(t, "UpdateReturning", composite, QuirkPartiQLNoReturning, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("p"), "sk": vS("1"), "a": vN("1"), "b": vS("keep")})
		for _, c := range []struct {
			ret  string
			want item
		}{
			{"ALL OLD", item{"pk": vS("p"), "sk": vS("1"), "a": vN("1"), "b": vS("keep")}},
			{"MODIFIED OLD", item{"a": vN("2")}},
			{"ALL NEW", item{"pk": vS("p"), "sk": vS("1"), "a": vN("4"), "b": vS("keep")}},
			{"MODIFIED NEW", item{"a": vN("5")}},
		} {
			out, err := s.stmt(t, `UPDATE `+quote(tb)+` SET a = a + 1 WHERE pk = 'p' AND sk = '1' RETURNING `+c.ret+` *`)
			got := items(out, err)
			e.that(err == nil && showItems(got) == showItems([]item{c.want}), "RETURNING %s *: %v %s, want %s",
				c.ret, err, showItems(got), showItem(c.want))
		}
	})

	// "If the WHERE clause of the UPDATE statement does not evaluate to true
	// for any item in the DynamoDB table, ConditionalCheckFailedException is
	// returned." A condition beside the key works the same way, and
	// ReturnValuesOnConditionCheckFailure returns the item. UPDATE must name
	// the whole key.
	s.runExpecting(t, "UpdateConditions", composite, QuirkPartiQLUpdateLimited, func(t *testing.T, tb string, e *expectation) {
		old := item{"pk": vS("p"), "sk": vS("1"), "v": vN("1")}
		s.put(t, tb, old)
		_, err := s.stmt(t, `UPDATE `+quote(tb)+` SET v = 2 WHERE pk = 'none' AND sk = '1'`)
		e.that(apiCode(err) == "ConditionalCheckFailedException", "UPDATE of a missing item: %v", err)
		got := s.get(t, tb, item{"pk": vS("none"), "sk": vS("1")})
		e.that(got == nil, "UPDATE of a missing item created %s", showItem(got))
		_, err = s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement:                           aws.String(`UPDATE ` + quote(tb) + ` SET v = 3 WHERE pk = 'p' AND sk = '1' AND v > 5`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var ccf *types.ConditionalCheckFailedException
		if e.that(asErr(err, &ccf), "false condition: %v, want ConditionalCheckFailedException", err) {
			e.that(showItem(ccf.Item) == showItem(old), "ALL_OLD item %s, want %s", showItem(ccf.Item), showItem(old))
		}
		_, err = s.stmt(t, `UPDATE `+quote(tb)+` SET v = 4 WHERE pk = 'p'`)
		if e.that(apiCode(err) == "ValidationException", "UPDATE without the sort key: %v", err) {
			s.wantValidation(t, err, "Where clause does not contain a mandatory equality on all key attributes")
		}
		wantItem(t, "item after refused updates", s.get(t, tb, item{"pk": vS("p"), "sk": vS("1")}), old)
	})

	// "If the DynamoDB table does not have any item with the same primary
	// key ..., SUCCESS is returned with 0 items deleted. If the table has an
	// item with same primary key, but the condition in the WHERE clause ...
	// evaluates to false, ConditionalCheckFailedException is returned."
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
	s.runExpecting(t, "Delete", composite, QuirkPartiQLDeleteLimited, func(t *testing.T, tb string, e *expectation) {
		old := item{"pk": vS("p"), "sk": vS("1"), "v": vN("1")}
		s.put(t, tb, old, item{"pk": vS("p"), "sk": vS("2")})
		_, err := s.stmt(t, `DELETE FROM `+quote(tb)+` WHERE pk = 'p' AND sk = '1' AND v = 2`)
		e.that(apiCode(err) == "ConditionalCheckFailedException", "DELETE with a false condition: %v", err)
		out, err := s.stmt(t, `DELETE FROM `+quote(tb)+` WHERE pk = 'p' AND sk = '1' RETURNING ALL OLD *`)
		e.that(err == nil && showItems(out.Items) == showItems([]item{old}), "DELETE RETURNING ALL OLD *: %v %s", err, showItems(items(out, err)))
		e.that(s.get(t, tb, item{"pk": vS("p"), "sk": vS("1")}) == nil, "deleted item remains")
		out, err = s.stmt(t, `DELETE FROM `+quote(tb)+` WHERE pk = 'none' AND sk = '1'`)
		e.that(err == nil && len(out.Items) == 0, "DELETE of a missing item: %v", err)
		_, err = s.stmt(t, `DELETE FROM `+quote(tb)+` WHERE pk = 'p'`)
		e.that(apiCode(err) == "ValidationException", "DELETE without the sort key: %v, want ValidationException", err)
		e.that(s.get(t, tb, item{"pk": vS("p"), "sk": vS("2")}) != nil, "DELETE without the full key deleted p/2")
	})

	// Refusals: a statement that is not well formed, an unknown table,
	// EXISTS outside a transaction, too few parameters.
	s.runExpecting(t, "Refusals", composite, QuirkPartiQLRefusalsMissing, func(t *testing.T, tb string, e *expectation) {
		_, err := s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE`)
		if e.that(apiCode(err) == "ValidationException", "syntax error: %v", err) {
			s.wantValidation(t, err, "Statement wasn't well formed, can't be processed")
		}
		_, err = s.stmt(t, `SELECT * FROM "`+tb+`-none" WHERE pk = 'a'`)
		e.that(apiCode(err) == "ResourceNotFoundException", "unknown table: %v", err)
		_, err = s.stmt(t, `EXISTS(SELECT * FROM `+quote(tb)+` WHERE pk = 'a' AND sk = '1' AND v = 'x')`)
		e.that(apiCode(err) == "ValidationException", "EXISTS outside a transaction: %v", err)
		_, err = s.stmt(t, `SELECT * FROM `+quote(tb)+` WHERE pk = ? AND sk = ?`, vS("a"))
		if e.that(apiCode(err) == "ValidationException", "too few parameters: %v", err) {
			s.wantValidation(t, err, "Number of parameters in request and statement don't match")
		}
	})

	// ReturnConsumedCapacity applies to statements as to the item API.
	s.runExpecting(t, "ConsumedCapacity", composite, QuirkPartiQLNoCapacity, func(t *testing.T, tb string, e *expectation) {
		s.put(t, tb, item{"pk": vS("p"), "sk": vS("1")})
		out, err := s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM ` + quote(tb) + ` WHERE pk = 'p'`), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		must(t, err, "SELECT with ReturnConsumedCapacity")
		cc := out.ConsumedCapacity
		e.that(cc != nil && aws.ToString(cc.TableName) == tb && aws.ToFloat64(cc.CapacityUnits) == 0.5,
			"SELECT capacity %+v, want 0.5 units on %s", cc, tb)
		out, err = s.c.ExecuteStatement(s.ctx(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`DELETE FROM ` + quote(tb) + ` WHERE pk = 'p' AND sk = '1'`), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		e.that(err == nil && out.ConsumedCapacity != nil && aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) == 1,
			"DELETE capacity: %v, want 1 unit", err)
	})
}
