package local

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The TTL sweeper writes through group commit without ServeHTTP (it is not
// counted in Engine.requests). Running it alongside 8 writers - with the
// leader's and the syncer's yields in play, and a write-ahead log - must
// delete exactly the expired items and lose no write.
func TestSweepAmongWriters(t *testing.T) {
	e, c := openGraphFile(t)
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("school"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	past := fmt.Sprint(time.Now().Unix() - 100) // DynamoDB ignores values over five years old
	for i := range 60 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": s("old"), "SK": s(fmt.Sprint(i)), "exp": n(past)}}); err != nil {
			t.Fatal(err)
		}
	}
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		e.sweep()
	}()
	_, jobs, _ := putConcurrently(t, e, c, "school")
	<-swept
	if jobs < 200 {
		t.Fatalf("%d jobs committed, want at least the 200 puts", jobs)
	}
	if n := e.requests.Load(); n != 0 {
		t.Errorf("Engine.requests is %d after every request returned", n)
	}
	e.sweep() // in case the first sweep ran before the puts' yields mattered
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if str(it, "PK") == "old" {
			t.Fatalf("an expired item survived two sweeps: %v", it)
		}
	}
	if len(out.Items) != 200 {
		t.Fatalf("%d items after the sweep, want the 200 unexpired ones", len(out.Items))
	}
}
