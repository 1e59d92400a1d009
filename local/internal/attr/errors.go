package attr

// ValidationError is a client error whose Msg is DynamoDB's own message, so
// the engine can return it verbatim as a ValidationException.
type ValidationError struct {
	Msg string
}

// Error returns the message unchanged so it can be sent to the client.
func (e *ValidationError) Error() string { return e.Msg }

func invalid(msg string) error { return &ValidationError{Msg: msg} }
