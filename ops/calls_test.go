package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adjl/adjl/rowfile"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestCapacityCountsRefusedRequests: a request the backend answers with a
// refusal (an unlink of a missing edge, a repeated link: a cancelled
// transaction) was sent, and --capacity must count it, with no capacity
// since the error carries none.
func TestCapacityCountsRefusedRequests(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		var got []string
		st.opt.Capacity = func(op string, _ []types.ConsumedCapacity) { got = append(got, op) }
		rel := st.schema.Relations[0]
		eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Unchanged)
		eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil))), Created)
		eq(t, "repeat", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil))), Unchanged)
		eq(t, "requests", strings.Join(got, ","), "TransactWriteItems,TransactWriteItems,TransactWriteItems")
	})
}

// TestCapacityCountsRefusedBatchRequests: a BatchWriteItem or BatchGetItem
// the backend refuses (here, for a table that does not exist) was sent too,
// and --capacity counts it like any other refused request.
func TestCapacityCountsRefusedBatchRequests(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		var got []string
		st.opt.Capacity = func(op string, _ []types.ConsumedCapacity) { got = append(got, op) }
		key := map[string]types.AttributeValue{"PK": str("STU#a91"), "SK": str("STU#a91")}
		if _, err := st.batchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"no-such-table": {{PutRequest: &types.PutRequest{Item: key}}},
		}}); err == nil {
			t.Fatal("BatchWriteItem into a missing table succeeded")
		}
		if _, err := st.batchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"no-such-table": {Keys: []map[string]types.AttributeValue{key}},
		}}); err == nil {
			t.Fatal("BatchGetItem from a missing table succeeded")
		}
		eq(t, "requests", strings.Join(got, ","), "BatchWriteItem,BatchGetItem")
	})
}

// TestCapacityCountsEveryBatchWriteAttempt: an import's BatchWriteItem
// retries (after unprocessed items, after throttling) are requests sent, so
// --capacity counts each one, those the backend did not process (throttled,
// or every item unprocessed) without capacity.
func TestCapacityCountsEveryBatchWriteAttempt(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	var flaky *flakyAPI
	st, _ := engineStore(t, sc, func(a API) API { flaky = &flakyAPI{API: a}; return flaky })
	var reported, unreported int64
	st.opt.Capacity = func(op string, cc []types.ConsumedCapacity) {
		switch {
		case op != "BatchWriteItem":
		case len(cc) == 0:
			unreported++
		default:
			reported++
		}
	}
	var rs []rowfile.Row
	for i := range 60 {
		rs = append(rs, edgeRow(fmt.Sprintf("STU#s%02d", i), "CRS#c1", nil))
	}
	must[*ImportReport](t)(st.Import(ctx, rel, nil, rows(rs...), ImportOptions{Workers: 2}))
	calls := flaky.calls.Load()
	eq(t, "BatchWriteItem requests counted", reported+unreported, calls)
	// flakyAPI sends every third call; the others come back with every item
	// unprocessed or throttled, neither with capacity.
	eq(t, "with capacity", reported, calls/3)
}
