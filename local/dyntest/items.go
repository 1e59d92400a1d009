package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testItems covers the single-item operations: key validation, conditional
// writes, ReturnValues and ReturnValuesOnConditionCheckFailure.
func (s *suite) testItems(t *testing.T) {
	// PutItem replaces the whole item; GetItem returns it; ProjectionExpression
	// narrows it; a missing item returns no Item.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
	t.Run("PutGetReplace", func(t *testing.T) {
		tb := s.table(t, composite)
		k := item{"pk": vS("a"), "sk": vS("1")}
		s.put(t, tb, item{"pk": vS("a"), "sk": vS("1"), "x": vN("1"), "y": vS("old")})
		s.put(t, tb, item{"pk": vS("a"), "sk": vS("1"), "z": vBool(true)})
		wantItem(t, "after replacing put", s.get(t, tb, k), item{"pk": vS("a"), "sk": vS("1"), "z": vBool(true)})
		out, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: k,
			ProjectionExpression: aws.String("z, nothere")})
		must(t, err, "GetItem projection")
		wantItem(t, "projected GetItem", out.Item, item{"z": vBool(true)})
		// Projections reach into maps and lists and keep the document shape.
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
		s.put(t, tb, item{"pk": vS("a"), "sk": vS("3"), "m": vM(item{"x": vN("1"), "y": vN("2")}),
			"l": vL(vS("l0"), vS("l1"), vS("l2")), "top": vS("t")})
		out, err = s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: item{"pk": vS("a"), "sk": vS("3")},
			ProjectionExpression: aws.String("m.y, l[2], #t"), ExpressionAttributeNames: map[string]string{"#t": "top"}})
		must(t, err, "GetItem nested projection")
		wantItem(t, "nested projection", out.Item, item{"m": vM(item{"y": vN("2")}), "l": vL(vS("l2")), "top": vS("t")})
		if got := s.get(t, tb, item{"pk": vS("a"), "sk": vS("2")}); got != nil {
			t.Errorf("missing item: got %s, want none", showItem(got))
		}
	})

	// Keys must match the schema exactly: "The provided key element does not
	// match the schema"; items must carry the key with the declared type.
	t.Run("KeyValidation", func(t *testing.T) {
		tb := s.table(t, composite)
		ctx := s.ctx(t)
		_, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb), Key: item{"pk": vS("a")}})
		s.wantValidation(t, err, "The provided key element does not match the schema")
		_, err = s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb),
			Key: item{"pk": vS("a"), "sk": vS("1"), "x": vS("extra")}})
		s.wantValidation(t, err, "The provided key element does not match the schema")
		_, err = s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb), Key: item{"pk": vS("a"), "sk": vN("1")}})
		s.refused(t, QuirkKeyValidationLax, err, "The provided key element does not match the schema")
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("a"), "x": vS("1")}})
		s.wantValidation(t, err, "Missing the key sk")
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("a"), "sk": vN("1")}})
		s.wantValidation(t, err, "Type mismatch for key")
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"sk": vS("1")}})
		s.wantValidation(t, err, "The provided key element does not match the schema")
	})

	// Attribute names are at least one character long ("Naming rules");
	// an item with an attribute named "" is refused as a transaction's Put
	// of one is (see testTransactionValidation), and nothing is written.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
	t.Run("EmptyAttributeName", func(t *testing.T) {
		tb := s.table(t, composite)
		ctx := s.ctx(t)
		_, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("a"), "sk": vS("1"), "": vS("x")}})
		s.refused(t, QuirkEmptyAttributeNameAccepted, err, "Empty attribute name")
		_, err = s.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: {
			{PutRequest: &types.PutRequest{Item: item{"pk": vS("a"), "sk": vS("2")}}},
			{PutRequest: &types.PutRequest{Item: item{"pk": vS("a"), "sk": vS("3"), "": vS("x")}}}}}})
		s.refused(t, QuirkEmptyAttributeNameAccepted, err, "Empty attribute name")
		// The item in another table of the request, after that table's
		// good items: the whole request is refused, in whichever order the
		// tables are checked.
		other := s.table(t, composite)
		kept := item{"pk": vS("kept"), "sk": vS("1")}
		s.put(t, tb, kept)
		_, err = s.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			tb: {{PutRequest: &types.PutRequest{Item: item{"pk": vS("a"), "sk": vS("4")}}},
				{DeleteRequest: &types.DeleteRequest{Key: kept}}},
			other: {{PutRequest: &types.PutRequest{Item: item{"pk": vS("a"), "sk": vS("1")}}},
				{PutRequest: &types.PutRequest{Item: item{"pk": vS("a"), "sk": vS("2"), "": vS("x")}}}}}})
		s.refused(t, QuirkEmptyAttributeNameAccepted, err, "Empty attribute name")
		if s.quirks.Has(QuirkEmptyAttributeNameAccepted) {
			return
		}
		for _, sk := range []string{"1", "2", "3", "4"} {
			if got := s.get(t, tb, item{"pk": vS("a"), "sk": vS(sk)}); got != nil {
				t.Errorf("refused write left %s", showItem(got))
			}
		}
		for _, sk := range []string{"1", "2"} {
			if got := s.get(t, other, item{"pk": vS("a"), "sk": vS(sk)}); got != nil {
				t.Errorf("refused write left %s in the other table", showItem(got))
			}
		}
		wantItem(t, "item the refused request would delete", s.get(t, tb, kept), kept)
	})

	// ConditionExpression on PutItem/DeleteItem/UpdateItem: a false condition
	// is ConditionalCheckFailedException ("The conditional request failed")
	// and changes nothing.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
	t.Run("ConditionalWrites", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		ctx := s.ctx(t)
		k := item{"pk": vS("c")}
		create := &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("c"), "v": vN("1")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")}
		_, err := s.c.PutItem(ctx, create)
		must(t, err, "first conditional put")
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("c"), "v": vN("2")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		if _, ok := wantTyped[*types.ConditionalCheckFailedException](t, err); ok {
			s.wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
		}
		wantItem(t, "after failed put", s.get(t, tb, k), item{"pk": vS("c"), "v": vN("1")})

		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: k,
			UpdateExpression:          aws.String("SET v = :n"),
			ConditionExpression:       aws.String("v = :old"),
			ExpressionAttributeValues: item{":n": vN("3"), ":old": vN("9")}})
		wantTyped[*types.ConditionalCheckFailedException](t, err)
		// A conditional update of a missing item sees no attributes.
		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("none")},
			UpdateExpression: aws.String("SET v = :n"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: item{":n": vN("3")}})
		wantTyped[*types.ConditionalCheckFailedException](t, err)
		if got := s.get(t, tb, item{"pk": vS("none")}); got != nil {
			t.Errorf("failed conditional update created %s", showItem(got))
		}
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: k,
			ConditionExpression: aws.String("v > :x"), ExpressionAttributeValues: item{":x": vN("1")}})
		wantTyped[*types.ConditionalCheckFailedException](t, err)
		wantItem(t, "after failed delete", s.get(t, tb, k), item{"pk": vS("c"), "v": vN("1")})
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: k,
			ConditionExpression: aws.String("v = :x"), ExpressionAttributeValues: item{":x": vN("1")}})
		must(t, err, "conditional delete")
		if got := s.get(t, tb, k); got != nil {
			t.Errorf("deleted item still there: %s", showItem(got))
		}
		// Deleting a missing item succeeds.
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: k})
		must(t, err, "delete missing item")
	})

	// ReturnValuesOnConditionCheckFailure=ALL_OLD puts the item in the
	// ConditionalCheckFailedException.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-ReturnValuesOnConditionCheckFailure
	t.Run("ReturnValuesOnConditionCheckFailure", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		ctx := s.ctx(t)
		old := item{"pk": vS("r"), "v": vN("1"), "tags": vSS("a", "b")}
		s.put(t, tb, old)
		_, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("r")},
			ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		if ccf, ok := wantTyped[*types.ConditionalCheckFailedException](t, err); ok {
			s.documented(t, QuirkNoReturnValuesOnCCF, showItem(ccf.Item) == showItem(old),
				"ConditionalCheckFailedException.Item (put) = %s, want %s", showItem(ccf.Item), showItem(old))
		}
		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("r")},
			UpdateExpression: aws.String("SET v = :v"), ConditionExpression: aws.String("v = :v"),
			ExpressionAttributeValues:           item{":v": vN("5")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		if ccf, ok := wantTyped[*types.ConditionalCheckFailedException](t, err); ok {
			s.documented(t, QuirkNoReturnValuesOnCCF, showItem(ccf.Item) == showItem(old),
				"ConditionalCheckFailedException.Item (update) = %s, want %s", showItem(ccf.Item), showItem(old))
		}
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"pk": vS("r")},
			ConditionExpression:                 aws.String("attribute_not_exists(v)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureNone})
		if ccf, ok := wantTyped[*types.ConditionalCheckFailedException](t, err); ok && len(ccf.Item) != 0 {
			t.Errorf("ReturnValuesOnConditionCheckFailure=NONE returned %s", showItem(ccf.Item))
		}
	})

	// PutItem/DeleteItem ReturnValues: NONE or ALL_OLD only.
	t.Run("ReturnValuesPutDelete", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		ctx := s.ctx(t)
		out, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb),
			Item: item{"pk": vS("a"), "v": vN("1")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err, "put new ALL_OLD")
		if len(out.Attributes) != 0 {
			t.Errorf("ALL_OLD on a new item returned %s", showItem(out.Attributes))
		}
		out, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb),
			Item: item{"pk": vS("a"), "v": vN("2")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err, "put replace ALL_OLD")
		wantItem(t, "PutItem ALL_OLD", out.Attributes, item{"pk": vS("a"), "v": vN("1")})
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb),
			Item: item{"pk": vS("a"), "v": vN("3")}, ReturnValues: types.ReturnValueAllNew})
		if s.wantValidation(t, err) && !s.quirks.Has(QuirkValidationMessages) {
			// DynamoDB has used both wordings.
			if m := apiMessage(err); !strings.Contains(m, "Return values set to invalid value") && !strings.Contains(m, "ReturnValues can only be ALL_OLD or NONE") {
				t.Errorf("ReturnValues message %q", m)
			}
		}
		wantItem(t, "after refused put", s.get(t, tb, item{"pk": vS("a")}), item{"pk": vS("a"), "v": vN("2")})
		dout, err := s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb),
			Key: item{"pk": vS("a")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err, "delete ALL_OLD")
		wantItem(t, "DeleteItem ALL_OLD", dout.Attributes, item{"pk": vS("a"), "v": vN("2")})
		dout, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb),
			Key: item{"pk": vS("a")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err, "delete missing ALL_OLD")
		if len(dout.Attributes) != 0 {
			t.Errorf("DeleteItem ALL_OLD of a missing item returned %s", showItem(dout.Attributes))
		}
	})

	// UpdateItem ReturnValues: ALL_OLD / UPDATED_OLD / ALL_NEW / UPDATED_NEW.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
	t.Run("ReturnValuesUpdate", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		base := item{"pk": vS("u"), "a": vN("1"), "b": vS("keep"), "c": vS("gone")}
		update := func(rv types.ReturnValue) item {
			s.put(t, tb, base)
			out, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("u")},
				UpdateExpression:          aws.String("SET a = a + :one, n = :new REMOVE c"),
				ExpressionAttributeValues: item{":one": vN("1"), ":new": vS("fresh")},
				ReturnValues:              rv})
			must(t, err, "UpdateItem "+string(rv))
			return out.Attributes
		}
		if got := update(types.ReturnValueNone); len(got) != 0 {
			t.Errorf("NONE returned %s", showItem(got))
		}
		wantItem(t, "ALL_OLD", update(types.ReturnValueAllOld), base)
		wantItem(t, "UPDATED_OLD", update(types.ReturnValueUpdatedOld), item{"a": vN("1"), "c": vS("gone")})
		wantItem(t, "ALL_NEW", update(types.ReturnValueAllNew), item{"pk": vS("u"), "a": vN("2"), "b": vS("keep"), "n": vS("fresh")})
		wantItem(t, "UPDATED_NEW", update(types.ReturnValueUpdatedNew), item{"a": vN("2"), "n": vS("fresh")})
	})

	// UpdateItem creates a missing item ("Edits an existing item's attributes,
	// or adds a new item to the table if it does not already exist") and
	// refuses to change key attributes.
	t.Run("UpdateUpsertAndKeys", func(t *testing.T) {
		tb := s.table(t, composite)
		ctx := s.ctx(t)
		k := item{"pk": vS("n"), "sk": vS("1")}
		out, err := s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: k,
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": vS("x")},
			ReturnValues: types.ReturnValueAllNew})
		must(t, err, "upsert")
		wantItem(t, "upserted item", out.Attributes, item{"pk": vS("n"), "sk": vS("1"), "v": vS("x")})
		// An update with only REMOVE on a missing item still creates the key-only item.
		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("n"), "sk": vS("2")},
			UpdateExpression: aws.String("REMOVE v")})
		must(t, err, "remove-only upsert")
		wantItem(t, "remove-only upsert", s.get(t, tb, item{"pk": vS("n"), "sk": vS("2")}), item{"pk": vS("n"), "sk": vS("2")})
		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: k,
			UpdateExpression: aws.String("SET sk = :v"), ExpressionAttributeValues: item{":v": vS("2")}})
		s.wantValidation(t, err, "This attribute is part of the key")
		_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: k,
			UpdateExpression: aws.String("REMOVE pk")})
		s.wantValidation(t, err, "This attribute is part of the key")
	})
}
