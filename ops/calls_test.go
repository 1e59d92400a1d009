package ops

import (
	"strings"
	"testing"

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
