package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// openEngine opens the embedded engine's data file (or a throw-away one).
func openEngine(path string, inMemory bool) (engine, error) {
	return openEngineOptions(path, local.Options{InMemory: inMemory})
}

// openEngineWithin opens the data file, waiting at most lockTimeout for
// another process's lock.
func openEngineWithin(path string, lockTimeout time.Duration) (engine, error) {
	return openEngineOptions(path, local.Options{LockTimeout: lockTimeout})
}

func openEngineOptions(path string, opt local.Options) (engine, error) {
	e, err := local.Open(path, opt)
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
// through the SDK with an HTTP client that never opens a socket. When an
// `adjl local serve` holds the data file, the command talks to it instead.
// Only a command that creates tables creates a missing data file: any other
// reads an empty engine in memory instead, which has no table, so it says
// which file was looked for and that the table does not exist.
func (a *app) openLocal(ctx context.Context, path string) (*backend, error) {
	if url, ok := runningServer(ctx, path); ok {
		be, err := openURL(ctx, url, "", "", a.getenv, a.clientOptions()...)
		if err != nil {
			return nil, err
		}
		be.describe = "local (adjl local serve at " + url + ", data file " + path + ")"
		be.where = "the embedded engine served at " + url + " (data file " + path + ")"
		return be, nil
	}
	if !a.createsTables() && !dataFileExists(path) {
		e, err := openEngine("", true)
		if err != nil {
			return nil, err
		}
		client := dynamodb.NewFromConfig(localConfig(e.HTTPClient()), a.clientOptions()...)
		return &backend{api: client, describe: "local (no data file " + path + " yet)", close: e.Close,
			where: "the embedded engine (no data file " + path + ")", exclusive: true}, nil
	}
	e, err := openDataFile(a.notes(), path, openEngineWithin)
	if err != nil {
		return nil, err
	}
	a.limitEngineMemory()
	client := dynamodb.NewFromConfig(localConfig(e.HTTPClient()), a.clientOptions()...)
	return &backend{api: client, describe: "local (file " + path + ")", close: e.Close,
		where: "the embedded engine (data file " + path + ")", exclusive: true}, nil
}

// engineMemoryLimit is the soft limit on the Go memory of a process that
// runs the embedded engine on a data file. The engine bounds what it holds
// (two log overlays, one checkpoint transaction, a few MiB of the mapped
// file); without a limit the collector lets the heap grow to twice what is
// live, which for a bulk import is twice the engine's working set on top of
// the command's. The limit makes it collect sooner instead (bench/results/
// has the figures). It is soft: a process that needs more gets more, the
// collector then working harder.
const engineMemoryLimit = 96 << 20

// limitEngineMemory sets engineMemoryLimit, unless GOMEMLIMIT says
// otherwise.
func (a *app) limitEngineMemory() {
	if a.setMemoryLimit == nil || envValue(a.getenv, "GOMEMLIMIT") != "" {
		return
	}
	a.setMemoryLimit(engineMemoryLimit)
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
