package cmd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// answering is an HTTP client that answers every request with status and
// body, counting the requests.
type answering struct {
	status int
	body   string
	n      atomic.Int64
}

func (c *answering) Do(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body: io.NopCloser(strings.NewReader(c.body))}, nil
}

func policyClient(cfg aws.Config, hc aws.HTTPClient) *dynamodb.Client {
	cfg.Region, cfg.Credentials, cfg.HTTPClient = "us-east-1", aws.AnonymousCredentials{}, hc
	return dynamodb.NewFromConfig(cfg, retryPolicy, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String("http://db.invalid") })
}

// TestRetryPolicy pins adjl's retry policy (retry.go): 4 attempts; full
// jitter up to 25 ms·2^n for transient errors and 1 s·2^n for throttling;
// answers are not retried; the user's max_attempts wins.
func TestRetryPolicy(t *testing.T) {
	r := policyClient(aws.Config{}, nil).Options().Retryer
	if n := r.MaxAttempts(); n != 4 {
		t.Errorf("max attempts %d, want 4", n)
	}
	throttled := &smithy.GenericAPIError{Code: "ThrottlingException"}
	server := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 500}},
		Err: &types.InternalServerError{Message: aws.String("x")}}
	for _, err := range []error{throttled, &types.ProvisionedThroughputExceededException{}, server,
		&smithy.GenericAPIError{Code: "TransactionInProgressException"}, &smithyhttp.RequestSendError{Err: io.ErrUnexpectedEOF}} {
		if !r.IsErrorRetryable(err) {
			t.Errorf("%T %v: not retried", err, err)
		}
	}
	for _, err := range []error{&types.ConditionalCheckFailedException{}, &types.TransactionCanceledException{},
		&smithy.GenericAPIError{Code: "ValidationException"}} {
		if r.IsErrorRetryable(err) {
			t.Errorf("%T: retried, but it is an answer", err)
		}
	}
	longest := func(attempt int, err error) (d time.Duration) {
		for range 300 {
			got, derr := r.RetryDelay(attempt, err)
			if derr != nil {
				t.Fatal(derr)
			}
			d = max(d, got)
		}
		return d
	}
	if d := longest(1, server); d > 25*time.Millisecond || d < 10*time.Millisecond {
		t.Errorf("first retry after a server error waits up to %v, want up to 25ms", d)
	}
	if d := longest(3, server); d > 100*time.Millisecond || d < 50*time.Millisecond {
		t.Errorf("third retry after a server error waits up to %v, want up to 100ms", d)
	}
	if d := longest(1, throttled); d > time.Second || d < 500*time.Millisecond {
		t.Errorf("first retry after throttling waits up to %v, want up to 1s", d)
	}
	if n := policyClient(aws.Config{RetryMaxAttempts: 2}, nil).Options().Retryer.MaxAttempts(); n != 2 {
		t.Errorf("with max_attempts 2 configured: %d attempts", n)
	}
}

// TestRetryPolicySendsFourAttempts: a backend that always fails with 500
// gets the request four times.
func TestRetryPolicySendsFourAttempts(t *testing.T) {
	hc := &answering{status: 500, body: `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"boom"}`}
	_, err := policyClient(aws.Config{}, hc).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("school"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}})
	var ise *types.InternalServerError
	if !errors.As(err, &ise) {
		t.Fatalf("got %v, want InternalServerError", err)
	}
	if n := hc.n.Load(); n != 4 {
		t.Errorf("%d attempts, want 4", n)
	}
}

// TestRetryPolicyGivesWayToTheEnvironment: AWS_MAX_ATTEMPTS and
// AWS_RETRY_MODE replace the policy on a server at a URL and on the
// embedded engine too, whose SDK configuration adjl builds itself.
func TestRetryPolicyGivesWayToTheEnvironment(t *testing.T) {
	isolate(t)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"boom"}`))
	}))
	defer srv.Close()
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", srv.URL, "get", "STU#a91")
	if r.code != ExitUnreachable || n.Load() != 1 {
		t.Errorf("with AWS_MAX_ATTEMPTS=1: exit %d after %d requests, want exit %d after 1\n%s", r.code, n.Load(), ExitUnreachable, r.err)
	}

	var env map[string]string
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, cfg := range []aws.Config{localConfig(nil), {Region: "us-east-1"}} {
		env = map[string]string{"AWS_RETRY_MODE": "adaptive"}
		if r := dynamodb.NewFromConfig(retryEnv(cfg, getenv), retryPolicy).Options().Retryer; !isAdaptive(r) {
			t.Errorf("with AWS_RETRY_MODE=adaptive: retryer %T", r)
		}
		env = map[string]string{"AWS_MAX_ATTEMPTS": "2"}
		if n := dynamodb.NewFromConfig(retryEnv(cfg, getenv), retryPolicy).Options().Retryer.MaxAttempts(); n != 2 {
			t.Errorf("with AWS_MAX_ATTEMPTS=2: %d attempts", n)
		}
	}
	env = map[string]string{"AWS_MAX_ATTEMPTS": "many", "AWS_RETRY_MODE": "eager"}
	if n := dynamodb.NewFromConfig(retryEnv(localConfig(nil), getenv), retryPolicy).Options().Retryer.MaxAttempts(); n != retryMaxAttempts {
		t.Errorf("with values the SDK refuses: %d attempts, want the policy's %d", n, retryMaxAttempts)
	}
}

func isAdaptive(r aws.Retryer) bool {
	_, ok := r.(*retry.AdaptiveMode)
	return ok
}
