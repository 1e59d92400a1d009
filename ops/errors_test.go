package ops

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func TestClassify(t *testing.T) {
	st := New(newEngine(t), school(), Options{})
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: "m"} }
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	cases := []struct {
		err  error
		want any
	}{
		{&types.ResourceNotFoundException{Message: aws.String("x")}, new(*TableNotFoundError)},
		{api("UnrecognizedClientException"), new(*UnauthorizedError)},
		{api("AccessDeniedException"), new(*UnauthorizedError)},
		{api("ExpiredTokenException"), new(*UnauthorizedError)},
		{api("MissingAuthenticationToken"), new(*UnauthorizedError)},
		{api("InvalidSignatureException"), new(*UnauthorizedError)},
		{&types.ProvisionedThroughputExceededException{Message: aws.String("x")}, new(*ThrottledError)},
		{api("ThrottlingException"), new(*ThrottledError)},
		{&types.RequestLimitExceeded{Message: aws.String("x")}, new(*ThrottledError)},
		{&types.LimitExceededException{Message: aws.String("x")}, new(*ThrottledError)},
		{api("ValidationException"), new(*RejectedError)},
		{api("SerializationException"), new(*RejectedError)},
		{api("InternalServerError"), new(*ServerError)},
		{api("ServiceUnavailableException"), new(*ServerError)},
		{&types.TransactionConflictException{Message: aws.String("x")}, new(*ConflictError)},
		{&types.ConditionalCheckFailedException{Message: aws.String("x")}, new(*ConflictError)},
		{&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String("TransactionConflict")}}}, new(*ConflictError)},
		{&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ThrottlingError")}}}, new(*ThrottledError)},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:1/", Err: opErr}, new(*UnreachableError)},
		{&smithyhttp.RequestSendError{Err: opErr}, new(*UnreachableError)},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid"}, new(*UnreachableError)},
		{context.DeadlineExceeded, new(*UnreachableError)},
		{&types.InternalServerError{Message: aws.String("x")}, new(*ServerError)},
		{api("ServiceUnavailable"), new(*ServerError)},
		{&smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 502}}, Err: api("BadGateway")}, new(*ServerError)},
	}
	for _, c := range cases {
		got := st.classify(c.err)
		if !errors.As(got, c.want) {
			t.Errorf("%T %v: classified as %T %v", c.err, c.err, got, got)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%v: original not wrapped", c.err)
		}
	}
	var ue *UnreachableError
	if errors.As(st.classify(&url.Error{Op: "Post", URL: "http://127.0.0.1:9/x", Err: opErr}), &ue) {
		eq(t, "endpoint", ue.Endpoint, "http://127.0.0.1:9")
	}
	if err := st.classify(context.Canceled); err != context.Canceled {
		t.Errorf("cancel: %v", err)
	}
	// DynamoDB's item size limit, on a lone write and in a transaction, is
	// said in adjl's words (no SDK wrapping, no RequestID); another refused
	// transaction action is an input error too, not unclassified.
	tooLarge := "the item would be over DynamoDB's 400 KB item size limit (its attribute names and values together)"
	for _, err := range []error{
		&smithy.GenericAPIError{Code: "ValidationException", Message: "Item size has exceeded the maximum allowed size"},
		&smithy.GenericAPIError{Code: "ValidationException", Message: "Item size to update has exceeded the maximum allowed size"},
		&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
			{Code: aws.String("None")}, {Code: aws.String("ValidationError"), Message: aws.String("Item size has exceeded the maximum allowed size")}}},
	} {
		var re *RejectedError
		if got := st.classify(err); !errors.As(got, &re) || !re.ItemTooLarge || got.Error() != tooLarge {
			t.Errorf("%v: classified as %T %q, want a RejectedError saying %q", err, got, got, tooLarge)
		}
	}
	badAction := &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
		{Code: aws.String("ValidationError"), Message: aws.String("One or more parameter values were invalid")}}}
	var re *RejectedError
	if got := st.classify(badAction); !errors.As(got, &re) || re.ItemTooLarge {
		t.Errorf("a transaction action refused as invalid: classified as %T %v, want a RejectedError", got, got)
	}
	other := api("ItemCollectionSizeLimitExceededException")
	if got := st.classify(other); !errors.Is(got, other) || errors.As(got, new(*ConflictError)) {
		t.Errorf("another code: %T", got)
	}
}

// TestErrorsThroughOperations: a hook fails every request before it is sent; each Store
// method reports the typed error.
func TestErrorsThroughOperations(t *testing.T) {
	st, m, rel := schoolStore(t)
	m.inject = func(string, any) error { return &types.ResourceNotFoundException{Message: aws.String("x")} }
	var nf *TableNotFoundError
	_, _, err := st.Link(ctx, rel, "a", "b", nil)
	if !errors.As(err, &nf) || nf.Table != "school" {
		t.Errorf("link: %v", err)
	}
	if _, err := st.List(ctx, ListQuery{Relation: rel, Key: "a"}); !errors.As(err, &nf) {
		t.Errorf("list: %v", err)
	}
	m.inject = func(string, any) error {
		return &smithyhttp.RequestSendError{Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	}
	var ue *UnreachableError
	if _, err := st.GetEntity(ctx, "STU#a", false); !errors.As(err, &ue) {
		t.Errorf("get: %v", err)
	}
	if _, err := st.DescribeTable(ctx); !errors.As(err, &ue) {
		t.Errorf("describe: %v", err)
	}
	// A transaction that fails on a counter item, not on the edge, is a conflict.
	m.inject = func(op string, _ any) error {
		if op != "TransactWriteItems" {
			return nil
		}
		return &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")}}}
	}
	var ce *ConflictError
	if _, _, err := st.Link(ctx, rel, "a", "b", nil); !errors.As(err, &ce) {
		t.Errorf("conflict: %v", err)
	}
}

// TestRealClientConnectionRefused runs the SDK's own error chain for a
// closed loopback port.
func TestRealClientConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	st := New(client, school(), Options{})
	_, err = st.DescribeTable(ctx)
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("got %T %v", err, err)
	}
	eq(t, "endpoint", ue.Endpoint, "http://"+addr)
}

// TestStorageFailureIsNotRetried: while the embedded engine reports a
// storage failure (a full disk), a failed request is a StorageFailureError,
// which bulk commands do not send again; the same 500 without one is a
// ServerError, which they do.
func TestStorageFailureIsNotRetried(t *testing.T) {
	var failure error
	st := New(newEngine(t), school(), Options{StorageFailure: func() error { return failure }})
	answer := &types.InternalServerError{Message: aws.String("The server encountered an internal error")}
	if err := st.classify(answer); !errors.As(err, new(*ServerError)) || !retryable(err) {
		t.Errorf("a 500 without a storage failure: %T, retryable %v", err, retryable(err))
	}
	failure = errors.New("write data.db-wal1: no space left on device")
	err := st.classify(answer)
	var sf *StorageFailureError
	if !errors.As(err, &sf) || !errors.Is(err, failure) || !errors.Is(err, answer) {
		t.Fatalf("got %T %v, want a StorageFailureError wrapping both", err, err)
	}
	if retryable(err) {
		t.Error("a storage failure is retried")
	}
}
