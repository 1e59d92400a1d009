package dyntest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTransactions: TransactWriteItems and TransactGetItems.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
func (s *suite) testTransactions(t *testing.T) {
	if s.quirks.Has(QuirkNoTransactions) {
		t.Run("Refused", func(t *testing.T) {
			tb := s.table(t, hashOnly)
			_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(tb), Item: item{"pk": vS("a")}}}}})
			s.documented(t, QuirkNoTransactions, err == nil, "")
		})
		return
	}

	// All actions apply together, across tables.
	t.Run("Commit", func(t *testing.T) {
		a, b := s.table(t, hashOnly), s.table(t, composite)
		s.put(t, a, item{"pk": vS("upd"), "n": vN("1")}, item{"pk": vS("del")}, item{"pk": vS("chk"), "ok": vBool(true)})
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(b), Item: item{"pk": vS("e"), "sk": vS("1")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Update: &types.Update{TableName: aws.String(a), Key: item{"pk": vS("upd")}, UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: item{":one": vN("1")}}},
			{Delete: &types.Delete{TableName: aws.String(a), Key: item{"pk": vS("del")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(a), Key: item{"pk": vS("chk")},
				ConditionExpression: aws.String("ok = :t"), ExpressionAttributeValues: item{":t": vBool(true)}}},
		}})
		must(t, err, "TransactWriteItems")
		wantItem(t, "put", s.get(t, b, item{"pk": vS("e"), "sk": vS("1")}), item{"pk": vS("e"), "sk": vS("1")})
		wantItem(t, "update", s.get(t, a, item{"pk": vS("upd")}), item{"pk": vS("upd"), "n": vN("2")})
		if got := s.get(t, a, item{"pk": vS("del")}); got != nil {
			t.Errorf("deleted item remains: %s", showItem(got))
		}
	})

	// "CancellationReasons ... ordered according to the ordering of the
	// TransactWriteItems request parameter. If no error occurred for the
	// associated item an error with a Null code and Null message will be
	// present" (the SDK documents the code as the literal "None").
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html
	t.Run("CancellationReasons", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		old := item{"pk": vS("b"), "v": vN("1")}
		s.put(t, tb, old, item{"pk": vS("d"), "v": vN("1")})
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tb), Item: item{"pk": vS("a")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tb), Key: item{"pk": vS("b")},
				ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: item{":two": vN("2")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{Update: &types.Update{TableName: aws.String(tb), Key: item{"pk": vS("c")}, UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: item{":v": vN("3")}}},
			{Delete: &types.Delete{TableName: aws.String(tb), Key: item{"pk": vS("d")}, ConditionExpression: aws.String("attribute_not_exists(v)")}},
		}})
		tce, ok := wantTyped[*types.TransactionCanceledException](t, err)
		if !ok {
			return
		}
		s.wantAPIError(t, err, "TransactionCanceledException", "Transaction cancelled")
		var codes []string
		for _, r := range tce.CancellationReasons {
			codes = append(codes, aws.ToString(r.Code))
		}
		if got := join(codes); got != "None,ConditionalCheckFailed,None,ConditionalCheckFailed" {
			t.Errorf("CancellationReasons codes = %s, want None,ConditionalCheckFailed,None,ConditionalCheckFailed", got)
		}
		if len(tce.CancellationReasons) == 4 {
			wantItem(t, "reason[1].Item (ALL_OLD)", tce.CancellationReasons[1].Item, old)
			if n := len(tce.CancellationReasons[3].Item); n != 0 {
				t.Errorf("reason[3] without ReturnValuesOnConditionCheckFailure has an Item")
			}
			if m := aws.ToString(tce.CancellationReasons[1].Message); m != "The conditional request failed" && !s.quirks.Has(QuirkValidationMessages) {
				t.Errorf("reason[1].Message = %q", m)
			}
		}
		for _, k := range []string{"a", "c"} {
			if got := s.get(t, tb, item{"pk": vS(k)}); got != nil {
				t.Errorf("cancelled transaction wrote %s", showItem(got))
			}
		}
		if got := s.get(t, tb, item{"pk": vS("d")}); got == nil {
			t.Errorf("cancelled transaction deleted d")
		}
	})

	// "no two of them can operate on the same item": ValidationException
	// "Transaction request cannot include multiple operations on one item".
	t.Run("OneActionPerItem", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tb), Item: item{"pk": vS("x"), "v": vN("1")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tb), Key: item{"pk": vS("x")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		}})
		s.wantValidation(t, err, "Transaction request cannot include multiple operations on one item")
		if got := s.get(t, tb, item{"pk": vS("x")}); got != nil {
			t.Errorf("refused transaction wrote %s", showItem(got))
		}
	})

	// "An ordered array of up to 100 TransactWriteItem objects".
	t.Run("HundredActions", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		var acts []types.TransactWriteItem
		for i := range 101 {
			acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tb), Item: item{"pk": vS(fmt.Sprint(i))}}})
		}
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		s.wantValidation(t, err, "Member must have length less than or equal to 100")
		if got := s.get(t, tb, item{"pk": vS("0")}); got != nil {
			t.Errorf("refused 101-action transaction wrote %s", showItem(got))
		}
		_, err = s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: acts[:100]})
		must(t, err, "100-action transaction")
		out, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
		must(t, err, "Scan")
		if out.Count != 100 {
			t.Errorf("after 100 puts the table has %d items", out.Count)
		}
	})

	// "The aggregate size of the items in the transaction cannot exceed 4 MB."
	t.Run("FourMegabytes", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		pad := strings.Repeat("x", 380*1024)
		var acts []types.TransactWriteItem
		for i := range 11 {
			acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tb),
				Item: item{"pk": vS(fmt.Sprint(i)), "pad": vS(pad)}}})
		}
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		s.documented(t, QuirkNoTransactionSizeLimit, apiCode(err) == "ValidationException",
			"11 × 380 KB transaction: got %v, want ValidationException", err)
		if got := s.get(t, tb, item{"pk": vS("0")}); got != nil && !s.quirks.Has(QuirkNoTransactionSizeLimit) {
			t.Errorf("refused transaction wrote an item")
		}
		_, err = s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: acts[:10]})
		must(t, err, "10 × 380 KB transaction")
	})

	// "Providing a ClientRequestToken makes the call to TransactWriteItems
	// idempotent ... If you submit a request with the same client token but a
	// change in other parameters within the 10-minute idempotency window,
	// DynamoDB returns an IdempotentParameterMismatch exception."
	t.Run("ClientRequestToken", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		token := "tok-" + s.tableName(t)
		if len(token) > 36 {
			token = token[len(token)-36:]
		}
		in := func(inc string) *dynamodb.TransactWriteItemsInput {
			return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token), TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: aws.String(tb), Key: item{"pk": vS("ctr")}, UpdateExpression: aws.String("ADD n :inc"),
					ExpressionAttributeValues: item{":inc": vN(inc)}}}}}
		}
		_, err := s.c.TransactWriteItems(s.ctx(t), in("1"))
		must(t, err, "first TransactWriteItems")
		_, err = s.c.TransactWriteItems(s.ctx(t), in("1"))
		must(t, err, "repeated TransactWriteItems")
		got := s.get(t, tb, item{"pk": vS("ctr")})
		s.documented(t, QuirkNoIdempotencyTokens, nOf(got["n"]) == "1", "counter after a repeated token = %s, want 1", showItem(got))
		_, err = s.c.TransactWriteItems(s.ctx(t), in("5"))
		var mismatch *types.IdempotentParameterMismatchException
		s.documented(t, QuirkNoIdempotencyTokens, err != nil && asErr(err, &mismatch),
			"same token, different request: got %v, want IdempotentParameterMismatchException", err)
	})

	// TransactGetItems returns the items in request order; a missing item is
	// an empty ItemResponse.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
	t.Run("TransactGet", func(t *testing.T) {
		a, b := s.table(t, hashOnly), s.table(t, composite)
		s.put(t, a, item{"pk": vS("1"), "v": vS("one"), "w": vS("W")})
		s.put(t, b, item{"pk": vS("2"), "sk": vS("s"), "v": vS("two")})
		out, err := s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(b), Key: item{"pk": vS("2"), "sk": vS("s")}}},
			{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": vS("missing")}}},
			{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": vS("1")}, ProjectionExpression: aws.String("v")}},
		}})
		must(t, err, "TransactGetItems")
		if len(out.Responses) != 3 {
			t.Fatalf("got %d responses, want 3", len(out.Responses))
		}
		wantItem(t, "response 0", out.Responses[0].Item, item{"pk": vS("2"), "sk": vS("s"), "v": vS("two")})
		if len(out.Responses[1].Item) != 0 {
			t.Errorf("missing item returned %s", showItem(out.Responses[1].Item))
		}
		s.documented(t, QuirkTransactGetIgnoresProjection, showItem(out.Responses[2].Item) == showItem(item{"v": vS("one")}),
			"response 2 (ProjectionExpression v) = %s, want {v=one}", showItem(out.Responses[2].Item))
		_, err = s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(a + "-missing"), Key: item{"pk": vS("1")}}}}})
		wantTyped[*types.ResourceNotFoundException](t, err)
		// "An ordered array of up to 100 TransactGetItem objects".
		var gets []types.TransactGetItem
		for i := range 101 {
			gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": vS(fmt.Sprint(i))}}})
		}
		_, err = s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
		s.wantValidation(t, err, "Member must have length less than or equal to 100")
		out, err = s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets[:100]})
		if s.quirks.Has(QuirkTransactGetLimit25) {
			s.documented(t, QuirkTransactGetLimit25, err == nil, "")
			return
		}
		must(t, err, "TransactGetItems 100")
		if len(out.Responses) != 100 || showItem(out.Responses[1].Item) != showItem(item{"pk": vS("1"), "v": vS("one"), "w": vS("W")}) {
			t.Errorf("100-get transaction: %d responses", len(out.Responses))
		}
	})
}
