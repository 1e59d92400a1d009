// Package local is adjl's embedded DynamoDB-compatible engine: an http.Handler
// speaking the DynamoDB JSON 1.0 protocol over a bbolt file, so adjl reaches it
// through the same aws-sdk-go-v2 code path as AWS. It knows nothing about adjl's
// schema.
package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultLockTimeout bounds how long Open waits for another process to release
// the data file; a CLI command should fail clearly rather than hang.
const DefaultLockTimeout = 10 * time.Second

// Options configures Open.
type Options struct {
	// InMemory keeps the data in a temporary file that is removed on Close and
	// never fsynced: the same engine for tests and `adjl local serve --in-memory`.
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

// Engine is one open data file. It is safe for concurrent use; bbolt
// serialises writers inside the process and the file lock across processes.
type Engine struct {
	db       *bolt.DB
	path     string
	tempDir  string // InMemory: removed on Close
	closeMu  sync.Mutex
	closed   bool
	stop     chan struct{}
	sweeping sync.WaitGroup

	mu     sync.RWMutex
	tables map[string]*table // cached descriptions, loaded at Open

	tokens  *tokenCache
	commits committer
	now     func() time.Time
}

// Open opens (creating if needed, with parent directories and mode 0600) the
// data file at path. It waits up to opt.LockTimeout for another process to
// release the file and then returns *LockedError.
func Open(path string, opt Options) (*Engine, error) {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = DefaultLockTimeout
	}
	e := &Engine{tables: map[string]*table{}, stop: make(chan struct{}), now: time.Now}
	bopt := &bolt.Options{Timeout: opt.LockTimeout, FreelistType: bolt.FreelistMapType}
	if opt.InMemory {
		dir, err := os.MkdirTemp("", "adjl-mem-")
		if err != nil {
			return nil, fmt.Errorf("create in-memory store: %w", err)
		}
		e.tempDir = dir
		path = filepath.Join(dir, "data.db")
		// Nothing survives Close anyway, so fsync buys nothing.
		bopt.NoSync = true
		bopt.NoGrowSync = true
		bopt.NoFreelistSync = true
	} else {
		if path == "" {
			return nil, errors.New("open local engine: empty data file path")
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create data directory: %w", err)
			}
		}
	}
	db, err := bolt.Open(path, 0o600, bopt)
	if err != nil {
		if e.tempDir != "" {
			os.RemoveAll(e.tempDir)
		}
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, &LockedError{Path: path, Timeout: opt.LockTimeout}
		}
		return nil, fmt.Errorf("open data file %s: %w", path, err)
	}
	e.db = db
	e.path = path
	e.tokens = newTokenCache()
	if err := e.load(); err != nil {
		db.Close()
		if e.tempDir != "" {
			os.RemoveAll(e.tempDir)
		}
		return nil, err
	}
	e.sweeping.Add(1)
	go e.sweeper()
	return e, nil
}

// Path is the data file in use, for "which backend did I use" messages.
func (e *Engine) Path() string { return e.path }

// Close stops the TTL sweeper, releases the file lock and, for an in-memory
// engine, removes the temporary file. It is safe to call twice.
func (e *Engine) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	close(e.stop)
	e.sweeping.Wait()
	err := e.db.Close()
	if e.tempDir != "" {
		if rerr := os.RemoveAll(e.tempDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return fmt.Errorf("close data file: %w", err)
	}
	return nil
}
