package dyntest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exprErrCase is one invalid request; it must be refused with a
// ValidationException whose message contains frag, leaving the item alone.
type exprErrCase struct {
	name   string
	update string // UpdateExpression ("" for none)
	cond   string // ConditionExpression ("" for none)
	vals   item
	names  map[string]string
	frag   string
	quirk  Quirk
}

// exprErrCases: messages as DynamoDB returns them. Reserved words:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ReservedWords.html
// placeholders ("every ... must be used"):
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeValues.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html
// update errors: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
var exprErrCases = []exprErrCase{
	{name: "SyntaxError", update: "SET x =", frag: "Syntax error"},
	{name: "SyntaxErrorCondition", update: "SET x = :v", cond: "n = = :v", vals: item{":v": vN("1")}, frag: "Syntax error", quirk: QuirkServerErrorOnBadInput},
	{name: "UnknownFunction", update: "SET x = nope(:v)", vals: item{":v": vN("1")}, frag: "Invalid function name"},
	{name: "ReservedWordUpdate", update: "SET status = :v", vals: item{":v": vN("1")}, frag: "reserved keyword"},
	{name: "ReservedWordCondition", update: "SET x = :v", cond: "attribute_exists(name)", vals: item{":v": vN("1")}, frag: "reserved keyword"},
	{name: "UnusedValue", update: "SET x = :v", vals: item{":v": vN("1"), ":unused": vN("2")},
		frag: "Value provided in ExpressionAttributeValues unused in expressions"},
	{name: "UnusedName", update: "SET x = :v", vals: item{":v": vN("1")}, names: map[string]string{"#unused": "y"},
		frag: "Value provided in ExpressionAttributeNames unused in expressions"},
	{name: "UndefinedValue", update: "SET x = :missing", frag: "An expression attribute value used in expression is not defined"},
	{name: "UndefinedName", update: "SET #missing = :v", vals: item{":v": vN("1")},
		frag: "An expression attribute name used in the document path is not defined", quirk: QuirkServerErrorOnBadInput},
	{name: "EmptyValuesMap", update: "SET x = n", vals: item{}, frag: "ExpressionAttributeValues must not be empty"},
	{name: "MissingOperandAttribute", update: "SET q = nothere + :one", vals: item{":one": vN("1")},
		frag: "The provided expression refers to an attribute that does not exist in the item"},
	{name: "ArithmeticOnString", update: "SET n = s + :one", vals: item{":one": vN("1")},
		frag: "An operand in the update expression has an incorrect data type"},
	{name: "AddToString", update: "ADD s :one", vals: item{":one": vN("1")},
		frag: "An operand in the update expression has an incorrect data type"},
	{name: "DeleteWrongSetType", update: "DELETE ss :v", vals: item{":v": vNS("1")},
		frag: "An operand in the update expression has an incorrect data type"},
	{name: "ListAppendNotList", update: "SET l = list_append(l, :v)", vals: item{":v": vS("x")},
		frag: "Incorrect operand type for operator or function"},
	{name: "OverlappingPaths", update: "SET x = :v, x = :w", vals: item{":v": vN("1"), ":w": vN("2")},
		frag: "Two document paths overlap with each other"},
	{name: "OverlappingNestedPaths", update: "SET m.a = :v REMOVE m", vals: item{":v": vN("1")},
		frag: "Two document paths overlap with each other"},
	{name: "ParentMissing", update: "SET nothere.x = :v", vals: item{":v": vN("1")},
		frag: "The document path provided in the update expression is invalid for update"},
	{name: "IndexOnNonList", update: "SET s[0] = :v", vals: item{":v": vN("1")},
		frag: "The document path provided in the update expression is invalid for update"},
	{name: "InvalidAttributeType", update: "SET x = :v", cond: "attribute_type(n, :t)", vals: item{":v": vN("1"), ":t": vS("X")},
		frag: "Invalid attribute type name", quirk: QuirkAttributeTypeUnchecked},
	{name: "RepeatedClause", update: "SET x = :v SET y = :v", vals: item{":v": vN("1")},
		frag: "can only be used once"},
}

