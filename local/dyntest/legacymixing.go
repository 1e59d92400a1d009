package dyntest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testLegacyMixing: "DynamoDB does not allow mixing legacy conditional
// parameters and expression parameters in a single call" (developer guide,
// Legacy conditional parameters). The message lists the parameters sent on
// each side in a fixed order per operation, and ConditionalOperator needs
// two or more conditions to join. The exact strings and their order are as
// ExtendDB's test_conditional_operator.py records them from DynamoDB.
func (s *suite) testLegacyMixing(t *testing.T) {
	tb := s.table(t, hashOnly)
	s.put(t, tb, item{"pk": vS("k1"), "a": vS("x"), "b": vS("y")})
	cond := func(v string) types.Condition {
		return types.Condition{ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS(v)}}
	}
	exp := func(v string) types.ExpectedAttributeValue {
		return types.ExpectedAttributeValue{ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS(v)}}
	}
	mix := func(legacy, exprs string) string {
		return "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {" +
			legacy + "} Expression parameters: {" + exprs + "}"
	}
	key := item{"pk": vS("k1")}
	lax, co := QuirkLegacyMixingUnchecked, QuirkConditionalOperatorUnchecked
	for _, c := range []struct {
		name string
		call func() error
		frag string
		q    Quirk
	}{
		{"PutItemExpectedAndCondition", func() error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("k2")},
				Expected: map[string]types.ExpectedAttributeValue{"a": exp("x")}, ConditionalOperator: "AND",
				ConditionExpression: aws.String("attribute_exists(pk)")})
			return err
		}, mix("Expected, ConditionalOperator", "ConditionExpression"), lax},
		{"DeleteItemExpectedAndCondition", func() error {
			_, err := s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: key,
				Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}, ConditionExpression: aws.String("attribute_not_exists(pk)")})
			return err
		}, mix("Expected", "ConditionExpression"), lax},
		{"UpdateItemAll", func() error {
			_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: key,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Value: vS("v"), Action: "PUT"}},
				Expected:         map[string]types.ExpectedAttributeValue{"a": exp("x")}, ConditionalOperator: "AND",
				UpdateExpression: aws.String("SET a = :v"), ConditionExpression: aws.String("attribute_exists(pk)"),
				ExpressionAttributeValues: item{":v": vS("x")}})
			return err
		}, mix("AttributeUpdates, Expected, ConditionalOperator", "UpdateExpression, ConditionExpression"), ""},
		{"UpdateItemUpdatesAndCondition", func() error {
			_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: key,
				AttributeUpdates:    map[string]types.AttributeValueUpdate{"a": {Value: vS("v"), Action: "PUT"}},
				ConditionExpression: aws.String("attribute_exists(pk)")})
			return err
		}, mix("AttributeUpdates", "ConditionExpression"), lax},
		{"GetItemAttributesToGetAndProjection", func() error {
			_, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key,
				AttributesToGet: []string{"a"}, ProjectionExpression: aws.String("a")})
			return err
		}, mix("AttributesToGet", "ProjectionExpression"), ""},
		{"ScanAll", func() error {
			_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), AttributesToGet: []string{"a"},
				ScanFilter: map[string]types.Condition{"a": cond("x")}, ConditionalOperator: "AND",
				FilterExpression: aws.String("a = :v"), ProjectionExpression: aws.String("b"), ExpressionAttributeValues: item{":v": vS("x")}})
			return err
		}, mix("AttributesToGet, ScanFilter, ConditionalOperator", "ProjectionExpression, FilterExpression"), lax},
		{"QueryAll", func() error {
			_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb),
				KeyConditions: map[string]types.Condition{"pk": cond("k1")}, QueryFilter: map[string]types.Condition{"a": cond("x")},
				ConditionalOperator: "AND", KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("a = :v"),
				ProjectionExpression: aws.String("b"), ExpressionAttributeValues: item{":p": vS("k1"), ":v": vS("x")}})
			return err
		}, mix("QueryFilter, ConditionalOperator, KeyConditions", "ProjectionExpression, FilterExpression, KeyConditionExpression"), lax},
		{"MixingBeforeUnusedValues", func() error {
			_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), ConditionalOperator: "AND",
				FilterExpression: aws.String("a = :v"), ExpressionAttributeValues: item{":v": vS("x"), ":unused": vS("y")}})
			return err
		}, mix("ConditionalOperator", "FilterExpression"), lax},
		{"ConditionalOperatorAlone", func() error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("k2")}, ConditionalOperator: "AND"})
			return err
		}, "ConditionalOperator cannot be used without Filter or Expected", co},
		{"ConditionalOperatorEmptyFilter", func() error {
			_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), ConditionalOperator: "OR", ScanFilter: map[string]types.Condition{}})
			return err
		}, "ConditionalOperator cannot be used without Filter or Expected", co},
		{"ConditionalOperatorOneCondition", func() error {
			_, err := s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: key, ConditionalOperator: "AND",
				Expected: map[string]types.ExpectedAttributeValue{"a": exp("x")}})
			return err
		}, "ConditionalOperator can only be used when Filter or Expected has two or more elements", co},
		{"ConditionalOperatorBeforeMissingKeyCondition", func() error {
			_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), ConditionalOperator: "AND"})
			return err
		}, "ConditionalOperator cannot be used without Filter or Expected", ""},
		// The developer guide's own example.
		{"QueryAttributesToGetAndKeyConditionExpression", func() error {
			_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), AttributesToGet: []string{"a"},
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("k1")}})
			return err
		}, mix("AttributesToGet", "KeyConditionExpression"), lax},
		{"NamesWithoutExpressions", func() error {
			_, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key, ExpressionAttributeNames: map[string]string{"#a": "a"}})
			return err
		}, "ExpressionAttributeNames can only be specified when using expressions", ""},
		// The single-item writes report it inside the validation envelope,
		// no longer naming the missing expression (two regions, 2026-10-09).
		{"ValuesWithoutExpressions", func() error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("k2")},
				ExpressionAttributeValues: item{":v": vS("x")}})
			return err
		}, "1 validation error detected: ExpressionAttributeValues can only be specified when using expressions", lax},
		{"ValuesWithoutExpressionsOnDelete", func() error {
			_, err := s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: key,
				ExpressionAttributeValues: item{":v": vS("x")}})
			return err
		}, "1 validation error detected: ExpressionAttributeValues can only be specified when using expressions", lax},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.refused(t, c.q, c.call(), c.frag)
		})
	}
	if !s.quirks.Has(lax) && !s.quirks.Has(co) {
		wantItem(t, "item after refused requests", s.get(t, tb, key), item{"pk": vS("k1"), "a": vS("x"), "b": vS("y")})
	}

	// Accepted combinations: KeyConditions with FilterExpression or
	// ProjectionExpression, ConditionalOperator with two conditions.
	t.Run("Accepted", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("k1"), "a": vS("x"), "b": vS("y")})
		out, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), KeyConditions: map[string]types.Condition{"pk": cond("k1")},
			FilterExpression: aws.String("a = :v"), ProjectionExpression: aws.String("a"), ExpressionAttributeValues: item{":v": vS("x")}})
		must(t, err, "KeyConditions with expressions")
		wantItems(t, "Query", out.Items, []item{{"a": vS("x")}})
		sout, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), ConditionalOperator: "AND",
			ScanFilter: map[string]types.Condition{"a": cond("x"), "b": cond("y")}})
		must(t, err, "ConditionalOperator with two conditions")
		if sout.Count != 1 {
			t.Errorf("Count = %d, want 1", sout.Count)
		}
	})
}
