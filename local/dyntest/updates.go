package dyntest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// updItem is the starting item of every update case.
func updItem() item {
	return item{
		"pk": vS("u"),
		"n":  vN("5"),
		"s":  vS("str"),
		"l":  vL(vN("1"), vN("2"), vN("3")),
		"m":  vM(item{"a": vN("1"), "b": vM(item{"c": vN("2")})}),
		"ss": vSS("a", "b", "c"),
		"ns": vNS("1", "2"),
		"bs": vBS([]byte{1}),
	}
}

// with returns a copy of the start item with changes applied (nil removes).
func with(changes item) item {
	it := updItem()
	for k, v := range changes {
		if v == nil {
			delete(it, k)
		} else {
			it[k] = v
		}
	}
	return it
}

type updCase struct {
	name  string
	expr  string
	vals  item
	names map[string]string
	want  item
	quirk Quirk
}

// updCases follow
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
// Every operand is evaluated against the item as it was before the update.
var updCases = []updCase{
	{name: "SetMultiple", expr: "SET x = :v, y = :w", vals: item{":v": vS("X"), ":w": vBool(false)},
		want: with(item{"x": vS("X"), "y": vBool(false)})},
	{name: "PlusMinusSeeOldValues", expr: "SET n = n + :d, n2 = n - :d", vals: item{":d": vN("2")},
		want: with(item{"n": vN("7"), "n2": vN("3")})},
	{name: "ValueMinusPath", expr: "SET n = :ten - n", vals: item{":ten": vN("10")}, want: with(item{"n": vN("5")})},
	{name: "IfNotExistsMissing", expr: "SET c = if_not_exists(c, :z)", vals: item{":z": vN("0")},
		want: with(item{"c": vN("0")})},
	{name: "IfNotExistsPresent", expr: "SET n = if_not_exists(n, :z)", vals: item{":z": vN("0")}, want: with(nil)},
	{name: "IfNotExistsPlus", expr: "SET cnt = if_not_exists(cnt, :z) + :one", vals: item{":z": vN("0"), ":one": vN("1")},
		want: with(item{"cnt": vN("1")})},
	{name: "ListAppendEnd", expr: "SET l = list_append(l, :more)", vals: item{":more": vL(vN("4"))},
		want: with(item{"l": vL(vN("1"), vN("2"), vN("3"), vN("4"))})},
	{name: "ListAppendFront", expr: "SET l = list_append(:more, l)", vals: item{":more": vL(vN("4"))},
		want: with(item{"l": vL(vN("4"), vN("1"), vN("2"), vN("3"))})},
	{name: "ListAppendIfNotExists", expr: "SET nl = list_append(if_not_exists(nl, :empty), :more)",
		vals: item{":empty": vL(), ":more": vL(vS("x"))}, want: with(item{"nl": vL(vS("x"))})},
	{name: "SetNestedMap", expr: "SET m.b.d = :v", vals: item{":v": vS("D")},
		want: with(item{"m": vM(item{"a": vN("1"), "b": vM(item{"c": vN("2"), "d": vS("D")})})})},
	{name: "SetListIndex", expr: "SET l[1] = :v", vals: item{":v": vS("two")},
		want: with(item{"l": vL(vN("1"), vS("two"), vN("3"))})},
	// "If the element doesn't already exist, SET appends the new element at
	// the end of the list."
	{name: "SetListIndexPastEnd", expr: "SET l[10] = :v", vals: item{":v": vS("end")},
		want: with(item{"l": vL(vN("1"), vN("2"), vN("3"), vS("end"))}), quirk: QuirkSetListIndexPastEnd},
	{name: "SetCopyPath", expr: "SET cp = m.b", want: with(item{"cp": vM(item{"c": vN("2")})})},
	{name: "Remove", expr: "REMOVE s, m.a", want: with(item{"s": nil, "m": vM(item{"b": vM(item{"c": vN("2")})})})},
	{name: "RemoveMissingIsNoop", expr: "REMOVE nothere", want: with(nil)},
	// "Removing elements from a list ... the remaining elements are shifted."
	{name: "RemoveListIndexes", expr: "REMOVE l[0], l[2]", want: with(item{"l": vL(vN("2"))}), quirk: QuirkRemoveListIndexesSequential},
	{name: "AddNumber", expr: "ADD n :d", vals: item{":d": vN("-1.5")}, want: with(item{"n": vN("3.5")})},
	{name: "AddCreatesNumber", expr: "ADD cnt :d", vals: item{":d": vN("3")}, want: with(item{"cnt": vN("3")})},
	{name: "AddStringSet", expr: "ADD ss :v", vals: item{":v": vSS("c", "d")}, want: with(item{"ss": vSS("a", "b", "c", "d")})},
	{name: "AddCreatesSet", expr: "ADD ns2 :v", vals: item{":v": vNS("7")}, want: with(item{"ns2": vNS("7")})},
	{name: "DeleteFromSet", expr: "DELETE ss :v", vals: item{":v": vSS("a", "zz")}, want: with(item{"ss": vSS("b", "c")})},
	{name: "DeleteNumberSet", expr: "DELETE ns :v", vals: item{":v": vNS("2")}, want: with(item{"ns": vNS("1")})},
	{name: "DeleteLastElementRemovesAttr", expr: "DELETE bs :v", vals: item{":v": vBS([]byte{1})}, want: with(item{"bs": nil})},
	{name: "AllClauses", expr: "SET x = :v REMOVE s ADD n :one DELETE ss :a",
		vals: item{":v": vS("X"), ":one": vN("1"), ":a": vSS("a")},
		want: with(item{"x": vS("X"), "s": nil, "n": vN("6"), "ss": vSS("b", "c")})},
	{name: "ClausesAnyOrder", expr: "REMOVE s SET x = :v", vals: item{":v": vS("X")},
		want: with(item{"x": vS("X"), "s": nil})},
	{name: "NamePlaceholderReservedWord", expr: "SET #st = :v", vals: item{":v": vS("on")},
		names: map[string]string{"#st": "status"}, want: with(item{"status": vS("on")})},
	{name: "NamePlaceholderWithDot", expr: "SET #d = :v", vals: item{":v": vS("dot")},
		names: map[string]string{"#d": "a.b"}, want: with(item{"a.b": vS("dot")})},
}

// testUpdateExpressions applies each case to a fresh copy of updItem and
// compares both the ALL_NEW response and a consistent read.
func (s *suite) testUpdateExpressions(t *testing.T) {
	tb := s.table(t, hashOnly)
	for _, c := range updCases {
		t.Run(c.name, func(t *testing.T) {
			s.put(t, tb, updItem())
			in := &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("u")},
				UpdateExpression: aws.String(c.expr), ReturnValues: types.ReturnValueAllNew}
			if len(c.vals) > 0 {
				in.ExpressionAttributeValues = c.vals
			}
			if len(c.names) > 0 {
				in.ExpressionAttributeNames = c.names
			}
			out, err := s.c.UpdateItem(s.ctx(t), in)
			if c.quirk != "" {
				ok := err == nil && showItem(out.Attributes) == showItem(c.want)
				s.documented(t, c.quirk, ok, "%s: got %v %s, want %s", c.expr, err, showItemOf(out), showItem(c.want))
				return
			}
			must(t, err, c.expr)
			wantItem(t, c.expr+" (ALL_NEW)", out.Attributes, c.want)
			wantItem(t, c.expr+" (stored)", s.get(t, tb, item{"pk": vS("u")}), c.want)
		})
	}
}

func showItemOf(out *dynamodb.UpdateItemOutput) string {
	if out == nil {
		return "-"
	}
	return showItem(out.Attributes)
}