// testExpressionErrors sends each invalid update and checks the error and
// that the item did not change.
func (s *suite) testExpressionErrors(t *testing.T) {
	tb := s.table(t, hashOnly)
	s.put(t, tb, updItem())
	for _, c := range exprErrCases {
		t.Run(c.name, func(t *testing.T) {
			in := &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("u")},
				UpdateExpression: aws.String(c.update)}
			if c.cond != "" {
				in.ConditionExpression = aws.String(c.cond)
			}
			if c.vals != nil {
				in.ExpressionAttributeValues = c.vals
			}
			if len(c.names) > 0 {
				in.ExpressionAttributeNames = c.names
			}
			_, err := s.c.UpdateItem(s.ctx(t), in)
			s.refused(t, c.quirk, err, c.frag)
			wantItem(t, "item after refused update", s.get(t, tb, item{"pk": vS("u")}), updItem())
		})
	}
	// Placeholders are checked on reads too.
	t.Run("UnusedValueOnQuery", func(t *testing.T) {
		_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: item{":p": vS("u"), ":x": vS("y")}})
		s.refused(t, QuirkUnusedPlaceholdersOnReads, err, "Value provided in ExpressionAttributeValues unused in expressions")
	})
	t.Run("ReservedWordProjection", func(t *testing.T) {
		_, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb),
			Key: item{"pk": vS("u")}, ProjectionExpression: aws.String("size, n")})
		s.wantValidation(t, err, "reserved keyword")
	})
	t.Run("EmptyNamePlaceholder", s.testEmptyNamePlaceholder)
}

// testEmptyNamePlaceholder: a name placeholder that stands for "" is
// refused wherever placeholders are read, as attribute names are at least
// one character long, and nothing is written. The message is DynamoDB's as
// its clients quote it ("... for key #DE").
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
func (s *suite) testEmptyNamePlaceholder(t *testing.T) {
	const msg = "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n"
	tb := s.table(t, composite)
	key := item{"pk": vS("a"), "sk": vS("1")}
	s.put(t, tb, item{"pk": vS("a"), "sk": vS("1"), "x": vS("old")})
	empty := map[string]string{"#n": ""}
	t.Run("UpdateItemSet", func(t *testing.T) {
		_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: key,
			UpdateExpression: aws.String("SET #n = :v"), ExpressionAttributeNames: empty, ExpressionAttributeValues: item{":v": vS("x")}})
		s.refused(t, QuirkEmptyNamePlaceholderAccepted, err, msg)
	})
	t.Run("PutItemCondition", func(t *testing.T) {
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("a"), "sk": vS("2")},
			ConditionExpression: aws.String("attribute_not_exists(#n)"), ExpressionAttributeNames: empty})
		s.refused(t, QuirkEmptyNamePlaceholderAccepted, err, msg)
	})
	if !s.quirks.Has(QuirkNoTransactions) {
		t.Run("TransactWriteItemsUpdate", func(t *testing.T) {
			_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: aws.String(tb), Key: key, UpdateExpression: aws.String("SET #n = :v"),
					ExpressionAttributeNames: empty, ExpressionAttributeValues: item{":v": vS("x")}}}}})
			s.refused(t, QuirkEmptyNamePlaceholderAccepted, err, msg)
		})
	}
	t.Run("GetItemProjection", func(t *testing.T) {
		// moto refuses this one, calling the placeholder unused.
		_, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key,
			ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: empty})
		s.wantValidation(t, err, msg)
	})
	t.Run("QueryFilter", func(t *testing.T) {
		_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb),
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("attribute_exists(#n)"),
			ExpressionAttributeNames: empty, ExpressionAttributeValues: item{":p": vS("a")}})
		s.refused(t, QuirkEmptyNamePlaceholderAccepted, err, msg)
	})
	if s.quirks.Has(QuirkEmptyNamePlaceholderAccepted) {
		return
	}
	wantItem(t, "item after refused writes", s.get(t, tb, key), item{"pk": vS("a"), "sk": vS("1"), "x": vS("old")})
	if got := s.get(t, tb, item{"pk": vS("a"), "sk": vS("2")}); got != nil {
		t.Errorf("refused PutItem wrote %s", showItem(got))
	}
}
