package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adjl/adjl/local/internal/kv"
)

// DefaultLockTimeout bounds how long Open waits for another process to release
// the data file; a CLI command should fail clearly rather than hang.
const DefaultLockTimeout = 10 * time.Second

// Options configures Open.
type Options struct {
	// InMemory keeps the data in memory only (gone on Close): for tests and
	// `adjl local serve --in-memory`. The path is ignored.
	InMemory bool
	// LockTimeout bounds the wait for the data file's lock (default 10s).
	LockTimeout time.Duration
	// Warn, when set, receives one sentence per way other users can read
	// or change the data file (see permissionProblems); Open changes no
	// permission of a file or directory it did not create.
	Warn func(msg string)
}

// LockedError reports that another process holds the data file for longer
// than Options.LockTimeout. Its message tells the user how to share one
// engine instead.
type LockedError = kv.LockedError

// FormatError reports a data file written by a newer engine, in a layout
// this one could misread.
type FormatError = kv.FormatError

// Engine is one open data file. It is safe for concurrent use: the store
// serialises writers inside the process and its file lock across processes.
type Engine struct {
	db       kv.DB
	path     string
	closeMu  sync.Mutex
	closed   bool
	stop     chan struct{}
	sweeping sync.WaitGroup

	mu     sync.RWMutex
	tables map[string]*table // cached descriptions, loaded at Open

	commits *kv.Group[*writer]
	now     func() time.Time

	// requests counts requests being served, so that group commit waits for
	// company only when there can be some (see kv.Group).
	requests atomic.Int64
}

// othersServed reports whether requests other than the caller's are being
// served.
func (e *Engine) othersServed() bool { return e.requests.Load() > 1 }

// Open opens (creating if needed, with parent directories 0700 and mode
// 0600) the data file at path. It waits up to opt.LockTimeout for another
// process to release the file and then returns *LockedError.
func Open(path string, opt Options) (*Engine, error) {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = DefaultLockTimeout
	}
	e := &Engine{tables: map[string]*table{}, stop: make(chan struct{}), now: time.Now}
	if opt.InMemory {
		// Nothing survives Close, so no file, lock or fsync.
		e.db = kv.NewMem()
	} else {
		if path == "" {
			return nil, errors.New("open local engine: empty data file path")
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create data directory: %w", err)
			}
		}
		// Every commit is fsynced to the write-ahead log before it is
		// acknowledged; the file lock makes other processes wait.
		db, err := kv.OpenFile(path, kv.Options{LockTimeout: opt.LockTimeout, Busy: e.othersServed})
		if err != nil {
			return nil, err
		}
		e.db = db
		e.path = path
		if opt.Warn != nil {
			for _, p := range permissionProblems(path) {
				opt.Warn(p)
			}
		}
	}
	e.commits = kv.NewGroup(e.db, kv.Round[*writer]{
		Begin:  func(tx kv.Tx) *writer { return newWriter(e, tx) },
		Writes: func(w *writer) int { return w.writes },
		Finish: (*writer).flush,
	}, e.othersServed)
	if err := e.load(); err != nil {
		e.db.Close()
		return nil, err
	}
	e.sweeping.Add(1)
	go e.sweeper()
	return e, nil
}

// update runs fn in a write transaction shared with concurrent callers
// (group commit) and returns once it is durable.
func (e *Engine) update(fn func(w *writer) error) error { return e.commits.Do(fn) }

// Path is the data file in use ("" when in memory), for "which backend did I
// use" messages.
func (e *Engine) Path() string { return e.path }

// Close stops the TTL sweeper and releases the data file and its lock (an
// in-memory engine drops its data). It is safe to call twice.
// StorageFailure is the data file's write failure (a full disk, an I/O
// error) after which the engine refuses writes until the file is reopened,
// or nil. Every write the engine answered is in the write-ahead log.
func (e *Engine) StorageFailure() error {
	if f, ok := e.db.(interface{ Failure() error }); ok {
		return f.Failure()
	}
	return nil
}

func (e *Engine) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	close(e.stop)
	e.sweeping.Wait()
	if err := e.db.Close(); err != nil {
		return fmt.Errorf("close data file: %w", err)
	}
	return nil
}
