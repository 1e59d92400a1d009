// Package attr is the attribute value model of the embedded DynamoDB engine:
// the ten DynamoDB data types, their exact wire JSON, exact decimal numbers,
// ordering, order-preserving key encodings, DynamoDB item sizes and a compact
// binary encoding for items at rest.
//
// It exists so that the engine and the expression evaluator share one fast,
// reflection-free representation instead of the SDK's interface-based types.
package attr
