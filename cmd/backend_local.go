package cmd

import (
	"errors"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// openEngine opens the embedded engine's data file (or a throw-away one).
func openEngine(path string, inMemory bool) (engine, error) {
	e, err := local.Open(path, local.Options{InMemory: inMemory})
	if err != nil {
		var locked *local.LockedError
		if errors.As(err, &locked) {
			return nil, &lockedError{err: err}
		}
		return nil, err
	}
	return e, nil
}

// openLocal is --endpoint local: the embedded engine in process, reached
// through the SDK with an HTTP client that never opens a socket.
func openLocal(path string) (*backend, error) {
	e, err := openEngine(path, false)
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(localConfig(e.HTTPClient()))
	return &backend{api: client, describe: "local (file " + path + ")", close: e.Close}, nil
}
