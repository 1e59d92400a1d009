// Package local is adjl's embedded DynamoDB-compatible engine: an http.Handler
// speaking the DynamoDB JSON 1.0 protocol (X-Amz-Target DynamoDB_20120810.<Op>,
// errors as __type + message) over a bbolt file, so adjl reaches it through
// the same aws-sdk-go-v2 code path as AWS — in process via HTTPClient, or over
// loopback from `adjl local serve`. It knows nothing about adjl's schema.
//
// # Storage
//
// One bbolt file (package kv) holds every table. Bucket "d/<table>" maps the key
// attr.AppendKey(partition)+attr.AppendKey(sort) to the item in attr's binary
// encoding; bucket "x/<table>/<index>" holds the key (index partition,
// index sort, table key) with an empty value (files from before the format
// record held the table key there; both read the same), so an index costs
// one small record per item and projections are applied when reading.
// "meta" holds table descriptions as JSON (cached in memory), "stats" item
// counts and sizes, "tokens" TransactWriteItems ClientRequestTokens,
// "version" the file's format, "wal" the newest log epoch the file holds.
// Items missing an index key are not indexed (sparse indexes).
//
// # Transactions and durability
//
// Each request's writes happen in one transaction, made durable by a
// write-ahead log beside the file (<file>-wal0 and <file>-wal1, kv.File):
// the transaction's changes are appended to the log, fsynced, and kept in an
// in-memory overlay that reads merge over the bbolt file; checkpoints write
// the overlay into bbolt in the background (every 16 MiB of log) and on
// Close, so after a clean exit the bbolt file alone is complete. A killed
// process loses nothing acknowledged: the next opener replays the logs.
// Concurrent writers are group-committed (kv.Group): whoever finds no commit
// in progress runs everything queued so far as one transaction with one
// fsync, and hands on before the fsync, so the next round's work overlaps it.
// While other requests are being served, the leader and the syncer first
// yield once, so writers that are already runnable join their round and
// fsync. An engine refuses a file whose recorded format is newer than its
// own before it reads the file's logs. Readers wait for a running write (and for the fsync of what they read).
// Other processes wait for the file's lock up to Options.LockTimeout and then
// get *LockedError.
//
// # In memory
//
// Options.InMemory uses kv.Mem instead of a file: sorted in-memory blocks
// behind the same small interface (kv.DB), with an undo log for atomicity.
// Nothing has to survive, so it skips logs, page writes and syncs — it is
// what `adjl local serve --in-memory` and most tests use.
package local
