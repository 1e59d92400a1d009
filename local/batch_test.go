package local

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

func TestBatchWriteAndGet(t *testing.T) {
	c := memGraphClient(t)
	var reqs []types.WriteRequest
	for i := 0; i < 25; i++ {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]av{
			"PK": s("P"), "SK": s(fmt.Sprintf("S%02d", i)), "GSI1PK": s("G"), "GSI1SK": s(fmt.Sprintf("S%02d", i))}}})
	}
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}})
	if err != nil {
		t.Fatal(err)
	}
	if out.UnprocessedItems == nil || len(out.UnprocessedItems) != 0 {
		t.Fatalf("UnprocessedItems should be an empty map: %#v", out.UnprocessedItems)
	}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}})
	if err != nil || q.Count != 25 {
		t.Fatalf("index after batch: %v %d", err, q.Count)
	}
	// 26 requests are refused.
	reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]av{"PK": s("P"), "SK": s("zz")}}})
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("26 writes: %v", err)
	}
	dup := []types.WriteRequest{
		{DeleteRequest: &types.DeleteRequest{Key: map[string]av{"PK": s("P"), "SK": s("S01")}}},
		{PutRequest: &types.PutRequest{Item: map[string]av{"PK": s("P"), "SK": s("S01")}}},
	}
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": dup}})
	if apiMessage(err) != "Provided list of item keys contains duplicates" {
		t.Fatalf("duplicate writes: %v", err)
	}

	keys := []map[string]av{{"PK": s("P"), "SK": s("S03")}, {"PK": s("P"), "SK": s("S04")}, {"PK": s("P"), "SK": s("missing")}}
	g, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"school": {Keys: keys, ProjectionExpression: aws.String("SK")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Responses["school"]) != 2 || len(g.Responses["school"][0]) != 1 || len(g.UnprocessedKeys) != 0 {
		t.Fatalf("batch get: %#v", g.Responses)
	}
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"school": {Keys: append(keys, keys[0])}}})
	if apiMessage(err) != "Provided list of item keys contains duplicates" {
		t.Fatalf("duplicate keys: %v", err)
	}
}

func TestBatchGetUnprocessedKeysPastSixteenMegabytes(t *testing.T) {
	c := memGraphClient(t)
	big := strings.Repeat("x", 390*1024)
	var keys []map[string]av
	for i := 0; i < 50; i++ {
		k := map[string]av{"PK": s(fmt.Sprint("P", i)), "SK": s("x")}
		keys = append(keys, k)
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": k["PK"], "SK": k["SK"], "d": s(big)}}); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	req := map[string]types.KeysAndAttributes{"school": {Keys: keys, ProjectionExpression: aws.String("PK, d")}}
	for rounds := 0; len(req) > 0; rounds++ {
		if rounds > 5 {
			t.Fatal("UnprocessedKeys never drained")
		}
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			t.Fatal(err)
		}
		if rounds == 0 && len(out.UnprocessedKeys) == 0 {
			t.Fatal("19.5 MB of items fit in one response")
		}
		got += len(out.Responses["school"])
		req = out.UnprocessedKeys
		if u, ok := req["school"]; ok && aws.ToString(u.ProjectionExpression) != "PK, d" {
			t.Fatalf("UnprocessedKeys lost the projection: %+v", u)
		}
	}
	if got != 50 {
		t.Fatalf("got %d items, want 50", got)
	}
}

