package attr

// ValidationError is a client error whose Msg is DynamoDB's own message, so
// the engine can return it verbatim as a ValidationException.
//
// DynamoDB checks a request's attribute values in one of two layers, and the
// operation decides which: the current one (PutItem, UpdateItem, DeleteItem,
// GetItem, BatchGetItem, Query) words a malformed number or a duplicate set
// member as Current, the older one (BatchWriteItem, the transactions, Scan)
// as Msg. Current is empty for an error both layers word alike or whose
// current wording is not known.
type ValidationError struct {
	Msg     string
	Current string
}

// Error returns the message unchanged so it can be sent to the client.
func (e *ValidationError) Error() string { return e.Msg }

func invalid(msg string) error { return &ValidationError{Msg: msg} }

// layered is a value error both layers report, worded by each.
func layered(older, current string) error { return &ValidationError{Msg: older, Current: current} }
