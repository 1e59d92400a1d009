package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

var ctx = context.Background()

// setup serves an in-memory engine on loopback with a table "items" (hash key
// pk) behind a proxy with cfg, and returns a client of the proxy that does
// not retry, and one of the engine itself.
func setup(t *testing.T, cfg Config) (proxied, direct *dynamodb.Client, p *Proxy) {
	t.Helper()
	engine := backendtest.EngineURL(t)
	p, err := New(engine, cfg)
	if err != nil {
		t.Fatal(err)
	}
	proxySrv := httptest.NewServer(p)
	t.Cleanup(proxySrv.Close)
	client := func(url string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
			Credentials: aws.AnonymousCredentials{}, Retryer: aws.NopRetryer{}})
	}
	direct = client(engine)
	_, err = direct.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("items"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	return client(proxySrv.URL), direct, p
}

func always(f Fault) Config {
	return Config{Decide: func(string, int) (Fault, bool) { return f, true }}
}

func put(c *dynamodb.Client, pk string) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
	return err
}

func stored(t *testing.T, c *dynamodb.Client, pk string) bool {
	t.Helper()
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item != nil
}

func TestErrorFaultsAnswerInDynamoDBShapeAndApplyNothing(t *testing.T) {
	for _, c := range []struct {
		fault  Fault
		code   string
		status int
	}{
		{Throttling, "ThrottlingException", 400},
		{ProvisionedThroughput, "ProvisionedThroughputExceededException", 400},
		{InternalError, "InternalServerError", 500},
	} {
		t.Run(c.fault.String(), func(t *testing.T) {
			proxied, direct, _ := setup(t, always(c.fault))
			err := put(proxied, "a")
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != c.code {
				t.Fatalf("got %v, want API error %s", err, c.code)
			}
			var re *smithyhttp.ResponseError
			if !errors.As(err, &re) || re.HTTPStatusCode() != c.status {
				t.Errorf("status: %v, want %d", err, c.status)
			}
			if stored(t, direct, "a") {
				t.Error("the refused request was applied")
			}
		})
	}
}

func TestDroppedConnectionsBeforeAndAfterTheRequestIsApplied(t *testing.T) {
	for _, c := range []struct {
		fault   Fault
		applied bool
	}{{DropBefore, false}, {DropAfter, true}} {
		t.Run(c.fault.String(), func(t *testing.T) {
			proxied, direct, _ := setup(t, always(c.fault))
			err := put(proxied, "a")
			var apiErr smithy.APIError
			if err == nil || errors.As(err, &apiErr) {
				t.Fatalf("got %v, want a transport error (no answer)", err)
			}
			if got := stored(t, direct, "a"); got != c.applied {
				t.Errorf("applied = %v, want %v", got, c.applied)
			}
		})
	}
}

func TestUnprocessedBatchWriteAppliesExactlyWhatItDoesNotReturn(t *testing.T) {
	proxied, direct, _ := setup(t, always(Unprocessed))
	var reqs []types.WriteRequest
	for i := range 7 {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}}})
	}
	out, err := proxied.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"items": reqs}})
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]bool{}
	for _, r := range out.UnprocessedItems["items"] {
		back[r.PutRequest.Item["pk"].(*types.AttributeValueMemberS).Value] = true
	}
	if len(back) == 0 || len(back) == 7 {
		t.Fatalf("%d of 7 unprocessed, want some but not all", len(back))
	}
	for i := range 7 {
		pk := fmt.Sprint("k", i)
		if stored(t, direct, pk) == back[pk] {
			t.Errorf("%s: stored %v, returned unprocessed %v", pk, !back[pk], back[pk])
		}
	}
}

func TestUnprocessedBatchGetReturnsTheKeysItDidNotRead(t *testing.T) {
	proxied, direct, _ := setup(t, always(Unprocessed))
	keys := []map[string]types.AttributeValue{}
	for i := range 5 {
		pk := fmt.Sprint("k", i)
		if err := put(direct, pk); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}})
	}
	out, err := proxied.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"items": {Keys: keys, ConsistentRead: aws.Bool(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	got, un := len(out.Responses["items"]), out.UnprocessedKeys["items"]
	if got == 0 || len(un.Keys) == 0 || got+len(un.Keys) != 5 {
		t.Fatalf("%d items read and %d keys unprocessed, want a split of 5", got, len(un.Keys))
	}
	if !aws.ToBool(un.ConsistentRead) {
		t.Error("the unprocessed keys lost ConsistentRead")
	}
}

func TestUnprocessedOfASingleRequestIsThrottling(t *testing.T) {
	proxied, _, _ := setup(t, always(Unprocessed))
	_, err := proxied.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"items": {
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}}}}})
	var pte *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pte) {
		t.Fatalf("got %v, want ProvisionedThroughputExceededException", err)
	}
}

func TestRateInjectsAboutThatShareAndRecordsTokens(t *testing.T) {
	proxied, _, p := setup(t, Config{Rate: 0.1, Seed: 7, Faults: []Fault{Throttling, InternalError}})
	const n = 1000
	for range n {
		_, _ = proxied.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"),
			TransactItems: []types.TransactWriteItem{{ConditionCheck: &types.ConditionCheck{TableName: aws.String("items"),
				Key:                 map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
				ConditionExpression: aws.String("attribute_not_exists(pk)")}}}})
	}
	inj := p.Injected()
	if total := inj[Throttling] + inj[InternalError]; total < 60 || total > 140 {
		t.Errorf("%d faults in %d requests at rate 0.1", total, n)
	}
	if inj[DropAfter] != 0 {
		t.Errorf("injected %v, outside the configured faults", inj)
	}
	log := p.Log()
	if len(log) != n || log[0].Op != "TransactWriteItems" || log[0].Token != "tok" {
		t.Errorf("log: %d entries, first %+v", len(log), log[0])
	}
}

// TestEveryFaultIsDrawnBeforeAnyTwice: the first faults of a run are each
// kind once, so a short run under a low rate still meets every kind.
func TestEveryFaultIsDrawnBeforeAnyTwice(t *testing.T) {
	kinds := []Fault{Throttling, ProvisionedThroughput, InternalError, DropBefore, DropAfter}
	for seed := range uint64(20) {
		p, err := New("http://127.0.0.1:1", Config{Rate: 1, Seed: seed, Faults: kinds})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[Fault]bool{}
		for range kinds {
			f, ok := p.decide("GetItem", nil)
			if !ok || seen[f] {
				t.Fatalf("seed %d: drew %v (ok %t) after %v", seed, f, ok, seen)
			}
			seen[f] = true
		}
	}
}
