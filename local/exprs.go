package local

import (
	"errors"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// condFn evaluates a condition or filter on an item (nil when absent).
type condFn func(attr.Item) (bool, error)

// updateFn applies an update expression to a copy of the item and returns it
// with the top-level attribute names it changed.
type updateFn func(attr.Item) (attr.Item, []string, error)

// projFn keeps the projected attributes of an item.
type projFn func(attr.Item) attr.Item

// exprs parses one request's expressions with one placeholder environment,
// so unused names and values can be refused as DynamoDB does.
type exprs struct {
	env *expr.Env
	err error
}

func newExprs(names map[string]string, values attr.Item) *exprs {
	env, err := expr.NewEnv(names, values)
	return &exprs{env: env, err: exprError(err)}
}

// newStatementExprs is newExprs for the expressions the engine writes for a
// PartiQL statement (expr.NewStatementEnv).
func newStatementExprs(names map[string]string, values attr.Item) *exprs {
	env, err := expr.NewStatementEnv(names, values)
	return &exprs{env: env, err: exprError(err)}
}

// exprError turns expression errors into ValidationException.
func exprError(err error) error {
	if err == nil {
		return nil
	}
	var ee *expr.Error
	if errors.As(err, &ee) {
		return validationf("%s", ee.Msg)
	}
	var ve *attr.ValidationError
	if errors.As(err, &ve) {
		return validationf("%s", ve.Msg)
	}
	return err
}

func (x *exprs) condition(src *string) (condFn, error) {
	if x.err != nil {
		return nil, x.err
	}
	if src == nil {
		return nil, nil
	}
	c, err := expr.ParseCondition(*src, x.env)
	if err != nil {
		return nil, exprError(err)
	}
	return func(it attr.Item) (bool, error) {
		ok, err := c.Eval(it)
		return ok, exprError(err)
	}, nil
}

func (x *exprs) filter(src *string) (*expr.Condition, condFn, error) {
	if x.err != nil {
		return nil, nil, x.err
	}
	if src == nil {
		return nil, nil, nil
	}
	c, err := expr.ParseFilter(*src, x.env)
	if err != nil {
		return nil, nil, exprError(err)
	}
	return c, func(it attr.Item) (bool, error) {
		ok, err := c.Eval(it)
		return ok, exprError(err)
	}, nil
}

// parseKeyCondition parses a KeyConditionExpression, to be bound to the key
// schema once the table is known (bindKeyExpression).
func (x *exprs) parseKeyCondition(src string) (*expr.KeyCondition, error) {
	if x.err != nil {
		return nil, x.err
	}
	kc, err := expr.ParseKeyCondition(src, x.env)
	if err != nil {
		return nil, exprError(err)
	}
	return kc, nil
}

// bindKeyExpression assigns a parsed KeyConditionExpression to the source's
// key attributes.
func bindKeyExpression(kc *expr.KeyCondition, s source) (keyCond, error) {
	if err := kc.Bind(s.hash, s.rng); err != nil {
		return keyCond{}, exprError(err)
	}
	return bindKeyCondition(kc, s)
}

// walkOps names each key condition operator as keyCond.op does.
var walkOps = map[expr.KeyOp]string{
	expr.EQ: "=", expr.LT: "<", expr.LE: "<=", expr.GT: ">", expr.GE: ">=",
	expr.BETWEEN: "BETWEEN", expr.BEGINSWITH: "begins_with",
}

// bindKeyCondition turns a bound key condition (from a
// KeyConditionExpression or KeyConditions) into the range the source's
// walk reads, checking value types against the key attribute types.
func bindKeyCondition(kc *expr.KeyCondition, s source) (keyCond, error) {
	out := keyCond{hash: kc.Partition.Values[0]}
	if out.hash.Kind != s.hkind {
		return keyCond{}, invalidParam("Condition parameter type does not match schema type")
	}
	if kc.Sort != nil {
		for _, v := range kc.Sort.Values {
			if v.Kind != s.rkind {
				return keyCond{}, invalidParam("Condition parameter type does not match schema type")
			}
		}
		out.op = walkOps[kc.Sort.Op]
		switch kc.Sort.Op {
		case expr.BETWEEN:
			if attr.Compare(kc.Sort.Values[0], kc.Sort.Values[1]) > 0 {
				return keyCond{}, invalidParam("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s:%s}, upper bound operand: AttributeValue: {%s:%s}",
					kc.Sort.Values[0].Kind, keyText(kc.Sort.Values[0]), kc.Sort.Values[1].Kind, keyText(kc.Sort.Values[1]))
			}
		case expr.BEGINSWITH:
			if s.rkind == attr.N {
				return keyCond{}, validationf("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
			}
		}
		out.v1 = kc.Sort.Values[0]
		if len(kc.Sort.Values) > 1 {
			out.v2 = kc.Sort.Values[1]
		}
	}
	return out, nil
}

func keyText(v attr.Value) string {
	if v.Kind == attr.B {
		return string(v.Bytes)
	}
	return v.Str
}

// checkUnused refuses placeholders no expression used.
func (x *exprs) checkUnused() error {
	if x.err != nil {
		return x.err
	}
	return exprError(x.env.Unused())
}

// lastCondition parses a write's ConditionExpression, its last expression,
// and then refuses placeholders that no expression of the request used.
func (x *exprs) lastCondition(src *string) (condFn, error) {
	cond, err := x.condition(src)
	if err != nil {
		return nil, err
	}
	return cond, x.checkUnused()
}

// lastProjection is projection for a read whose only expression it is,
// refusing placeholders it did not use.
func (x *exprs) lastProjection(src *string, attrsToGet []string) (projFn, error) {
	proj, err := x.projection(src, attrsToGet)
	if err != nil {
		return nil, err
	}
	return proj, x.checkUnused()
}

// projection parses a ProjectionExpression, or turns the legacy
// AttributesToGet into the same thing.
func (x *exprs) projection(src *string, attrsToGet []string) (projFn, error) {
	if x.err != nil {
		return nil, x.err
	}
	if attrsToGet != nil {
		keep := make(map[string]bool, len(attrsToGet))
		for _, a := range attrsToGet {
			if keep[a] {
				return nil, validationf("One or more parameter values were invalid: Duplicate value in attribute name: %s", a)
			}
			keep[a] = true
		}
		return func(it attr.Item) attr.Item {
			out := make(attr.Item, len(keep))
			for k := range keep {
				if v, ok := it[k]; ok {
					out[k] = v
				}
			}
			return out
		}, nil
	}
	if src == nil {
		return nil, nil
	}
	pr, err := expr.ParseProjection(*src, x.env)
	if err != nil {
		return nil, exprError(err)
	}
	return pr.Apply, nil
}

// parseUpdate parses an UpdateExpression (nil when absent).
func (x *exprs) parseUpdate(src *string) (*expr.Update, error) {
	if x.err != nil {
		return nil, x.err
	}
	if src == nil {
		return nil, nil
	}
	u, err := expr.ParseUpdate(*src, x.env)
	return u, exprError(err)
}

// update parses an UpdateExpression and binds it to t in one step, for
// callers that need no check between the two.
func (x *exprs) update(src *string, t *table) (updateFn, error) {
	u, err := x.parseUpdate(src)
	if err != nil {
		return nil, err
	}
	return bindUpdate(u, t)
}

// bindUpdate refuses an update of t's key attributes and returns the
// update to apply (nil for none).
func bindUpdate(u *expr.Update, t *table) (updateFn, error) {
	if u == nil {
		return nil, nil
	}
	names := u.Names()
	for _, n := range names {
		if n == t.hash || n == t.rng {
			return nil, invalidParam("Cannot update attribute %s. This attribute is part of the key", n)
		}
	}
	return func(it attr.Item) (attr.Item, []string, error) {
		out, err := u.Apply(it)
		if err != nil {
			return nil, nil, exprError(err)
		}
		return out, names, nil
	}, nil
}
