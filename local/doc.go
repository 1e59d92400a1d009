// Package local is adjl's embedded DynamoDB-compatible engine: an http.Handler
// speaking the DynamoDB JSON 1.0 protocol (X-Amz-Target DynamoDB_20120810.<Op>,
// errors as __type + message) over a bbolt file, so adjl reaches it through
// the same aws-sdk-go-v2 code path as AWS — in process via HTTPClient, or over
// loopback from `adjl local serve`. It knows nothing about adjl's schema.
//
// # Storage
//
// One bbolt file holds every table. Bucket "d/<table>" maps the key
// attr.AppendKey(partition)+attr.AppendKey(sort) to the item in attr's binary
// encoding; bucket "x/<table>/<index>" maps (index partition, index sort,
// table key) to the table key, so an index costs one small record per item
// and projections are applied when reading. "meta" holds table descriptions
// as JSON (cached in memory), "stats" item counts and sizes, "tokens"
// TransactWriteItems ClientRequestTokens. Items missing an index key are not
// indexed (sparse indexes).
//
// # Transactions and durability
//
// Each request's writes happen in one bbolt write transaction; bbolt fsyncs
// on commit, so an acknowledged write survives kill -9. Concurrent writers are
// group-committed (commit.go): whoever finds no commit in progress commits
// everything queued so far in one transaction and one fsync. Reads use
// read-only transactions (snapshots). Other processes wait for the file's
// lock up to Options.LockTimeout and then get *LockedError.
//
// # In memory
//
// Options.InMemory uses memKV instead of bbolt: sorted in-memory blocks
// behind the same small interface (kv.go), with an undo log for atomicity.
// Nothing has to survive, so it skips page copies, page writes and syncs
// and is several times faster — it is what `adjl local serve --in-memory`
// and tests use.
package local
