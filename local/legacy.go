package local

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// The legacy (pre-expression) parameters older SDKs and mappers still send:
// Expected with ConditionalOperator, AttributeUpdates, KeyConditions,
// QueryFilter and ScanFilter (AttributesToGet lives with projections in
// exprs.go). They are read here, checked with DynamoDB's messages, and
// turned into the trees of package expr, so they are evaluated exactly as
// the expressions they stand for.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html

// legacyCondition is one entry of Expected, KeyConditions, QueryFilter or
// ScanFilter as sent (Value and Exists belong to Expected only).
type legacyCondition struct {
	ComparisonOperator *string
	AttributeValueList *[]attr.Value
	Value              *attr.Value
	Exists             *bool
}

// legacyConditions maps attribute names to their conditions; nil when the
// parameter was not sent.
type legacyConditions map[string]legacyCondition

// attributeUpdate is one entry of AttributeUpdates.
type attributeUpdate struct {
	Action *string
	Value  *attr.Value
}

// legacyConds reads Expected, KeyConditions, QueryFilter or ScanFilter.
func (r *jreader) legacyConds() (legacyConditions, error) {
	if r.null() {
		return nil, nil
	}
	raw, err := r.skip()
	if err != nil {
		return nil, err
	}
	m := legacyConditions{}
	return m, json.Unmarshal(raw, &m)
}

// attributeUpdates reads AttributeUpdates.
func (r *jreader) attributeUpdates() (map[string]attributeUpdate, error) {
	if r.null() {
		return nil, nil
	}
	raw, err := r.skip()
	if err != nil {
		return nil, err
	}
	m := map[string]attributeUpdate{}
	return m, json.Unmarshal(raw, &m)
}

// operators checks the ComparisonOperator members of conditions (member is
// the parameter's lowerCamel name); required says whether one must be set
// (it may be left out of Expected, which then uses Value and Exists).
func (v *violations) operators(member string, conds legacyConditions, required bool) {
	for _, name := range slices.Sorted(maps.Keys(conds)) {
		op := conds[name].ComparisonOperator
		path := member + "." + name + ".member.comparisonOperator"
		switch {
		case op == nil && required:
			v.null(path)
		case op != nil:
			if *op == "" {
				v.add(op, path, "Member must satisfy enum value set: ["+strings.Join(enumComparisonOperator, ", ")+"]")
				continue
			}
			v.enum(path, *op, enumComparisonOperator)
		}
	}
}

// param is a request parameter and whether it was sent.
type param struct {
	name string
	set  bool
}

func setNames(ps []param) []string {
	var out []string
	for _, p := range ps {
		if p.set {
			out = append(out, p.name)
		}
	}
	return out
}

// checkMixing applies DynamoDB's rules for expression parameters beside
// legacy ones, each list in the order DynamoDB's message lists them:
// legacy and expression parameters cannot be mixed (KeyConditions may
// accompany FilterExpression and ProjectionExpression, not
// KeyConditionExpression), ExpressionAttributeNames need an expression,
// and ExpressionAttributeValues an expression that takes values (the
// current wording, current, no longer names the expressions missing).
func checkMixing(legacy, exprs []param, names map[string]string, values attr.Item, current bool) error {
	usedExprs := setNames(exprs)
	if len(usedExprs) > 0 {
		if used := setNames(legacy); len(used) > 0 {
			return validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
				strings.Join(used, ", "), strings.Join(usedExprs, ", "))
		}
	}
	if names != nil && len(usedExprs) == 0 {
		return validationf("ExpressionAttributeNames can only be specified when using expressions")
	}
	var valueExprs []string
	valuesUsed := false
	for _, p := range exprs {
		if p.name != "ProjectionExpression" {
			valueExprs = append(valueExprs, p.name)
			valuesUsed = valuesUsed || p.set
		}
	}
	if values != nil && len(valueExprs) > 0 && !valuesUsed {
		if current {
			return validationf("ExpressionAttributeValues can only be specified when using expressions")
		}
		verb := "is"
		if len(valueExprs) > 1 {
			verb = "are"
		}
		return validationf("ExpressionAttributeValues can only be specified when using expressions: %s %s null", strings.Join(valueExprs, " and "), verb)
	}
	return nil
}

