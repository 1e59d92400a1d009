package dyntest

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func putReq(it item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func delReq(k item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
}

// testBatch: BatchWriteItem (25 requests, no duplicate keys, whole batch
// refused on a validation error) and BatchGetItem (100 keys, no duplicates).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func (s *suite) testBatch(t *testing.T) {
	t.Run("WriteAndGet", func(t *testing.T) {
		a, b := s.table(t, hashOnly), s.table(t, composite)
		var reqs []types.WriteRequest
		for i := range 20 {
			reqs = append(reqs, putReq(item{"pk": vS(fmt.Sprint(i)), "v": vN(fmt.Sprint(i))}))
		}
		out, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: reqs,
			b: {putReq(item{"pk": vS("x"), "sk": vS("1"), "v": vS("b")})},
		}})
		must(t, err, "BatchWriteItem 21")
		if n := len(out.UnprocessedItems); n != 0 {
			t.Errorf("UnprocessedItems for %d tables", n)
		}
		// Deletes, and a put replacing an item, in one batch.
		_, err = s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: {delReq(item{"pk": vS("0")}), delReq(item{"pk": vS("nothere")}), putReq(item{"pk": vS("1"), "v": vS("new")})},
		}})
		must(t, err, "BatchWriteItem deletes")
		keys := []item{{"pk": vS("0")}, {"pk": vS("1")}, {"pk": vS("2")}, {"pk": vS("missing")}}
		gout, err := s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			a: {Keys: keys, ConsistentRead: aws.Bool(true)},
			b: {Keys: []item{{"pk": vS("x"), "sk": vS("1")}}, ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": "v"}},
		}})
		must(t, err, "BatchGetItem")
		got := map[string]item{}
		for _, it := range gout.Responses[a] {
			got[sOf(it["pk"])] = it
		}
		if len(gout.Responses[a]) != 2 {
			t.Errorf("BatchGetItem returned %d items of %s, want 2 (missing keys are omitted)", len(gout.Responses[a]), a)
		}
		wantItem(t, "item 1", got["1"], item{"pk": vS("1"), "v": vS("new")})
		wantItem(t, "item 2", got["2"], item{"pk": vS("2"), "v": vN("2")})
		wantItems(t, "projected batch get", gout.Responses[b], []item{{"v": vS("b")}})
		if len(gout.UnprocessedKeys) != 0 {
			t.Errorf("UnprocessedKeys = %v", gout.UnprocessedKeys)
		}
	})

	t.Run("WriteLimits", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		var reqs []types.WriteRequest
		for i := range 26 {
			reqs = append(reqs, putReq(item{"pk": vS(fmt.Sprint(i))}))
		}
		_, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: reqs}})
		s.refused(t, QuirkBatchWriteLimitUnchecked, err)
		_, err = s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: reqs[:25]}})
		must(t, err, "BatchWriteItem 25")
		// "You try to perform multiple operations on the same item in the same
		// BatchWriteItem request" rejects the entire batch.
		for name, dup := range map[string][]types.WriteRequest{
			"PutPut":    {putReq(item{"pk": vS("d"), "v": vN("1")}), putReq(item{"pk": vS("d"), "v": vN("2")}), putReq(item{"pk": vS("other")})},
			"PutDelete": {putReq(item{"pk": vS("d")}), delReq(item{"pk": vS("d")}), putReq(item{"pk": vS("other")})},
		} {
			_, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: dup}})
			ok := apiCode(err) == "ValidationException"
			s.documented(t, QuirkBatchWriteDuplicatesAccepted, ok, "%s duplicate batch: got %v, want ValidationException", name, err)
			if ok {
				s.wantValidation(t, err, "Provided list of item keys contains duplicates")
				for _, k := range []string{"d", "other"} {
					if got := s.get(t, tb, item{"pk": vS(k)}); got != nil {
						t.Errorf("%s: refused batch wrote %s", name, showItem(got))
					}
				}
			}
		}
		// A bad item rejects the entire batch: nothing is written.
		_, err = s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: {
			putReq(item{"pk": vS("good")}), putReq(item{"nopk": vS("bad")})}}})
		s.wantValidation(t, err)
		got := s.get(t, tb, item{"pk": vS("good")})
		s.documented(t, QuirkBatchWritePartial, got == nil, "refused batch wrote %s", showItem(got))
		_, err = s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			tb + "-missing": {putReq(item{"pk": vS("x")})}}})
		wantTyped[*types.ResourceNotFoundException](t, err)
	})

	t.Run("GetLimits", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("7")})
		var keys []item
		for i := range 101 {
			keys = append(keys, item{"pk": vS(fmt.Sprint(i))})
		}
		// One table's Keys list is limited by its member constraint, the
		// request's keys over all tables by the operation (captured from
		// DynamoDB by nubo-db/dynamodb-conformance tier3 batchGetItem).
		_, err := s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tb: {Keys: keys}}})
		s.wantValidation(t, err, "at 'RequestItems."+tb+".member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100")
		other := s.table(t, hashOnly)
		_, err = s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			tb: {Keys: keys[:60]}, other: {Keys: keys[60:]}}})
		s.wantValidation(t, err, "Too many items requested for the BatchGetItem call")
		out, err := s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tb: {Keys: keys[:100]}}})
		must(t, err, "BatchGetItem 100 keys")
		wantItems(t, "100-key batch", out.Responses[tb], []item{{"pk": vS("7")}})
		_, err = s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tb: {
			Keys: []item{{"pk": vS("7")}, {"pk": vS("7")}}}}})
		ok := apiCode(err) == "ValidationException"
		s.documented(t, QuirkBatchGetDuplicatesAccepted, ok, "duplicate BatchGetItem keys: got %v, want ValidationException", err)
		if ok {
			s.wantValidation(t, err, "Provided list of item keys contains duplicates")
		}
		_, err = s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tb: {
			Keys: []item{{"pk": vN("7")}}}}})
		s.refused(t, QuirkKeyValidationLax, err, "The provided key element does not match the schema")
	})
}
