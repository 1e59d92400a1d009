package local

import (
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
)

// apiError is an error the engine reports to the client in DynamoDB's JSON
// error shape; Type is the bare exception name the SDK maps to its types.
type apiError struct {
	Type    string
	Message string
	Status  int // 400 unless set
	// Item is the old item for ConditionalCheckFailedException when the request
	// asked for ReturnValuesOnConditionCheckFailure=ALL_OLD.
	Item []byte // wire JSON of an item, nil when absent
	// Reasons is TransactionCanceledException's CancellationReasons.
	Reasons []cancelReason
	// namespace replaces errorNamespace in __type (authentication errors
	// come from DynamoDB's front end, not the service).
	namespace string
	// cancels marks a key that does not fit the table's schema: inside a
	// transaction DynamoDB reports it as the action's ValidationError
	// reason, not as the request's error.
	cancels bool
	// value is the attribute value error this reports (Message holds the
	// older value layer's words); inLayer rewords it for the operation.
	value *attr.ValidationError
}

// cancelReason is one entry of CancellationReasons, in request order.
type cancelReason struct {
	Code    string
	Message string
	Item    []byte // wire JSON of the item, nil when absent
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }

const (
	errValidation    = "ValidationException"
	errNotFound      = "ResourceNotFoundException"
	errInUse         = "ResourceInUseException"
	errConditional   = "ConditionalCheckFailedException"
	errTxCanceled    = "TransactionCanceledException"
	errIdempotent    = "IdempotentParameterMismatchException"
	errSerialization = "SerializationException"
	errUnknownOp     = "UnknownOperationException"
	errInternal      = "InternalServerError"
	errLimitExceeded = "LimitExceededException"
	errMissingAction = "MissingAction"
	errAccessDenied  = "AccessDeniedException"
)

// validationf builds a ValidationException with a formatted message.
func validationf(format string, args ...any) *apiError {
	return &apiError{Type: errValidation, Message: fmt.Sprintf(format, args...)}
}

// errKeySchema is the error of a key that does not fit the table's key
// schema (missing, extra or mistyped attributes).
func errKeySchema() *apiError {
	return &apiError{Type: errValidation, Message: "The provided key element does not match the schema", cancels: true}
}

// schemaMismatch is invalidParam for an item whose key or index key
// attributes do not fit the table (see apiError.cancels).
func schemaMismatch(format string, args ...any) *apiError {
	e := invalidParam(format, args...)
	e.cancels = true
	return e
}

// invalidParam is DynamoDB's common "One or more parameter values were
// invalid: ..." ValidationException.
func invalidParam(format string, args ...any) *apiError {
	return &apiError{Type: errValidation, Message: "One or more parameter values were invalid: " + fmt.Sprintf(format, args...)}
}

// resourceNotFound is what data-plane operations (items, queries) say about a
// missing table.
func resourceNotFound() *apiError {
	return &apiError{Type: errNotFound, Message: "Requested resource not found"}
}

// tableNotFound is what control-plane operations (DescribeTable, TTL,
// DeleteTable) say, naming the table.
func tableNotFound(name string) *apiError {
	return &apiError{Type: errNotFound, Message: "Requested resource not found: Table: " + name + " not found"}
}

func conditionFailed(item []byte) *apiError {
	return &apiError{Type: errConditional, Message: "The conditional request failed", Item: item}
}
