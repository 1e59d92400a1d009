package ops

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// synthAPI serves a reverse list of n followers per shard partition without
// storing them: items are made on the fly from ExclusiveStartKey, so the
// only memory that can grow is the Store's.
type synthAPI struct {
	*engineAPI
	perShard int
}

func (a *synthAPI) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	part := avString(in.ExpressionAttributeValues[":0"])
	part, _ = strconv.Unquote(part)
	start := 0
	if in.ExclusiveStartKey != nil {
		n, _ := strconv.Atoi(sOf(in.ExclusiveStartKey, "GSI1SK")[len("ACTOR#"):][:9])
		start = n + 1
	}
	shard, _ := strconv.Atoi(part[len(part)-1:])
	rel := social(8).Relations[0]
	out := &dynamodb.QueryOutput{}
	end := min(start+int(aws.ToInt32(in.Limit)), a.perShard)
	for i := start; i < end; i++ {
		// A follower whose key hashes to this shard, as a link would place it.
		var from string
		for j := 0; ; j++ {
			if from = fmt.Sprintf("ACTOR#%09d-%d", i, j); rel.Shard(from) == shard {
				break
			}
		}
		out.Items = append(out.Items, Item{"PK": str(from), "SK": str("TARGET#bob"), "GSI1PK": str(part), "GSI1SK": str(from), "type": str("follow")})
	}
	if end < a.perShard {
		out.LastEvaluatedKey = maps.Clone(out.Items[len(out.Items)-1])
	}
	return out, nil
}

// TestListAllMemoryIsBounded streams 1,000,000 edges over 8 shards and
// checks the live heap stays far below what holding them would take.
func TestListAllMemoryIsBounded(t *testing.T) {
	total := 1_000_000
	if testing.Short() || raceEnabled {
		total = 100_000
	}
	sc := social(8)
	api := &synthAPI{engineAPI: newEngine(t, sc), perShard: total / 8}
	api.engineAPI.put(Item{"PK": str(MetaKey), "SK": str(MetaKey)})
	st := New(api, sc, Options{})
	var peak uint64
	var ms runtime.MemStats
	n, prev := 0, ""
	_, err := st.ListAll(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: "bob"}, func(it Item) error {
		k := sOf(it, "GSI1SK")
		if k <= prev {
			return fmt.Errorf("out of order: %s after %s", k, prev)
		}
		prev = k
		n++
		if n%50_000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "streamed", n, total)
	t.Logf("peak live heap %.1f MB for %d edges", float64(peak)/(1<<20), n)
	if peak > 48<<20 {
		t.Errorf("live heap reached %.1f MB: the stream holds items", float64(peak)/(1<<20))
	}
}
