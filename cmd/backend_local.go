package cmd

import (
	"errors"
	"fmt"
	"io/fs"

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
		return nil, &dataFileError{path: path, err: err}
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

// dataFileError is a data file the embedded engine cannot open (no
// permission, a directory, not a data file): the local backend is
// unavailable, like a server that cannot be reached.
type dataFileError struct {
	path string
	err  error
}

func (e *dataFileError) Error() string {
	var pe *fs.PathError
	var fe *local.FormatError
	if errors.As(e.err, &fe) {
		return fmt.Sprintf("cannot open data file %s: its format (%d) is newer than this adjl reads (%d)", e.path, fe.Format, fe.Supported)
	}
	if errors.As(e.err, &pe) {
		if pe.Path == e.path {
			return fmt.Sprintf("cannot open data file %s: %v", e.path, pe.Err)
		}
		return fmt.Sprintf("cannot open data file %s: %s %s: %v", e.path, pe.Op, pe.Path, pe.Err)
	}
	return fmt.Sprintf("cannot open data file %s: %v", e.path, e.err)
}

func (e *dataFileError) Unwrap() error { return e.err }
