package local

import "fmt"

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
)

// validationf builds a ValidationException with a formatted message.
func validationf(format string, args ...any) *apiError {
	return &apiError{Type: errValidation, Message: fmt.Sprintf(format, args...)}
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
