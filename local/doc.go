// Package local is adjl's embedded DynamoDB-compatible engine: an http.Handler
// speaking the DynamoDB JSON 1.0 protocol (X-Amz-Target DynamoDB_20120810.<Op>,
// errors as __type + message) over an embedded store, so adjl reaches it
// through the same aws-sdk-go-v2 code path as AWS — in process via
// HTTPClient (client.go), or over loopback from `adjl local serve`. It knows
// nothing about adjl's schema.
//
// # Layers
//
// A request goes down these layers and its answer comes back up:
//
//	http.go          ServeHTTP: X-Amz-Target → the operations table (every
//	   │             operation, in one place); body size, gzip, CRC32, errors
//	   ▼
//	<operation>.go   one file per operation: putitem.go, query.go,
//	   │             transactwriteitems.go, createtable.go, ... — decode the
//	   │             body (decoders.go, request.go), check it (constraints.go:
//	   │             the API model's member constraints, collected into one
//	   │             "N validation errors detected" before any table lookup;
//	   │             itemwrite.go, readplan.go, paramchecks.go, keys.go),
//	   │             read or write, answer (response.go, capacity.go,
//	   │             collections.go: ItemCollectionMetrics)
//	   ├──▶ internal/expr  condition, update, key condition and projection
//	   │                   expressions, parsed and evaluated (exprs.go binds
//	   │                   them to a request's names and values); the legacy
//	   │                   parameters (Expected, AttributeUpdates,
//	   │                   KeyConditions, Query/ScanFilter, AttributesToGet)
//	   │                   are checked in legacy.go and built into the same
//	   │                   trees (expr/legacy.go), so one evaluator serves both
//	   ├──▶ internal/attr  attribute values: wire JSON, the binary item
//	   │                   encoding, the order-preserving key encoding, sizes
//	   ▼
//	catalog.go       tables: their buckets, cached descriptions, item counts
//	writer.go        item writes that keep every index and count in step
//	walk.go          reads of a table or index in key order, page by page
//	   │
//	   ▼
//	internal/kv      the store contract (DB, Tx, Bucket, Cursor); kv.Mem in
//	   │             memory, or kv.File: write-ahead log, checkpoints, crash
//	   │             recovery; kv.Group commits concurrent writers together
//	   ▼
//	bbolt            the data file
//
// # Storage layout
//
// Bucket "d/<table>" maps the key attr.AppendKey(partition)+attr.AppendKey(sort)
// to the item in attr's binary encoding; bucket "x/<table>/<index>" holds the
// key (index partition, index sort, table key) with an empty value (files
// from before format 2 held the table key there; both read the same), so an
// index costs one small record per item and projections are applied when
// reading. Items missing an index key are not indexed (sparse indexes).
// "meta" holds table descriptions as JSON (cached in memory), "stats" item
// counts and sizes, "tokens" TransactWriteItems' ClientRequestTokens; the
// store keeps its own format record and log state (package kv).
//
// # Writes
//
// Every item write goes through Engine.update (kv.Group): concurrent
// requests share one transaction and one fsync of the write-ahead log, and
// each returns only once its write is durable. A write function must not
// write before it has decided to succeed: an error before any write fails
// that request alone. DDL writes the catalog in a transaction of its own
// (updateCatalog). Readers wait for a running write and for the fsync of
// what they read. Other processes wait for the data file's lock up to
// Options.LockTimeout and then get *LockedError; a file written by a newer
// adjl is refused with *FormatError before anything is read from its logs.
//
// Options.InMemory uses kv.Mem instead of a file: nothing has to survive,
// so no log, page writes or syncs — it is what `adjl local serve
// --in-memory` and most tests use.
package local
