package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"
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

// warnTo has the engine's permission warnings (local.Options.Warn)
// printed on w.
func warnTo(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(w, "adjl: warning: %s\n", msg) }
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
	if rec, ok := runningServer(ctx, path); ok {
		url, getenv := rec.URL, a.getenv
		if rec.Auth {
			getenv = serveSigningEnv(a.getenv)
		}
		be, err := openURL(ctx, url, "", "", getenv, a.clientOptions()...)
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
		client := dynamodb.NewFromConfig(retryEnv(localConfig(e.HTTPClient()), a.getenv), a.clientOptions()...)
		return &backend{api: client, describe: "local (no data file " + path + " yet)", close: e.Close,
			where: "the embedded engine (no data file " + path + ")", exclusive: true}, nil
	}
	e, err := openDataFile(a.notes(), path, func(path string, lockTimeout time.Duration) (engine, error) {
		return openEngineOptions(path, local.Options{LockTimeout: lockTimeout, Warn: warnTo(a.io.ErrOut)})
	})
	if err != nil {
		return nil, err
	}
	limited := a.limitEngineMemory()
	client := dynamodb.NewFromConfig(retryEnv(localConfig(e.HTTPClient()), a.getenv), a.clientOptions()...)
	be := &backend{api: client, describe: "local (file " + path + ")", close: e.Close,
		where: "the embedded engine (data file " + path + ")", data: path, exclusive: true, memoryLimited: limited}
	if f, ok := e.(interface{ StorageFailure() error }); ok {
		be.failure = f.StorageFailure
	}
	return be, nil
}

// serveSigningEnv lets a command reach an `adjl local serve --auth` on its
// data file with the server's key pair when this environment holds it
// (ADJL_SERVE_*), in place of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
func serveSigningEnv(getenv func(string) (string, bool)) func(string) (string, bool) {
	id, secret := envValue(getenv, envServeKeyID), envValue(getenv, envServeSecret)
	if id == "" || secret == "" {
		return getenv
	}
	return func(name string) (string, bool) {
		switch name {
		case "AWS_ACCESS_KEY_ID":
			return id, true
		case "AWS_SECRET_ACCESS_KEY":
			return secret, true
		case "AWS_SESSION_TOKEN":
			return "", false
		}
		return getenv(name)
	}
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
// otherwise, and reports whether it did.
func (a *app) limitEngineMemory() bool {
	if a.setMemoryLimit == nil || envValue(a.getenv, "GOMEMLIMIT") != "" {
		return false
	}
	a.setMemoryLimit(engineMemoryLimit)
	return true
}

// dataFileError is a data file the embedded engine cannot open (no
// permission, a directory, not a data file) or, with writing, could not
// write (a full disk, an I/O error): the local backend is unavailable,
// like a server that cannot be reached.
type dataFileError struct {
	path    string
	err     error
	writing bool
}

func (e *dataFileError) Error() string {
	var pe *fs.PathError
	var fe *local.FormatError
	verb := "open"
	if e.writing {
		verb = "write"
	}
	if errors.As(e.err, &fe) {
		return fmt.Sprintf("cannot open data file %s: its format (%d) is newer than this adjl reads (%d)", e.path, fe.Format, fe.Supported)
	}
	if errors.As(e.err, &pe) {
		if pe.Path == e.path {
			return fmt.Sprintf("cannot %s data file %s: %v", verb, e.path, pe.Err)
		}
		return fmt.Sprintf("cannot %s data file %s: %s %s: %v", verb, e.path, pe.Op, pe.Path, pe.Err)
	}
	return fmt.Sprintf("cannot %s data file %s: %v", verb, e.path, e.err)
}

// full reports a data file on a file system with no room left for it.
func (e *dataFileError) full() bool {
	return errors.Is(e.err, syscall.ENOSPC) || errors.Is(e.err, syscall.EDQUOT) || errors.Is(e.err, syscall.EFBIG)
}

// hint is what to do about it. A full disk loses nothing adjl answered:
// each answered write was fsynced to a write-ahead log beside the file,
// which the next adjl command on it replays.
func (e *dataFileError) hint() string {
	if e.full() || e.writing {
		return fmt.Sprintf("free space on the file system holding %s (df -h %s) and run the command again: nothing adjl answered is lost, the write-ahead logs beside the file keep every answered write",
			e.path, filepath.Dir(e.path))
	}
	return "choose a writable location with --data FILE (or ADJL_DATA), or use --endpoint URL"
}

// storageError turns a command's failure into the embedded engine's storage
// failure, when that is what stopped it: the engine answered its requests
// with an internal error, which says less.
func (a *app) storageError(err error) error {
	if err == nil || a.be == nil || a.be.failure == nil {
		return err
	}
	if f := a.be.failure(); f != nil {
		return &dataFileError{path: a.be.data, err: f, writing: true}
	}
	return err
}

// closeDataFileError is the embedded engine's data file failing to close:
// its write-ahead log could not be folded into the file (a full disk).
// Every write the command made was fsynced to the log before adjl answered
// and the next command on the file replays it, so the command's outcome
// stands and this is a warning.
type closeDataFileError struct {
	path string
	err  error
}

func (e *closeDataFileError) Error() string {
	return fmt.Sprintf("data file %s: could not fold the write-ahead log into the file (%v); every answered write is kept in the log beside it, which the next adjl command on the file replays",
		e.path, e.err)
}

func (e *closeDataFileError) Unwrap() error { return e.err }

func (e *dataFileError) Unwrap() error { return e.err }
