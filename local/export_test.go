package local

import "github.com/adjl/adjl/local/internal/kv"

// SetCheckpointBytes makes a data-file engine checkpoint its write-ahead log
// after n bytes, so tests can keep background checkpoints running.
func SetCheckpointBytes(e *Engine, n int64) { e.db.(*kv.File).SetCheckpointBytes(n) }
