package expr

// Error is an invalid expression or an update that cannot be applied; Msg is
// the complete DynamoDB message.
type Error struct {
	Msg string
}

// Error returns the message unchanged so it can be sent to the client.
func (e *Error) Error() string { return e.Msg }

func errorf(msg string) *Error { return &Error{Msg: msg} }

// Kind names the request parameter an expression came from; it selects the
// "Invalid <Kind>: " prefix of error messages.
type Kind string

// The expression parameters of the DynamoDB API.
const (
	ConditionExpression    Kind = "ConditionExpression"
	FilterExpression       Kind = "FilterExpression"
	UpdateExpression       Kind = "UpdateExpression"
	ProjectionExpression   Kind = "ProjectionExpression"
	KeyConditionExpression Kind = "KeyConditionExpression"
)

// maxExprLen is DynamoDB's 4 KB limit on any single expression string.
const maxExprLen = 4096

// Runtime update errors, verbatim from DynamoDB.
var (
	errInvalidPath    = errorf("The document path provided in the update expression is invalid for update")
	errBadOperandType = errorf("An operand in the update expression has an incorrect data type")
	errMissingAttr    = errorf("The provided expression refers to an attribute that does not exist in the item")
	// errLegacyTypeMismatch is what AttributeUpdates say where an
	// expression would say errBadOperandType.
	errLegacyTypeMismatch = errorf("Type mismatch for attribute to update")
)
