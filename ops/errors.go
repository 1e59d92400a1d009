package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ErrItemNotFound is returned by GetEntity when no item has the key.
var ErrItemNotFound = errors.New("item not found")

// TableNotFoundError reports that the schema's table does not exist on the backend.
type TableNotFoundError struct {
	Table string
	// Where names the backend for messages ("the server at http://..."),
	// when the caller knows it.
	Where string
	Err   error
}

func (e *TableNotFoundError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("table %s not found in %s — run `adjl table create`", e.Table, e.Where)
	}
	return fmt.Sprintf("table %s not found — run `adjl table create`", e.Table)
}

func (e *TableNotFoundError) Unwrap() error { return e.Err }

// TableMismatchError reports that the table exists but differs from the schema.
type TableMismatchError struct {
	Table       string
	Differences []string
	// Hint is the remedy when the differences name one (a shard change is
	// fixed by reshard, not by recreating the table); empty otherwise.
	Hint string
	// Err is the backend's refusal that revealed the difference, if any.
	Err error
}

func (e *TableMismatchError) Error() string {
	return fmt.Sprintf("table %s differs from the schema: %s", e.Table, strings.Join(e.Differences, "; "))
}

func (e *TableMismatchError) Unwrap() error { return e.Err }

// InputError is a problem with what the user asked for (bad cursor,
// --consistent on the index...), found before or instead of a request.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// HasEdgesError refuses to delete an entity that still has edges. Count is
// what a small probe found (at least 1), not a full count: counting a
// celebrity's followers to refuse a delete would read them all.
type HasEdgesError struct {
	Key   string
	Count int
}

func (e *HasEdgesError) Error() string {
	return fmt.Sprintf("%s still has edges; unlink them first or delete with --cascade", e.Key)
}

// ConflictError is a transaction conflict or an unexpected condition failure.
type ConflictError struct {
	Msg string
	Err error
}

func (e *ConflictError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Msg, e.Err)
	}
	return e.Msg
}

func (e *ConflictError) Unwrap() error { return e.Err }

// UnreachableError reports a backend that cannot be reached.
type UnreachableError struct {
	Endpoint string
	Err      error
}

