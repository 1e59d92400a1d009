// Package partiql parses DynamoDB's PartiQL dialect and translates a parsed
// statement into the engine's own vocabulary: key values and DynamoDB
// expressions (condition, filter and update text with placeholder names and
// values) that the engine parses and evaluates with the same expression
// package as the item API. That is how DynamoDB itself runs PartiQL: each
// statement becomes a GetItem, PutItem, UpdateItem, DeleteItem, Query or Scan
// with expressions, so the two surfaces cannot disagree.
//
// The package is pure: it knows a table only through Schema (key attribute
// names and types) and never touches storage.
//
// Errors are *Error values whose Msg is DynamoDB's complete message
// ("Statement wasn't well formed, can't be processed: Unexpected term", "Where
// clause does not contain a mandatory equality on all key attributes", ...);
// Kind says how the engine reports it.
package partiql
