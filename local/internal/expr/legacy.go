package expr

import "github.com/adjl/adjl/local/internal/attr"

// The legacy (pre-expression) parameters — Expected, QueryFilter,
// ScanFilter, KeyConditions and AttributeUpdates — built into the same trees
// the expression parsers produce, so one evaluator serves both. Callers
// validate the parameters first (operand counts and types); these builders
// only translate.

// Comparison is one legacy condition: ComparisonOperator applied to a
// top-level attribute (its name taken literally, never a document path) and
// its AttributeValueList.
type Comparison struct {
	Attr   string
	Op     string // EQ NE LE LT GE GT NOT_NULL NULL CONTAINS NOT_CONTAINS BEGINS_WITH IN BETWEEN
	Values []attr.Value
}

var legacyCmp = map[string]tokKind{"EQ": tEq, "NE": tNe, "LT": tLt, "LE": tLe, "GT": tGt, "GE": tGe}

// LegacyCondition returns the condition that holds when every comparison
// holds (or, with or, any of them), as Expected with ConditionalOperator and
// QueryFilter/ScanFilter define it. cs must not be empty.
func LegacyCondition(cs []Comparison, or bool) *Condition {
	var root *node
	for _, c := range cs {
		n := c.node()
		switch {
		case root == nil:
			root = n
		case or:
			root = &node{kind: nOr, kids: []*node{root, n}}
		default:
			root = &node{kind: nAnd, kids: []*node{root, n}}
		}
	}
	return &Condition{root: root, names: topNames(root, nil)}
}

func (c Comparison) node() *node {
	path := &node{kind: nPath, path: Path{{Name: c.Attr, Index: -1}}}
	vals := make([]*node, len(c.Values))
	for i, v := range c.Values {
		vals[i] = &node{kind: nValue, val: v}
	}
	fn := func(f fnKind, name string, args ...*node) *node {
		return &node{kind: nFunc, fn: f, name: name, kids: args}
	}
	switch c.Op {
	case "NOT_NULL":
		return fn(fnExists, "attribute_exists", path)
	case "NULL":
		return fn(fnNotExists, "attribute_not_exists", path)
	case "CONTAINS":
		return fn(fnContains, "contains", path, vals[0])
	case "NOT_CONTAINS":
		// A missing attribute neither contains nor does not contain a value.
		notIn := &node{kind: nNot, kids: []*node{fn(fnContains, "contains", path, vals[0])}}
		return &node{kind: nAnd, kids: []*node{fn(fnExists, "attribute_exists", path), notIn}}
	case "BEGINS_WITH":
		return fn(fnBeginsWith, "begins_with", path, vals[0])
	case "IN":
		return &node{kind: nIn, kids: append([]*node{path}, vals...)}
	case "BETWEEN":
		return &node{kind: nBetween, kids: []*node{path, vals[0], vals[1]}}
	}
	return &node{kind: nCmp, op: legacyCmp[c.Op], kids: []*node{path, vals[0]}}
}

// AttributeUpdate is one entry of the legacy AttributeUpdates: Action (PUT,
// ADD or DELETE) on a top-level attribute, with its Value (nil for a DELETE
// of the whole attribute).
type AttributeUpdate struct {
	Attr   string
	Action string
	Value  *attr.Value
}

// LegacyUpdate returns the update AttributeUpdates describe: PUT is SET,
// DELETE without a value is REMOVE, DELETE with a set value and ADD of a
// number or set are the expressions' DELETE and ADD, and ADD of a list
// appends to the list (or creates it). A value of the wrong type for the
// stored attribute fails with "Type mismatch for attribute to update".
func LegacyUpdate(us []AttributeUpdate) *Update {
	u := &Update{legacy: true}
	for _, a := range us {
		path := Path{{Name: a.Attr, Index: -1}}
		u.names = appendName(u.names, a.Attr)
		switch {
		case a.Action == "DELETE" && a.Value == nil:
			u.removes = append(u.removes, path)
		case a.Action == "DELETE":
			u.deletes = append(u.deletes, valAction{path: path, val: *a.Value})
		case a.Action == "ADD" && a.Value.Kind == attr.L:
			empty := &uval{kind: uValue, val: attr.List(nil)}
			current := &uval{kind: uIfNotExists, path: path, kids: []*uval{{kind: uPath, path: path}, empty}}
			u.sets = append(u.sets, setAction{path: path, val: &uval{kind: uListAppend,
				kids: []*uval{current, {kind: uValue, val: *a.Value}}}})
		case a.Action == "ADD":
			u.adds = append(u.adds, valAction{path: path, val: *a.Value})
		default: // PUT
			u.sets = append(u.sets, setAction{path: path, val: &uval{kind: uValue, val: *a.Value}})
		}
	}
	return u
}