func (e *UnreachableError) Error() string {
	if e.Endpoint != "" {
		return fmt.Sprintf("backend %s unreachable: %v", e.Endpoint, e.Err)
	}
	return fmt.Sprintf("backend unreachable: %v", e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// UnauthorizedError reports credentials the backend refused.
type UnauthorizedError struct{ Err error }

func (e *UnauthorizedError) Error() string {
	return fmt.Sprintf("backend refused the credentials: %v", e.Err)
}

func (e *UnauthorizedError) Unwrap() error { return e.Err }

// RejectedError is a request the backend refused as malformed
// (ValidationException): an input error as far as the user is concerned.
type RejectedError struct {
	Err error
	// ItemTooLarge: the write would make an item over DynamoDB's 400 KB
	// limit, which only the backend can tell (the item's other attributes
	// count too); the message says so in adjl's words.
	ItemTooLarge bool
}

func (e *RejectedError) Error() string {
	if e.ItemTooLarge {
		return "the item would be over DynamoDB's 400 KB item size limit (its attribute names and values together)"
	}
	return fmt.Sprintf("the backend refused the request: %v", e.Err)
}

// itemTooLarge reports whether a ValidationException's message is
// DynamoDB's item size limit: "Item size has exceeded the maximum allowed
// size" (PutItem, a transaction) or "Item size to update has exceeded the
// maximum allowed size" (UpdateItem).
func itemTooLarge(msg string) bool {
	return strings.HasPrefix(msg, "Item size") && strings.Contains(msg, "exceeded the maximum allowed size")
}

func (e *RejectedError) Unwrap() error { return e.Err }

// ThrottledError reports a request still throttled after the SDK's retries.
type ThrottledError struct{ Err error }

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("throttled by the backend after retries: %v", e.Err)
}

func (e *ThrottledError) Unwrap() error { return e.Err }

// ServerError reports a backend that kept failing (HTTP 5xx:
// InternalServerError, ServiceUnavailable) through the SDK's retries.
type ServerError struct{ Err error }

func (e *ServerError) Error() string {
	return fmt.Sprintf("the backend failed after retries: %v", e.Err)
}

func (e *ServerError) Unwrap() error { return e.Err }

// StorageFailureError is a request the embedded engine failed because its
// data file could not be written (Options.StorageFailure): retrying cannot
// help until the file is reopened.
type StorageFailureError struct {
	Failure error // the storage failure
	Err     error // the request's error
}

func (e *StorageFailureError) Error() string {
	return fmt.Sprintf("the data file cannot be written: %v", e.Failure)
}

func (e *StorageFailureError) Unwrap() []error { return []error{e.Failure, e.Err} }

// Error codes, grouped by how adjl reports them.
var (
	authCodes = []string{"UnrecognizedClientException", "AccessDeniedException", "InvalidSignatureException",
		"ExpiredTokenException", "MissingAuthenticationToken", "MissingAuthenticationTokenException",
		"IncompleteSignatureException", "InvalidClientTokenId", "SignatureDoesNotMatch"}
	throttleCodes = []string{"ProvisionedThroughputExceededException", "ThrottlingException",
		"RequestLimitExceeded", "Throttling", "ThrottlingError", "ProvisionedThroughputExceeded",
		"LimitExceededException"}
	// rejectedCodes are requests the backend refused as malformed: adjl
	// checks its input first, so one of these is a request the backend reads
	// differently (a server's own limits, a key type it was not created with).
	rejectedCodes = []string{"ValidationException", "SerializationException"}
	conflictCodes = []string{"TransactionConflictException", "ConditionalCheckFailedException",
		"TransactionInProgressException"}
	// serverCodes are the backend failing to serve the request, after the
	// SDK's retries.
	serverCodes = []string{"InternalServerError", "InternalFailure", "ServiceUnavailable",
		"ServiceUnavailableException"}
)

// classify maps an SDK error to adjl's error types, in one place, keeping the
// original wrapped. Callers that expect a condition failure look for the SDK
// type (ConditionalCheckFailedException, TransactionCanceledException) with
// errors.As through the wrapper.
func (s *Store) classify(err error) error {
	if err == nil {
		return nil
	}
	if s.opt.StorageFailure != nil {
		if f := s.opt.StorageFailure(); f != nil {
			return &StorageFailureError{Failure: f, Err: err}
		}
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code := apiErr.ErrorCode()
		switch {
		case code == "ResourceNotFoundException":
			return &TableNotFoundError{Table: s.schema.Table.Name, Err: err}
		case slices.Contains(authCodes, code):
			return &UnauthorizedError{Err: err}
		case slices.Contains(throttleCodes, code):
			return &ThrottledError{Err: err}
		case slices.Contains(conflictCodes, code):
			return &ConflictError{Msg: "conditional write conflict", Err: err}
		case code == "TransactionCanceledException":
			return classifyCancel(err)
		case slices.Contains(serverCodes, code) || httpStatus(err) >= 500:
			return &ServerError{Err: err}
		case code == "ValidationException" && keysMismatch(apiErr.ErrorMessage()):
			return &TableMismatchError{Table: s.schema.Table.Name,
				Differences: []string{"its keys or index are not the ones the schema names (" + apiErr.ErrorMessage() + ")"},
				Hint:        "run adjl table describe: it shows the table's keys and index layout and, when adjl can serve them, how the schema names them",
				Err:         err}
		case slices.Contains(rejectedCodes, code):
			return &RejectedError{Err: err, ItemTooLarge: itemTooLarge(apiErr.ErrorMessage())}
		}
		return fmt.Errorf("dynamodb: %w", err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var badBody *smithy.DeserializationError
	if errors.As(err, &badBody) {
		// An answer that is not DynamoDB's JSON (an HTML error page, a
		// proxy, another protocol): no DynamoDB backend is there to use.
		ep := ""
		var resp *smithyhttp.ResponseError
		if errors.As(err, &resp) && resp.Response != nil && resp.Response.Request != nil {
			ep = endpointOf(resp.Response.Request.URL.String())
		}
		return &UnreachableError{Endpoint: ep, Err: err}
	}
	var urlErr *url.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var sendErr *smithyhttp.RequestSendError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &urlErr):
		return &UnreachableError{Endpoint: endpointOf(urlErr.URL), Err: err}
	case errors.As(err, &opErr), errors.As(err, &dnsErr), errors.As(err, &sendErr),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &timeout) && timeout.Timeout():
		return &UnreachableError{Err: err}
	}
	return err
}

// httpStatus is the HTTP status of an error answer, 0 if there was none.
func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// keysMismatch reports a refusal saying a request's keys are not the
// table's: the schema names other key attributes or another index than the
// table has (DynamoDB's, moto's and the embedded engine's wording).
func keysMismatch(msg string) bool {
	for _, m := range []string{"key schema element", "key element does not match the schema", "Missing the key", "does not have the specified index"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// classifyCancel tells a throttled or conflicting transaction apart by its
// cancellation reasons.
func classifyCancel(err error) error {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			code := aws.ToString(r.Code)
			if slices.Contains(throttleCodes, code) {
				return &ThrottledError{Err: err}
			}
			if code == "ValidationError" {
				// One action was malformed (an item over 400 KB): the
				// request is refused, as a lone write's ValidationException.
				return &RejectedError{Err: err, ItemTooLarge: itemTooLarge(aws.ToString(r.Message))}
			}
		}
	}
	return &ConflictError{Msg: "transaction cancelled", Err: err}
}

// cancelledByCondition reports whether err is a cancelled transaction whose
// item i failed its condition (the edge already exists, or is already gone).
func cancelledByCondition(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	return aws.ToString(tce.CancellationReasons[i].Code) == "ConditionalCheckFailed"
}

// conditionFailed reports whether a single-item write failed its condition.
func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

func endpointOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// errorCode is the API error code of err, "" if it has none.
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}
