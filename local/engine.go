package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
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
}

// LockedError reports that another process holds the data file for longer than
// LockTimeout. Its message tells the user how to share one engine instead.
type LockedError struct {
	Path    string
	Timeout time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("data file %s is locked: another adjl process holds the data file (waited %s); "+
		"to share one engine between processes run `adjl local serve` and use --endpoint http://127.0.0.1:8000",
		e.Path, e.Timeout)
}

// FormatError reports a data file written by a newer engine, in a layout
// this one could misread.
type FormatError struct {
	Path              string
	Format, Supported int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("data file %s has format %d, newer than this adjl reads (%d)", e.Path, e.Format, e.Supported)
}

// Engine is one open data file. It is safe for concurrent use; bbolt
// serialises writers inside the process and the file lock across processes.
type Engine struct {
	db       kvDB
	path     string
	closeMu  sync.Mutex
	closed   bool
	stop     chan struct{}
	sweeping sync.WaitGroup

	mu     sync.RWMutex
	tables map[string]*table // cached descriptions, loaded at Open

	tokens  *tokenCache
	commits committer
	now     func() time.Time

	// requests counts requests being served, so that group commit waits for
	// company only when there can be some (see Engine.update).
	requests atomic.Int64
}

// othersServed reports whether requests other than the caller's are being
// served.
func (e *Engine) othersServed() bool { return e.requests.Load() > 1 }

// Open opens (creating if needed, with parent directories and mode 0600) the
// data file at path. It waits up to opt.LockTimeout for another process to
// release the file and then returns *LockedError.
func Open(path string, opt Options) (*Engine, error) {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = DefaultLockTimeout
	}
	e := &Engine{tables: map[string]*table{}, stop: make(chan struct{}), now: time.Now}
	if opt.InMemory {
		// Nothing survives Close, so no file, lock or fsync: see memKV.
		e.db = newMemKV()
	} else {
		if path == "" {
			return nil, errors.New("open local engine: empty data file path")
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create data directory: %w", err)
			}
		}
		// Every commit is fsynced to the write-ahead log (walkv.go) before it
		// is acknowledged; bbolt's flock makes other processes wait.
		kv, err := openFileKV(path, opt.LockTimeout)
		if err != nil {
			return nil, err
		}
		kv.othersWriting = e.othersServed
		e.db = kv
		e.path = path
	}
	e.tokens = newTokenCache()
	if err := e.load(); err != nil {
		e.db.Close()
		return nil, err
	}
	e.sweeping.Add(1)
	go e.sweeper()
	return e, nil
}

// Path is the data file in use ("" when in memory), for "which backend did I
// use" messages.
func (e *Engine) Path() string { return e.path }

// Close stops the TTL sweeper and releases the data file and its lock (an
// in-memory engine drops its data). It is safe to call twice.
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
