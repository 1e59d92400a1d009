// Package kv is the engine's storage: the store contract, an in-memory
// store, a file store (bbolt plus a write-ahead log), group commit, crash
// recovery and the data file's format record. It is the only importer of
// bbolt and knows nothing of tables, items or DynamoDB.
//
// # The contract
//
// DB, Tx, Bucket and Cursor are the subset of bbolt's API the engine uses,
// with bbolt's rules: slices returned by Get and cursors are valid only
// inside the transaction and must not be modified; slices passed to Put
// must not be modified until the transaction ends (the undo log keeps the
// key; both stores keep copies of keys and values in their trees, which
// hold no pointers, so the collector need not scan them); a bucket is
// not modified while one of its cursors is in use. One writer at a time;
// readers wait for a running write. Both stores refuse what bbolt refuses
// (empty bucket names and keys, oversized keys and values).
//
// # The layers
//
//	local (operations)  Group.Do ─ runs each request's write in a shared round
//	        │
//	        ▼
//	DB ── Mem   sorted in-memory blocks (memtree.go), an undo log per write
//	  └── File  active overlay ─ frozen overlay ─ bbolt file   (reads merge
//	             │                 │                 ▲            newest first,
//	             ▼                 └─ checkpoint ────┘            merge.go)
//	            write-ahead log <file>-wal0 / -wal1 (wal.go): one record and
//	            one fsync per commit round; replayed on open after a crash
//
// File (file.go) appends each transaction's changes to the active log and
// to the active overlay; a checkpoint (checkpoint.go) writes a full log's
// overlay (Options.CheckpointBytes, 16 MiB by default) into bbolt in the
// background, in transactions that each hold a bounded amount of pages in
// memory, and retires the log by giving it a new epoch, and Close
// checkpoints everything, so after a clean exit the bbolt file alone is
// complete. The pages of the bbolt file that reads and checkpoints map into
// the process are released as they accumulate (mapped.go), so neither the
// overlays, a checkpoint nor the mapping grows with the data file. A killed process loses nothing acknowledged: the next OpenFile
// replays the logs. The bbolt file records the newest epoch it holds, so a
// replay never applies a record twice. Group (group.go) lets concurrent
// writers share one transaction and one fsync: the leader hands on before
// the fsync, so the next round's work overlaps it.
//
// # The data file's format
//
// The bbolt file records its format (Format, format.go) in bucket "version"
// and the newest log epoch it holds in bucket "wal"; no bucket of the
// engine's ("meta", "stats", "tokens", "d/…", "x/…") has those names. A
// file of a newer format is refused with *FormatError before its logs are
// read; an older one is upgraded. Another process holding the file makes
// OpenFile wait up to Options.LockTimeout and then return *LockedError.
package kv
