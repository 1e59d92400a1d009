package dyntest

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// condCase is one condition evaluated against condItem.
type condCase struct {
	name  string
	expr  string
	vals  item
	names map[string]string
	want  bool
	quirk Quirk
}

// condItem exercises every type, nesting and list indexes.
func condItem() item {
	return item{
		"pk":  vS("c"),
		"n":   vN("5"),
		"s":   vS("hello"),
		"ss":  vSS("a", "b"),
		"ns":  vNS("1", "2", "3"),
		"l":   vL(vN("1"), vS("x")),
		"m":   vM(item{"k": vS("v"), "deep": vM(item{"x": vN("1")})}),
		"b":   vB([]byte{1, 2, 3}),
		"f":   vBool(true),
		"nul": vNull(),
	}
}

// condCases follow the comparison operators and functions of
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
// (precedence: NOT, then AND, then OR; comparisons of different types are
// false, never an error).
var condCases = []condCase{
	{"Eq", "n = :v", item{":v": vN("5")}, nil, true, ""},
	{"EqNumericValue", "n = :v", item{":v": vN("5.0")}, nil, true, ""},
	{"Ne", "n <> :v", item{":v": vN("5")}, nil, false, ""},
	{"Lt", "n < :v", item{":v": vN("6")}, nil, true, ""},
	{"Le", "n <= :v", item{":v": vN("5")}, nil, true, ""},
	{"Gt", "n > :v", item{":v": vN("4")}, nil, true, ""},
	{"GeFalse", "n >= :v", item{":v": vN("6")}, nil, false, ""},
	{"NumberNotLexical", "n < :v", item{":v": vN("10")}, nil, true, ""},
	{"StringLt", "s < :v", item{":v": vS("help")}, nil, true, ""},
	{"TypeMismatchEq", "n = :v", item{":v": vS("5")}, nil, false, ""},
	{"TypeMismatchLt", "n < :v", item{":v": vS("9")}, nil, false, QuirkConditionServerError},
	{"TypeMismatchNe", "n <> :v", item{":v": vS("5")}, nil, true, ""},
	{"Between", "n BETWEEN :a AND :b", item{":a": vN("1"), ":b": vN("5")}, nil, true, ""},
	{"BetweenOutside", "n BETWEEN :a AND :b", item{":a": vN("6"), ":b": vN("9")}, nil, false, ""},
	{"In", "s IN (:a, :b)", item{":a": vS("x"), ":b": vS("hello")}, nil, true, ""},
	{"InNone", "n IN (:a, :b)", item{":a": vN("4"), ":b": vN("6")}, nil, false, ""},
	{"Exists", "attribute_exists(m.k)", nil, nil, true, ""},
	{"ExistsMissing", "attribute_exists(m.zz)", nil, nil, false, ""},
	{"NotExists", "attribute_not_exists(zz)", nil, nil, true, ""},
	{"ExistsListIndex", "attribute_exists(l[1])", nil, nil, true, ""},
	{"ExistsListIndexPastEnd", "attribute_exists(l[2])", nil, nil, false, ""},
	{"TypeN", "attribute_type(n, :t)", item{":t": vS("N")}, nil, true, ""},
	{"TypeSS", "attribute_type(ss, :t)", item{":t": vS("SS")}, nil, true, ""},
	{"TypeNULL", "attribute_type(nul, :t)", item{":t": vS("NULL")}, nil, true, ""},
	{"TypeWrong", "attribute_type(l, :t)", item{":t": vS("M")}, nil, false, ""},
	{"BeginsWith", "begins_with(s, :p)", item{":p": vS("he")}, nil, true, ""},
	{"BeginsWithNot", "begins_with(s, :p)", item{":p": vS("lo")}, nil, false, ""},
	{"ContainsSubstring", "contains(s, :v)", item{":v": vS("ell")}, nil, true, ""},
	{"ContainsSetMember", "contains(ss, :v)", item{":v": vS("a")}, nil, true, ""},
	{"ContainsSetMissing", "contains(ss, :v)", item{":v": vS("z")}, nil, false, ""},
	{"ContainsNumberSet", "contains(ns, :v)", item{":v": vN("2")}, nil, true, ""},
	{"ContainsListElement", "contains(l, :v)", item{":v": vS("x")}, nil, true, ""},
	{"SizeString", "size(s) = :v", item{":v": vN("5")}, nil, true, ""},
	{"SizeSet", "size(ss) = :v", item{":v": vN("2")}, nil, true, ""},
	{"SizeList", "size(l) = :v", item{":v": vN("2")}, nil, true, ""},
	{"SizeMap", "size(m) = :v", item{":v": vN("2")}, nil, true, ""},
	{"SizeBinary", "size(b) = :v", item{":v": vN("3")}, nil, true, ""},
	{"SizeNested", "size(m.k) < :v", item{":v": vN("2")}, nil, true, ""},
	{"ListIndex0", "l[0] = :v", item{":v": vN("1")}, nil, true, ""},
	{"ListIndex1", "l[1] = :v", item{":v": vS("x")}, nil, true, ""},
	{"ListIndexPastEnd", "l[5] = :v", item{":v": vN("1")}, nil, false, ""},
	{"NestedPath", "m.deep.x = :v", item{":v": vN("1")}, nil, true, ""},
	{"NestedNames", "#m.#d.x = :v", item{":v": vN("1")}, map[string]string{"#m": "m", "#d": "deep"}, true, ""},
	{"DottedNameIsOneAttribute", "attribute_exists(#dotted)", nil, map[string]string{"#dotted": "m.k"}, false, ""},
	{"Not", "NOT n = :v", item{":v": vN("5")}, nil, false, ""},
	{"And", "n = :a AND s = :b", item{":a": vN("5"), ":b": vS("hello")}, nil, true, ""},
	{"Or", "n = :a OR s = :b", item{":a": vN("4"), ":b": vS("hello")}, nil, true, ""},
	{"AndBindsTighterThanOr", "n = :a OR n = :b AND s = :c", item{":a": vN("5"), ":b": vN("0"), ":c": vS("no")}, nil, true, ""},
	{"Parentheses", "(n = :a OR n = :b) AND s = :c", item{":a": vN("5"), ":b": vN("0"), ":c": vS("no")}, nil, false, ""},
	{"NotBindsTighterThanAnd", "NOT n = :a AND s = :b", item{":a": vN("5"), ":b": vS("no")}, nil, false, ""},
	{"Bool", "f = :t", item{":t": vBool(true)}, nil, true, ""},
	{"Binary", "b = :b", item{":b": vB([]byte{1, 2, 3})}, nil, true, ""},
	{"BinaryLt", "b < :b", item{":b": vB([]byte{1, 2, 4})}, nil, true, ""},
	{"SetEqualityUnordered", "ss = :v", item{":v": vSS("b", "a")}, nil, true, ""},
	{"MapEquality", "m.deep = :v", item{":v": vM(item{"x": vN("1")})}, nil, true, QuirkDocumentEqualityUnsupported},
	{"ListEquality", "l = :v", item{":v": vL(vN("1"), vS("x"))}, nil, true, QuirkDocumentEqualityUnsupported},
	{"PathToPath", "n > size(s)", nil, nil, false, ""},
	{"MissingAttributeEq", "zz = :v", item{":v": vN("1")}, nil, false, ""},
	{"SizeOfMissingAttribute", "size(zz) >= :v", item{":v": vN("0")}, nil, false, QuirkConditionServerError},
	{"InMixedTypes", "n IN (:a, :b)", item{":a": vS("5"), ":b": vN("5")}, nil, true, ""},
	{"BetweenStrings", "s BETWEEN :a AND :b", item{":a": vS("h"), ":b": vS("i")}, nil, true, ""},
	{"CompareTwoAttributes", "n = size(s)", nil, nil, true, ""},
}