// TestBatchWriteRecycledItemsKeepStoredItems: BatchWriteItem hands its item
// maps back for reuse once it has answered. Concurrent batches of items with
// different attributes, on both stores, must read back exactly as written —
// no attribute of a recycled map may reach a stored item or an index.
func TestBatchWriteRecycledItemsKeepStoredItems(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, _ bool) {
		c := clientFor(e)
		createGraphTable(t, c, "school")
		want := map[string]map[string]av{}
		var mu sync.Mutex
		var g errgroup.Group
		for w := range 4 {
			g.Go(func() error {
				for b := range 10 {
					var reqs []types.WriteRequest
					for i := range 25 {
						sk := fmt.Sprintf("w%d-b%02d-i%02d", w, b, i)
						item := map[string]av{"PK": s("P"), "SK": s(sk)}
						if i%2 == 0 { // every other item is in the index and has extras
							item["GSI1PK"], item["GSI1SK"] = s("G"), s(sk)
							item[fmt.Sprintf("extra%d", b%3)] = s(sk)
						}
						reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
						mu.Lock()
						want[sk] = item
						mu.Unlock()
					}
					if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}}); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]av{}
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String("school"),
			KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s("P")}})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				got[str(it, "SK")] = it
			}
		}
		if len(got) != len(want) {
			t.Fatalf("read %d items, wrote %d", len(got), len(want))
		}
		indexed := 0
		for sk, w := range want {
			if !reflect.DeepEqual(got[sk], w) {
				t.Fatalf("item %s reads back as %v, written as %v", sk, got[sk], w)
			}
			if _, ok := w["GSI1PK"]; ok {
				indexed++
			}
		}
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"), Select: types.SelectCount,
			KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}})
		if err != nil || int(q.Count) != indexed {
			t.Fatalf("index holds %d items, want %d (err %v)", q.Count, indexed, err)
		}
	})
}

// Which failure a batch request reports when it has several, as captured in
// two regions (2026-10-09): member constraints together in one message, a
// missing table after them; a malformed table name beside
// ReturnConsumedCapacity in BatchGetItem (RequestItems first), and in
// BatchWriteItem only once the enums pass.
func TestBatchRequestsReportTheirFirstFailures(t *testing.T) {
	e := layersEngine(t)
	const (
		rcc  = "Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
		ricm = "Value 'BOGUS2' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
		put  = `[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]`
		get  = `{"Keys":[{"pk":{"S":"a"}}]}`
	)
	checkRefusals(t, e, []refusalCase{
		{"WriteUnknownCapacity", "BatchWriteItem", `{"RequestItems":{"vltable":` + put + `},"ReturnConsumedCapacity":"BOGUS"}`, envelope + rcc},
		{"WriteUnknownMetrics", "BatchWriteItem", `{"RequestItems":{"vltable":` + put + `},"ReturnItemCollectionMetrics":"BOGUS2"}`, envelope + ricm},
		{"WriteBothEnums", "BatchWriteItem", `{"RequestItems":{"vltable":` + put + `},"ReturnConsumedCapacity":"BOGUS","ReturnItemCollectionMetrics":"BOGUS2"}`,
			"2 validation errors detected: " + rcc + "; " + ricm},
		{"WriteCapacityBeforeMissingTable", "BatchWriteItem", `{"RequestItems":{"vo_bw_missing":` + put + `},"ReturnConsumedCapacity":"BOGUS"}`, envelope + rcc},
		{"WriteCapacityAloneOverMalformedName", "BatchWriteItem", `{"RequestItems":{"bad!name":` + put + `},"ReturnConsumedCapacity":"BOGUS"}`, envelope + rcc},
		{"GetUnknownCapacity", "BatchGetItem", `{"RequestItems":{"vltable":` + get + `},"ReturnConsumedCapacity":"BOGUS"}`, envelope + rcc},
		{"GetCapacityBeforeMissingTable", "BatchGetItem", `{"RequestItems":{"vo_bg_missing":` + get + `},"ReturnConsumedCapacity":"BOGUS"}`, envelope + rcc},
		{"GetMalformedNameWithCapacity", "BatchGetItem", `{"RequestItems":{"bad!name":` + get + `},"ReturnConsumedCapacity":"BOGUS"}`,
			`2 validation errors detected: Value '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]; ` + rcc},
	})
	// The refused writes wrote nothing.
	_, raw := postRaw(t, e, "GetItem", `{"TableName":"vltable","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`)
	if string(raw) != "{}" {
		t.Errorf("after the refused writes, GetItem answered %s; want {}", raw)
	}
}
