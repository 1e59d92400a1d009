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
// (captured in two regions, 2026-10-09, with the nesting 40, 63 and 100
// levels deep; nothing captured shows the enums' wording between 33 and 62
// levels, which the captures say is newer there).

// olderFormDepth is the nesting, in attribute levels (a value is one, each
// M or L around it one more), from which DynamoDB reads a single-item write
// in its older form: values wrapped 63 and 100 times were captured past it,
// 40 times short of it ("about 62").
const olderFormDepth = 64

// deepValue is a refused nesting of a single-item write, kept for
// checkWrite.
type deepValue struct {
	err   error // the first one, in body order
	older bool  // some value nests olderFormDepth levels or more
}

// readNested reads one member of a single-item write that holds attribute
// values with read; on a value nested past the limit, it records the
// nesting in *deep and returns what reread makes of the member's raw JSON:
// the member without its values (what the members' constraints still look
// at) and how deep its values nest. Another value error after a recorded
// nesting is reported as that nesting, first in body order, as it was
// before the nesting was kept for checkWrite.
func readNested[T any](r *jreader, deep **deepValue, read func() (T, error), reread func(raw []byte) (T, int)) (T, error) {
	start := r.i
	v, err := read()
	if err == nil {
		return v, nil
	}
	var ve *attr.ValidationError
	if !errors.As(err, &ve) {
		return v, err // malformed JSON
	}
	if ve.Msg != attr.ErrNesting {
		if *deep != nil {
			return v, (*deep).err
		}
		return v, err
	}
	if *deep == nil {
		*deep = &deepValue{err: err}
	}
	kept, depth := reread(r.b[start:r.i])
	(*deep).older = (*deep).older || depth >= olderFormDepth
	return kept, nil
}

// entriesWithoutValues rereads an item or ExpressionAttributeValues: an
// empty map (the member was sent) and its deepest value.
func entriesWithoutValues(raw []byte) (attr.Item, int) {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	deepest := 0
	for _, v := range m {
		deepest = max(deepest, valueDepth(v))
	}
	return attr.Item{}, deepest
}

// conditionsWithoutValues rereads Expected: its operators and Exists, for
// their checks, and its deepest value.
func conditionsWithoutValues(raw []byte) (legacyConditions, int) {
	var in map[string]struct {
		ComparisonOperator *string
		Exists             *bool
		Value              any
		AttributeValueList []any
	}
	_ = json.Unmarshal(raw, &in)
	out := make(legacyConditions, len(in))
	deepest := 0
	for k, c := range in {
		out[k] = legacyCondition{ComparisonOperator: c.ComparisonOperator, Exists: c.Exists}
		deepest = max(deepest, valueDepth(c.Value))
		for _, v := range c.AttributeValueList {
			deepest = max(deepest, valueDepth(v))
		}
	}
	return out, deepest
}

// updatesWithoutValues rereads AttributeUpdates: its actions, for their
// checks, and its deepest value.
func updatesWithoutValues(raw []byte) (map[string]attributeUpdate, int) {
	var in map[string]struct {
		Action *string
		Value  any
	}
	_ = json.Unmarshal(raw, &in)
	out := make(map[string]attributeUpdate, len(in))
	deepest := 0
	for k, u := range in {
		out[k] = attributeUpdate{Action: u.Action}
		deepest = max(deepest, valueDepth(u.Value))
	}
	return out, deepest
}

// valueDepth is the nesting of one attribute value as decoded JSON: 1, and
// one more for each M or L around its deepest member (0 for no value).
func valueDepth(v any) int {
	av, ok := v.(map[string]any)
	if !ok || len(av) == 0 {
		return 0
	}
	deepest := 0
	switch {
	case av["M"] != nil:
		if m, ok := av["M"].(map[string]any); ok {
			for _, c := range m {
				deepest = max(deepest, valueDepth(c))
			}
		}
	case av["L"] != nil:
		if l, ok := av["L"].([]any); ok {
			for _, c := range l {
				deepest = max(deepest, valueDepth(c))
			}
		}
	}
	return 1 + deepest
}
