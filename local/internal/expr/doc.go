// Package expr parses and evaluates DynamoDB expressions — condition and
// filter, update, projection and key condition — against attr items.
//
// Each expression is parsed once per request into a small tree and then
// evaluated per item without reflection or regular expressions. Errors are
// *Error values whose Msg is DynamoDB's full message (including the
// "Invalid ConditionExpression: " style prefix), so the engine can return
// them verbatim as ValidationException.
package expr
