package local

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

func TestUpdateTableAddGSIBackfillsAndDeletes(t *testing.T) {
	c := seedEdges(t, 5)
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("school"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("i"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("ByI"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("i"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("ByI"),
		KeyConditionExpression: aws.String("i = :i"), ExpressionAttributeValues: map[string]av{":i": n("3")}})
	if err != nil {
		t.Fatal(err)
	}
	// Both students' edges to c03 have i = 3; KEYS_ONLY returns table and index keys only.
	if out.Count != 2 || len(out.Items[0]) != 3 || num(out.Items[0], "i") != "3" || out.Items[0]["grade"] != nil {
		t.Fatalf("backfilled index: %#v", out.Items)
	}
	// New writes are indexed too.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
		Item: map[string]av{"PK": s("X"), "SK": s("Y"), "i": n("3")}}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil || len(d.Table.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("describe: %v", err)
	}
	for _, x := range d.Table.GlobalSecondaryIndexes {
		if *x.IndexName == "ByI" && (*x.ItemCount != 11 || x.IndexStatus != types.IndexStatusActive) {
			t.Fatalf("ByI count %d status %s", *x.ItemCount, x.IndexStatus)
		}
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("ByI"), Select: types.SelectAllAttributes,
		KeyConditionExpression: aws.String("i = :i"), ExpressionAttributeValues: map[string]av{":i": n("3")}})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("ALL_ATTRIBUTES on KEYS_ONLY GSI: %v", err)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("school"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("ByI")}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("ByI"),
		KeyConditionExpression: aws.String("i = :i"), ExpressionAttributeValues: map[string]av{":i": n("3")}})
	if apiMessage(err) != "The table does not have the specified index: ByI" {
		t.Fatalf("query deleted index: %v", err)
	}
}

func TestUpdateTableBillingMode(t *testing.T) {
	c := memGraphClient(t)
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("school"), BillingMode: types.BillingModeProvisioned})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("PROVISIONED without throughput: %v", err)
	}
	out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("school"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("GSI1"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if d.BillingModeSummary.BillingMode != types.BillingModeProvisioned || *d.ProvisionedThroughput.WriteCapacityUnits != 7 {
		t.Fatalf("after update: %+v %+v", d.BillingModeSummary, d.ProvisionedThroughput)
	}
}

func TestTimeToLive(t *testing.T) {
	e := openMem(t)
	c := clientFor(e)
	createGraphTable(t, c, "school")
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("school")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Fatalf("initial TTL: %v %+v", err, ttl)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("school"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires")}})
	if err != nil {
		t.Fatal(err)
	}
	ttl, err = c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("school")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || *ttl.TimeToLiveDescription.AttributeName != "expires" {
		t.Fatalf("enabled TTL: %v %+v", err, ttl.TimeToLiveDescription)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("school"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires")}})
	if apiMessage(err) != "TimeToLive is already enabled" {
		t.Fatalf("enable twice: %v", err)
	}
	now := time.Now().Unix()
	for i, exp := range []int64{now - 60, now + 3600, now - 10*365*24*3600} {
		c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: map[string]av{
			"PK": s(fmt.Sprint("T", i)), "SK": s("x"), "GSI1PK": s("G"), "GSI1SK": s(fmt.Sprint(i)), "expires": n(fmt.Sprint(exp))}})
	}
	e.sweep()
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school")})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, it := range out.Items {
		left = append(left, str(it, "PK"))
	}
	// The expired item goes (from the index too); the future one stays, and so does
	// one "expired" more than five years ago, which DynamoDB ignores.
	if fmt.Sprint(left) != "[T1 T2]" && fmt.Sprint(left) != "[T2 T1]" {
		t.Fatalf("after sweep: %v", left)
	}
	q, _ := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}})
	if q.Count != 2 {
		t.Fatalf("index after sweep: %d", q.Count)
	}
	_, err = c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("missing")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("TTL of missing table: %v", err)
	}
}

func TestTags(t *testing.T) {
	c := memGraphClient(t)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/school"
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}, {Key: aws.String("env"), Value: aws.String("dev")}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"env"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil || len(out.Tags) != 1 || *out.Tags[0].Key != "team" || *out.Tags[0].Value != "a" {
		t.Fatalf("tags: %v %+v", err, out)
	}
	// Listing the tags of an ARN that names no table is refused as access
	// to a resource the caller may not read; tagging one is not found.
	missing := strings.Replace(arn, "school", "nope", 1)
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
	var denied *smithy.GenericAPIError
	if !errors.As(err, &denied) || denied.Code != "AccessDeniedException" {
		t.Fatalf("tags of missing table: %v", err)
	}
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("tagging a missing table: %v", err)
	}
}
