package partiql

import "fmt"

// Error is a statement DynamoDB refuses, with DynamoDB's complete message.
// The engine reports it as a ValidationException.
type Error struct {
	Msg string
	// Cancels marks a statement whose WHERE does not name one item: a
	// transaction reports it as the statement's cancellation reason
	// (ValidationError) rather than refusing the request.
	Cancels bool
}

// Error returns the message unchanged so it can be sent to the client.
func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// malformed is DynamoDB's syntax error; detail names what the parser
// expected, and is empty for a statement it could not even split into
// tokens.
func malformed(detail string) *Error {
	return &Error{Msg: "Statement wasn't well formed, can't be processed: " + detail}
}

// errorAt is a message that points at a token: "... at 1:52:6".
func errorAt(p Pos, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...) + " at " + p.String()}
}

// Messages DynamoDB gives for statements it reads but will not run.
const (
	msgMandatoryKey      = "Where clause does not contain a mandatory equality on all key attributes"
	msgAliasing          = "Aliasing is not supported"
	msgParamCount        = "Number of parameters in request and statement don't match."
	msgOverlap           = "Overlapping conditions with range keys are not supported in where clause"
	msgTooManyReads      = "Too many decomposed read operations for a given query."
	msgStarAndOthers     = "Other attributes should not be present in the projection when '*' is used."
	msgInsertFormat      = "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."
	msgInsertReturning   = "RETURNING is not supported in INSERT"
	msgEmptyBag          = "Empty bags are not supported"
	msgBagType           = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
	msgMissingCompare    = "MISSING must be compared using IS operator"
	msgExistsShape       = "EXISTS() must contain a single item read with additional condition"
	msgSingleFrom        = "Only select from a single table or index is supported."
	msgFromPath          = "A path may contain at most 2 components in the FROM clause"
	msgFromSource        = "Unexpected from source"
	msgReturningStar     = "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"
	msgReturningMany     = "Invalid syntax with multiple returning elements in RETURNING clause"
	msgOrderByNoWhere    = "Must have WHERE clause in the statement when using ORDER BY clause."
	msgOrderByNoHash     = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
	msgOrderByHashNeeded = "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."
	msgIsInUpdate        = "IS operator is not supported in update expressions"
	msgInOperands        = "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"
	msgNotOperand        = "The argument to NOT must be a Type or Expression"
	msgAndOrOperands     = "The arguments to AND/OR must be Expressions"
	msgWhereBoolean      = "WHERE clause must contain an expression that resolves to a boolean"
)
