package local

import (
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestConsumedCapacity(t *testing.T) {
	c := memGraphClient(t)
	edge := map[string]av{"PK": s("STU#a"), "SK": s("ENROLL#CRS#m"), "GSI1PK": s("CRS#m"), "GSI1SK": s("STU#a")}
	put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: edge,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cc := put.ConsumedCapacity
	if *cc.CapacityUnits != 2 || *cc.Table.CapacityUnits != 1 || *cc.GlobalSecondaryIndexes["GSI1"].CapacityUnits != 1 || *cc.TableName != "school" {
		t.Fatalf("PutItem INDEXES: total %v table %v gsi %+v", *cc.CapacityUnits, *cc.Table.CapacityUnits, cc.GlobalSecondaryIndexes)
	}
	// An item without index keys writes the table only.
	put, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
		Item: map[string]av{"PK": s("X"), "SK": s("Y"), "big": s(strings.Repeat("x", 1500))}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || *put.ConsumedCapacity.CapacityUnits != 2 || put.ConsumedCapacity.Table != nil {
		t.Fatalf("1.5 KB PutItem TOTAL: %v %+v", err, put.ConsumedCapacity)
	}
	get, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("X"), "SK": s("Y")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || *get.ConsumedCapacity.CapacityUnits != 0.5 {
		t.Fatalf("eventual GetItem: %v %+v", err, get.ConsumedCapacity)
	}
	get, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("X"), "SK": s("Y")},
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || *get.ConsumedCapacity.CapacityUnits != 1 {
		t.Fatalf("consistent GetItem: %v %+v", err, get.ConsumedCapacity)
	}
	tx, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("school"), Item: map[string]av{"PK": s("T"), "SK": s("T")}}}}})
	if err != nil || len(tx.ConsumedCapacity) != 1 || *tx.ConsumedCapacity[0].CapacityUnits != 2 {
		t.Fatalf("transactional put: %v %+v", err, tx.ConsumedCapacity)
	}
}

func TestQueryStopsAtOneMegabyte(t *testing.T) {
	c := memGraphClient(t)
	big := strings.Repeat("x", 100*1024)
	for i := 0; i < 15; i++ {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": s("P"), "SK": s(fmt.Sprintf("S%02d", i)), "d": s(big)}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s("P")}})
	if err != nil {
		t.Fatal(err)
	}
	// 100 KB items: the page stops once 1 MB has been read, with a cursor.
	if out.Count != 11 || out.LastEvaluatedKey == nil || str(out.LastEvaluatedKey, "SK") != "S10" {
		t.Fatalf("count %d lek %#v", out.Count, out.LastEvaluatedKey)
	}
	if *out.ConsumedCapacity.CapacityUnits < 130 {
		t.Fatalf("capacity of ~1.1 MB eventual read: %v", *out.ConsumedCapacity.CapacityUnits)
	}
}

func TestResponseChecksumAndGzip(t *testing.T) {
	e := openMem(t)
	createGraphTable(t, clientFor(e), "school")
	req, _ := newRequest("DynamoDB_20120810.DescribeTable", `{"TableName":"school"}`)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := e.HTTPClient().Transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	want, _ := strconv.ParseUint(resp.Header.Get("X-Amz-Crc32"), 10, 32)
	if uint32(want) != crc32.ChecksumIEEE(raw) {
		t.Fatalf("X-Amz-Crc32 %d does not match the body", want)
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("asked for gzip, got %q (%d bytes)", resp.Header.Get("Content-Encoding"), len(raw))
	}
	zr, err := gzip.NewReader(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !strings.Contains(string(body), `"TableName":"school"`) {
		t.Fatalf("body: %s", body)
	}
	// The SDK validates the checksum on every response; a mismatch would fail here.
	c := dynamodb.New(clientFor(e).Options(), func(o *dynamodb.Options) { o.EnableAcceptEncodingGzip = true })
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")}); err != nil {
		t.Fatalf("SDK with gzip: %v", err)
	}
}
