package partiql

import (
	"slices"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// update renders SET and REMOVE actions as an UpdateExpression. SET a =
// set_add(a, <<..>>) and set_delete become ADD and DELETE actions, which
// is what they mean.
func (r *render) update(actions []Action) (string, error) {
	var sets, removes, adds, deletes []string
	for _, a := range actions {
		target := r.path(a.Path)
		if a.Remove {
			removes = append(removes, target)
			continue
		}
		if c, ok := a.Value.(*CallExpr); ok && (c.Name == "set_add" || c.Name == "set_delete") {
			v, err := r.setFunction(a.Path, c)
			if err != nil {
				return "", err
			}
			if c.Name == "set_add" {
				adds = append(adds, target+" "+v)
			} else {
				deletes = append(deletes, target+" "+v)
			}
			continue
		}
		v, err := r.updateValue(a.Value)
		if err != nil {
			return "", err
		}
		sets = append(sets, target+" = "+v)
	}
	var parts []string
	for _, sec := range []struct {
		kw   string
		list []string
	}{{"SET", sets}, {"REMOVE", removes}, {"ADD", adds}, {"DELETE", deletes}} {
		if len(sec.list) > 0 {
			parts = append(parts, sec.kw+" "+strings.Join(sec.list, ", "))
		}
	}
	return strings.Join(parts, " "), nil
}

// setFunction checks set_add(target, set) and set_delete(target, set) and
// renders the set.
func (r *render) setFunction(target *PathExpr, c *CallExpr) (string, error) {
	fn := strings.ToUpper(strings.TrimPrefix(c.Name, "set_"))
	if len(c.Args) != 2 {
		return "", errorAt(c.Pos, "SET_%s must have exactly two arguments", fn)
	}
	if p, ok := c.Args[0].(*PathExpr); !ok || !slices.Equal(p.Steps, target.Steps) {
		return "", errorAt(c.Pos, "The first argument to SET_%s must equal the assignment value", fn)
	}
	notSet := errorAt(c.Args[0].position(), "The second argument to SET_%s must be a value with type SET", fn)
	switch c.Args[1].(type) {
	case *BagExpr, *ParamExpr:
	default:
		return "", notSet
	}
	v, err := value(c.Args[1], r.params, "root", 1)
	if err != nil {
		return "", err
	}
	if v.Kind != attr.SS && v.Kind != attr.NS && v.Kind != attr.BS {
		return "", notSet
	}
	return r.value(v), nil
}

// updateValue renders the right-hand side of SET: an operand, + or - of two
// operands, list_append or if_not_exists.
func (r *render) updateValue(e Expr) (string, error) {
	switch e := e.(type) {
	case *PathExpr:
		return r.path(e), nil
	case *LitExpr, *ParamExpr, *ListExpr, *MapExpr, *BagExpr:
		return r.constant(e)
	case *BinaryExpr:
		if e.Op != "+" && e.Op != "-" {
			return "", errorf("Unsupported operator in Update Expression. Operator: %s", strings.ToLower(e.Op))
		}
		var ops [2]string
		for i, o := range []Expr{e.L, e.R} {
			if b, ok := o.(*BinaryExpr); ok {
				// One arithmetic operator per value, as in UpdateExpression.
				return "", errorf("Unsupported operator in Update Expression. Operator: %s", strings.ToLower(b.Op))
			}
			if constant(o) {
				v, err := value(o, r.params, "root", 1)
				if err != nil {
					return "", err
				}
				if v.Kind != attr.N {
					return "", errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", e.Op, v.Kind)
				}
			}
			s, err := r.updateValue(o)
			if err != nil {
				return "", err
			}
			ops[i] = s
		}
		return ops[0] + " " + e.Op + " " + ops[1], nil
	case *CallExpr:
		if e.Name != "list_append" && e.Name != "if_not_exists" {
			return "", errorAt(e.Pos, "Unrecognized function: %s", e.Name)
		}
		for _, a := range e.Args {
			if b, ok := a.(*BinaryExpr); ok {
				// A function's operands are paths, values or functions,
				// as in UpdateExpression.
				return "", errorf("Unsupported operator in Update Expression. Operator: %s", strings.ToLower(b.Op))
			}
		}
		return r.callOf(e, r.updateValue)
	case *IsExpr:
		return "", errorf(msgIsInUpdate)
	case *MissingExpr:
		return "", errorf(msgMissingCompare)
	case *UnaryExpr:
		return "", errorf("Unsupported operator in Update Expression. Operator: %s", strings.ToLower(e.Op))
	}
	return "", errorf("Unsupported operator in Update Expression. Operator: %s", kindName(e))
}
