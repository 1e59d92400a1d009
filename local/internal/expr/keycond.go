package expr

import "github.com/adjl/adjl/local/internal/attr"

// KeyOp is the comparison of one key condition.
type KeyOp string

// Key condition operators, named like the legacy ComparisonOperator values.
const (
	EQ         KeyOp = "EQ"
	LT         KeyOp = "LT"
	LE         KeyOp = "LE"
	GT         KeyOp = "GT"
	GE         KeyOp = "GE"
	BETWEEN    KeyOp = "BETWEEN"
	BEGINSWITH KeyOp = "BEGINS_WITH"
)

// KeyCond is one condition on a key attribute: Values has one element, or
// two for BETWEEN.
type KeyCond struct {
	Name   string
	Op     KeyOp
	Values []attr.Value
}

// KeyCondition is a parsed KeyConditionExpression. Conds holds one or two
// conditions in source order; Bind assigns them to the key schema.
type KeyCondition struct {
	Conds []KeyCond

	// Set by Bind.
	Partition KeyCond  // always EQ
	Sort      *KeyCond // nil when only the partition key is constrained
}

// ParseKeyCondition parses a KeyConditionExpression and refuses what
// DynamoDB refuses in one (OR, NOT, IN, <>, functions other than
// begins_with, nested paths, two conditions on one attribute).
func ParseKeyCondition(s string, env *Env) (*KeyCondition, error) {
	c, err := parseCondition(s, KeyConditionExpression, env)
	if err != nil {
		return nil, err
	}
	kc := &KeyCondition{}
	if msg := kc.collect(c.root); msg != "" {
		return nil, errorf(msg)
	}
	return kc, nil
}

var flip = map[tokKind]KeyOp{tEq: EQ, tLt: GT, tLe: GE, tGt: LT, tGe: LE}
var keyOps = map[tokKind]KeyOp{tEq: EQ, tLt: LT, tLe: LE, tGt: GT, tGe: GE}

func (kc *KeyCondition) collect(n *node) string {
	switch n.kind {
	case nOr:
		return "Invalid operator used in KeyConditionExpression: OR"
	case nNot:
		return "Invalid operator used in KeyConditionExpression: NOT"
	case nIn:
		return "Invalid operator used in KeyConditionExpression: IN"
	case nAnd:
		if msg := kc.collect(n.kids[0]); msg != "" {
			return msg
		}
		return kc.collect(n.kids[1])
	case nCmp:
		if n.op == tNe {
			return "Invalid operator used in KeyConditionExpression: <>"
		}
	case nFunc:
		if n.fn != fnBeginsWith {
			return "Invalid operator used in KeyConditionExpression: " + n.name
		}
		if n.kids[0].kind != nPath {
			return "Invalid condition in KeyConditionExpression: " + n.name + " operator must have the key attribute as its first operand"
		}
	case nBetween:
		if n.kids[0].kind != nPath {
			return "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"
		}
	}
	var path Path
	pathAt := -1
	var values []attr.Value
	for i, k := range n.kids {
		switch k.kind {
		case nPath:
			if path != nil {
				return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
			}
			if len(k.path) > 1 {
				return "KeyConditionExpressions cannot have conditions on nested attributes"
			}
			path, pathAt = k.path, i
		case nValue:
			values = append(values, k.val)
		default:
			return "KeyConditionExpressions cannot contain nested operations"
		}
	}
	if path == nil {
		return "Invalid condition in KeyConditionExpression: No key attribute specified"
	}
	name := path[0].Name
	for _, c := range kc.Conds {
		if c.Name == name {
			return "KeyConditionExpressions must only contain one condition per key"
		}
	}
	kc0 := KeyCond{Name: name, Values: values}
	switch n.kind {
	case nCmp:
		if pathAt == 0 {
			kc0.Op = keyOps[n.op]
		} else {
			kc0.Op = flip[n.op]
		}
	case nBetween:
		kc0.Op = BETWEEN
	case nFunc:
		kc0.Op = BEGINSWITH
	}
	kc.Conds = append(kc.Conds, kc0)
	return ""
}

// Bind assigns the conditions to the table's (or index's) key attributes
// with DynamoDB's messages; sortKey is "" for a table without a sort key.
func (kc *KeyCondition) Bind(partitionKey, sortKey string) error {
	var part, sort *KeyCond
	for i := range kc.Conds {
		c := &kc.Conds[i]
		switch c.Name {
		case partitionKey:
			part = c
		case sortKey:
			sort = c
		}
	}
	if len(kc.Conds) > 2 {
		return errorf("Conditions can be of length 1 or 2 only")
	}
	if part == nil {
		return errorf("Query condition missed key schema element: " + partitionKey)
	}
	if len(kc.Conds) == 2 && sort == nil {
		if sortKey == "" {
			return errorf("Query key condition not supported")
		}
		return errorf("Query condition missed key schema element: " + sortKey)
	}
	if part.Op != EQ {
		return errorf("Query key condition not supported")
	}
	kc.Partition = *part
	kc.Sort = sort
	return nil
}