// testConditions evaluates each condition as a PutItem of the unchanged
// item: success means true, ConditionalCheckFailedException false.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
func (s *suite) testConditions(t *testing.T) {
	tb := s.table(t, hashOnly)
	it := condItem()
	s.put(t, tb, it)
	for _, c := range condCases {
		t.Run(c.name, func(t *testing.T) {
			in := &dynamodb.PutItemInput{TableName: aws.String(tb), Item: it, ConditionExpression: aws.String(c.expr)}
			if len(c.vals) > 0 {
				in.ExpressionAttributeValues = c.vals
			}
			if len(c.names) > 0 {
				in.ExpressionAttributeNames = c.names
			}
			_, err := s.c.PutItem(s.ctx(t), in)
			if c.quirk != "" && s.quirks.Has(c.quirk) {
				var ccf *types.ConditionalCheckFailedException
				s.documented(t, c.quirk, (err == nil) == c.want && (err == nil || errors.As(err, &ccf)), "")
				return
			}
			var ccf *types.ConditionalCheckFailedException
			switch {
			case err == nil && !c.want:
				t.Errorf("%s: evaluated true, want false", c.expr)
			case errors.As(err, &ccf) && c.want:
				t.Errorf("%s: evaluated false, want true", c.expr)
			case err != nil && !errors.As(err, &ccf):
				t.Errorf("%s: %v", c.expr, err)
			}
		})
	}
}
