package local

import (
	"encoding/json"
	"errors"

	"github.com/adjl/adjl/local/internal/attr"
)

// A single-item write (PutItem, UpdateItem, DeleteItem) whose values nest
// past DynamoDB's 32 levels reports that after its members' constraints
// (an unknown ConditionalOperator or ReturnValues comes first), and past
// about 62 levels DynamoDB reads the request in an older form, where a
// ReturnValues the operation does not take is reported first too, bare
// (captured in two regions, 2026-10-09).

// olderFormDepth is the nesting, in attribute levels (a value is one, each
// M or L around it one more), from which DynamoDB reads a single-item write
// in its older form: values wrapped 63 and 100 times were captured past it,
// 40 times short of it ("about 62").
const olderFormDepth = 64

// deepValue is a refused nesting of a single-item write, kept for
// checkWrite.
type deepValue struct {
	err   error
	older bool // the value nests olderFormDepth levels or more
}

// readNested reads one member with read; a value nested past the limit is
// recorded in *deep (the first one) and read as the member's zero value
// with sent set, so that the member still counts as sent.
func readNested[T any](r *jreader, deep **deepValue, read func() (T, error), sent T) (T, error) {
	start := r.i
	v, err := read()
	var ve *attr.ValidationError
	if err == nil || !errors.As(err, &ve) || ve.Msg != attr.ErrNesting {
		return v, err
	}
	if *deep == nil {
		*deep = &deepValue{err: err, older: jsonValueDepth(r.b[start:r.i]) >= olderFormDepth}
	}
	return sent, nil
}

// jsonValueDepth is the deepest nesting of attribute values in raw, a
// member holding them (an item, ExpressionAttributeValues, Expected,
// AttributeUpdates): one more than the M and L wrappers on its deepest path.
// An attribute itself named M or L counts as a wrapper too; this only
// decides olderFormDepth, on a request refused anyway.
func jsonValueDepth(raw []byte) int {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	var wrappers func(v any) int
	wrappers = func(v any) int {
		deepest := 0
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				d := wrappers(c)
				if k == "M" || k == "L" {
					d++
				}
				deepest = max(deepest, d)
			}
		case []any:
			for _, c := range x {
				deepest = max(deepest, wrappers(c))
			}
		}
		return deepest
	}
	return 1 + wrappers(v)
}
