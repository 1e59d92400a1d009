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

// nestedMember is how readNested reads one member of a single-item write
// that holds attribute values: read reads it; on a value nested past the
// limit, keep rereads its raw JSON without the values (what the members'
// constraints still look at) and depth measures its values' nesting.
type nestedMember[T any] struct {
	read  func() (T, error)
	keep  func(raw []byte) T
	depth func(raw []byte) int
}

// readNested reads member m; a value nested past the limit is recorded in
// *deep and the member is what m.keep makes of it. Another value error
// after a recorded nesting is reported as that nesting, first in body
// order, as it was before the nesting was kept for checkWrite.
func readNested[T any](r *jreader, deep **deepValue, m nestedMember[T]) (T, error) {
	start := r.i
	v, err := m.read()
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
	raw := r.b[start:r.i]
	if *deep == nil {
		*deep = &deepValue{err: err}
	}
	(*deep).older = (*deep).older || m.depth(raw) >= olderFormDepth
	return m.keep(raw), nil
}

// The members of a single-item write that hold attribute values.
func itemMember(r *jreader) nestedMember[attr.Item] {
	return nestedMember[attr.Item]{read: r.item, keep: func([]byte) attr.Item { return attr.Item{} }, depth: entriesDepth}
}

func valuesMember(r *jreader) nestedMember[attr.Item] {
	return nestedMember[attr.Item]{read: r.exprValues, keep: func([]byte) attr.Item { return attr.Item{} }, depth: entriesDepth}
}

func expectedMember(r *jreader) nestedMember[legacyConditions] {
	return nestedMember[legacyConditions]{read: r.legacyConds, keep: conditionsWithoutValues, depth: conditionsDepth}
}

func updatesMember(r *jreader) nestedMember[map[string]attributeUpdate] {
	return nestedMember[map[string]attributeUpdate]{read: r.attributeUpdates, keep: updatesWithoutValues, depth: updatesDepth}
}

// conditionsWithoutValues is Expected without its values, for the checks
// of its operators.
func conditionsWithoutValues(raw []byte) legacyConditions {
	var in map[string]struct {
		ComparisonOperator *string
		Exists             *bool
	}
	_ = json.Unmarshal(raw, &in)
	out := make(legacyConditions, len(in))
	for k, c := range in {
		out[k] = legacyCondition{ComparisonOperator: c.ComparisonOperator, Exists: c.Exists}
	}
	return out
}

// updatesWithoutValues is AttributeUpdates without its values, for the
// checks of its actions.
func updatesWithoutValues(raw []byte) map[string]attributeUpdate {
	var in map[string]struct{ Action *string }
	_ = json.Unmarshal(raw, &in)
	out := make(map[string]attributeUpdate, len(in))
	for k, u := range in {
		out[k] = attributeUpdate{Action: u.Action}
	}
	return out
}

// entriesDepth is the deepest attribute value of an item or of
// ExpressionAttributeValues.
func entriesDepth(raw []byte) int {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	deepest := 0
	for _, v := range m {
		deepest = max(deepest, valueDepth(v))
	}
	return deepest
}

// conditionsDepth is the deepest value of Expected's conditions.
func conditionsDepth(raw []byte) int {
	var m map[string]struct {
		Value              any
		AttributeValueList []any
	}
	_ = json.Unmarshal(raw, &m)
	deepest := 0
	for _, c := range m {
		deepest = max(deepest, valueDepth(c.Value))
		for _, v := range c.AttributeValueList {
			deepest = max(deepest, valueDepth(v))
		}
	}
	return deepest
}

// updatesDepth is the deepest value of AttributeUpdates.
func updatesDepth(raw []byte) int {
	var m map[string]struct{ Value any }
	_ = json.Unmarshal(raw, &m)
	deepest := 0
	for _, u := range m {
		deepest = max(deepest, valueDepth(u.Value))
	}
	return deepest
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
