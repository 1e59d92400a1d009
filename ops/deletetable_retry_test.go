package ops

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// losingTransport loses the answer to the first DeleteTable: the server
// deletes the table, the client sees a reset connection and retries, as with
// the SDK's own closed-connection race seen against moto.
type losingTransport struct {
	next http.RoundTripper
	lost bool
}

func (t *losingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil && !t.lost && r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.DeleteTable" {
		t.lost = true
		resp.Body.Close()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return resp, err
}

// TestDeleteTableAnswerLost: when the SDK retries a DeleteTable whose first
// attempt deleted the table, the retry's "not found" is success; a
// DeleteTable of a missing table in one attempt is still not found.
func TestDeleteTableAnswerLost(t *testing.T) {
	eng, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://engine.invalid"),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Transport: &losingTransport{next: eng.HTTPClient().Transport}},
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
	})
	st := New(client, school(), Options{})
	ctx := context.Background()
	if _, err := st.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteTable(ctx, true); err != nil {
		t.Fatalf("delete whose answer was lost: %v", err)
	}
	var nf *TableNotFoundError
	if _, err := st.DescribeTable(ctx); !errors.As(err, &nf) {
		t.Fatalf("table still there after delete: %v", err)
	}
	if err := st.DeleteTable(ctx, false); !errors.As(err, &nf) {
		t.Fatalf("delete of a missing table: %v, want TableNotFoundError", err)
	}
}