// checkConditionalOperator refuses a ConditionalOperator without two or
// more conditions to combine.
func checkConditionalOperator(op string, conds legacyConditions) error {
	switch {
	case op == "":
		return nil
	case len(conds) == 0:
		return validationf("ConditionalOperator cannot be used without Filter or Expected")
	case len(conds) == 1:
		return validationf("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return nil
}

// checkOperands checks an operator's AttributeValueList: how many values it
// takes, that they share a type, and which types it compares.
func checkOperands(op string, vals []attr.Value) error {
	n := len(vals)
	ok := false
	switch op {
	case "NULL", "NOT_NULL":
		ok = n == 0
	case "IN":
		ok = n >= 1
	case "BETWEEN":
		ok = n == 2
	default:
		ok = n == 1
	}
	if !ok {
		return invalidParam("Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	for _, v := range vals[min(n, 1):] {
		if v.Kind != vals[0].Kind {
			return invalidParam("AttributeValues inside AttributeValueList must be of same type")
		}
	}
	for _, v := range vals {
		if !operandKindOK(op, v.Kind) {
			return invalidParam("ComparisonOperator %s is not valid for %s AttributeValue type", op, v.Kind)
		}
	}
	if op == "BETWEEN" && attr.Compare(vals[0], vals[1]) > 0 {
		return validationf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
	}
	return nil
}

// operandKindOK reports whether op compares values of kind k: EQ and NE any
// type, BEGINS_WITH strings and binaries, the others scalars.
func operandKindOK(op string, k attr.Kind) bool {
	switch op {
	case "EQ", "NE":
		return true
	case "BEGINS_WITH":
		return k == attr.S || k == attr.B
	}
	return k == attr.S || k == attr.N || k == attr.B
}

func (c legacyCondition) values() []attr.Value {
	if c.AttributeValueList != nil {
		return *c.AttributeValueList
	}
	if c.Value != nil {
		return []attr.Value{*c.Value}
	}
	return nil
}

// expectedComparisons checks Expected and turns it into comparisons: an
// entry is a ComparisonOperator with its values, or a Value the attribute
// must equal, or Exists false for an attribute that must be absent.
func expectedComparisons(exp legacyConditions) ([]expr.Comparison, error) {
	out := make([]expr.Comparison, 0, len(exp))
	for _, name := range slices.Sorted(maps.Keys(exp)) {
		c := exp[name]
		if c.AttributeValueList != nil && c.Value != nil {
			return nil, invalidParam("Value and AttributeValueList cannot be used together for Attribute: %s", name)
		}
		switch {
		case c.ComparisonOperator != nil:
			op := *c.ComparisonOperator
			if c.Exists != nil {
				return nil, invalidParam("Exists and ComparisonOperator cannot be used together for Attribute: %s", name)
			}
			if op != "NULL" && op != "NOT_NULL" && c.AttributeValueList == nil && c.Value == nil {
				return nil, invalidParam("Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", op, name)
			}
			if err := checkOperands(op, c.values()); err != nil {
				return nil, err
			}
			out = append(out, expr.Comparison{Attr: name, Op: op, Values: c.values()})
		case c.AttributeValueList != nil:
			return nil, invalidParam("AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", name)
		case c.Exists == nil || *c.Exists:
			if c.Value == nil {
				exists := "null"
				if c.Exists != nil {
					exists = "true"
				}
				return nil, invalidParam("Value must be provided when Exists is %s for Attribute: %s", exists, name)
			}
			out = append(out, expr.Comparison{Attr: name, Op: "EQ", Values: []attr.Value{*c.Value}})
		default:
			if c.Value != nil {
				return nil, invalidParam("Value cannot be used when Exists is false for Attribute: %s", name)
			}
			out = append(out, expr.Comparison{Attr: name, Op: "NULL"})
		}
	}
	return out, nil
}

// filterComparisons checks a QueryFilter, ScanFilter or KeyConditions map
// (its operators already checked as constraints) and turns it into
// comparisons.
func filterComparisons(conds legacyConditions) ([]expr.Comparison, error) {
	out := make([]expr.Comparison, 0, len(conds))
	for _, name := range slices.Sorted(maps.Keys(conds)) {
		c := conds[name]
		op := *c.ComparisonOperator
		if err := checkOperands(op, c.values()); err != nil {
			return nil, err
		}
		out = append(out, expr.Comparison{Attr: name, Op: op, Values: c.values()})
	}
	return out, nil
}

// legacyCondFn is the condition of Expected, QueryFilter or ScanFilter
// (nil when there is none to check).
func legacyCondFn(cs []expr.Comparison, conditionalOperator string) (*expr.Condition, condFn) {
	if len(cs) == 0 {
		return nil, nil
	}
	c := expr.LegacyCondition(cs, conditionalOperator == "OR")
	return c, func(it attr.Item) (bool, error) {
		ok, err := c.Eval(it)
		return ok, exprError(err)
	}
}

// checkAttributeUpdates checks AttributeUpdates entries (their Action
// members already checked as constraints) and turns them into updates: a
// value is required but for DELETE, which takes only sets, and ADD takes
// numbers, sets and lists.
func checkAttributeUpdates(us map[string]attributeUpdate) ([]expr.AttributeUpdate, error) {
	out := make([]expr.AttributeUpdate, 0, len(us))
	for _, name := range slices.Sorted(maps.Keys(us)) {
		u := us[name]
		action := "PUT"
		if u.Action != nil {
			action = *u.Action
		}
		switch {
		case u.Value == nil && action != "DELETE":
			return nil, invalidParam("Only DELETE action is allowed when no attribute value is specified")
		case u.Value != nil && action == "DELETE" && !isSetKind(u.Value.Kind):
			return nil, invalidParam("DELETE action with value is not supported for the type %s", u.Value.Kind)
		case u.Value != nil && action == "ADD" && !isSetKind(u.Value.Kind) && u.Value.Kind != attr.N && u.Value.Kind != attr.L:
			return nil, invalidParam("ADD action is not supported for the type %s", u.Value.Kind)
		}
		out = append(out, expr.AttributeUpdate{Attr: name, Action: action, Value: u.Value})
	}
	return out, nil
}

func isSetKind(k attr.Kind) bool { return k == attr.SS || k == attr.NS || k == attr.BS }

// actions checks the Action members of AttributeUpdates.
func (v *violations) actions(us map[string]attributeUpdate) {
	for _, name := range slices.Sorted(maps.Keys(us)) {
		if a := us[name].Action; a != nil {
			if *a == "" {
				v.add(a, "attributeUpdates."+name+".member.action", "Member must satisfy enum value set: ["+strings.Join(enumAttributeAction, ", ")+"]")
				continue
			}
			v.enum("attributeUpdates."+name+".member.action", *a, enumAttributeAction)
		}
	}
}

// legacyUpdateFn is the update AttributeUpdates describe, refusing changes
// to t's key attributes as UpdateExpression does.
func legacyUpdateFn(us []expr.AttributeUpdate, t *table) (updateFn, error) {
	return bindUpdate(expr.LegacyUpdate(us), t)
}

// legacyKeyCondition binds KeyConditions (already checked by
// filterComparisons) to the source's key schema with DynamoDB's messages,
// in the order it reports them: key attributes first, then operators that
// cannot use the key order, value types, and a partition condition other
// than EQ.
func legacyKeyCondition(conds []expr.Comparison, s source) (keyCond, error) {
	byName := map[string]expr.Comparison{}
	for _, c := range conds {
		byName[c.Attr] = c
	}
	kc := &expr.KeyCondition{}
	for i, k := range []struct {
		name string
		kind attr.Kind
	}{{s.hash, s.hkind}, {s.rng, s.rkind}} {
		hash := i == 0
		if k.name == "" {
			break
		}
		if hash && s.rng == "" && len(conds) > 1 {
			return keyCond{}, validationf("Query key condition not supported")
		}
		c, ok := byName[k.name]
		if !ok {
			if hash || len(conds) > 1 {
				return keyCond{}, validationf("Query condition missed key schema element: %s", k.name)
			}
			continue
		}
		switch c.Op {
		case "NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN":
			return keyCond{}, validationf("Attempted conditional constraint is not an indexable operation")
		}
		for _, v := range c.Values {
			if v.Kind != k.kind {
				return keyCond{}, invalidParam("Condition parameter type does not match schema type")
			}
		}
		if hash && c.Op != "EQ" {
			return keyCond{}, validationf("Query key condition not supported")
		}
		cond := expr.KeyCond{Name: c.Attr, Op: expr.KeyOp(c.Op), Values: c.Values}
		if hash {
			kc.Partition = cond
		} else {
			kc.Sort = &cond
		}
	}
	return bindKeyCondition(kc, s)
}
