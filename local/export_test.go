package local

// SetCheckpointBytes makes a data-file engine checkpoint its write-ahead log
// after n bytes, so tests can keep background checkpoints running.
func SetCheckpointBytes(e *Engine, n int64) {
	kv := e.db.(*walKV)
	kv.mu.Lock()
	kv.checkpointBytes = n
	kv.mu.Unlock()
}

// SetFlagDefault is setFlagDefault for the package's external tests.
var SetFlagDefault = setFlagDefault
