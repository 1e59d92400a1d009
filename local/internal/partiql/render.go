package partiql

import (
	"strconv"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// Placeholders carries the ExpressionAttributeNames and
// ExpressionAttributeValues that translated expressions refer to. Every
// name and every value goes through a placeholder, so no attribute name
// collides with DynamoDB's reserved words and no value is spelled as text.
type Placeholders struct {
	Names  map[string]string
	Values map[string]attr.Value
}

// render writes PartiQL expressions as DynamoDB expression text.
type render struct {
	ph     *Placeholders
	byName map[string]string
	params []attr.Value
}

func newRender(params []attr.Value) *render {
	return &render{ph: &Placeholders{}, byName: map[string]string{}, params: params}
}

func (r *render) name(n string) string {
	if ph, ok := r.byName[n]; ok {
		return ph
	}
	if r.ph.Names == nil {
		r.ph.Names = map[string]string{}
	}
	ph := "#n" + strconv.Itoa(len(r.ph.Names))
	r.ph.Names[ph] = n
	r.byName[n] = ph
	return ph
}

func (r *render) value(v attr.Value) string {
	if r.ph.Values == nil {
		r.ph.Values = map[string]attr.Value{}
	}
	ph := ":v" + strconv.Itoa(len(r.ph.Values))
	r.ph.Values[ph] = v
	return ph
}

// path renders a document path with a placeholder for every name.
func (r *render) path(p *PathExpr) string {
	var sb strings.Builder
	for i, s := range p.Steps {
		switch {
		case s.IsIndex:
			sb.WriteString("[" + strconv.Itoa(s.Index) + "]")
		default:
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(r.name(s.Name))
		}
	}
	return sb.String()
}

// conditionFunctions are the functions that are conditions by themselves.
var conditionFunctions = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true,
}

// isBool reports whether e is a condition rather than a value.
func isBool(e Expr) bool {
	switch e := e.(type) {
	case *BinaryExpr:
		switch e.Op {
		case "AND", "OR", "=", "<>", "<", "<=", ">", ">=", "LIKE":
			return true
		}
	case *UnaryExpr:
		return e.Op == "NOT"
	case *BetweenExpr, *InExpr, *IsExpr:
		return true
	case *CallExpr:
		return conditionFunctions[e.Name]
	}
	return false
}

// Precedences of rendered conditions: a condition is wrapped in parentheses
// only where its operator binds looser than the one around it, which keeps
// the text short (DynamoDB's 4 KB expression limit does not apply to a
// statement, only to the text it becomes here).
const (
	precOr   = iota // a OR b
	precAnd         // a AND b
	precAtom        // NOT a, comparisons, functions
)

func wrap(s string) string { return "(" + s + ")" }

// at renders c for a place that needs precedence min.
func at(c string, prec, min int) string {
	if prec < min {
		return wrap(c)
	}
	return c
}

// cond renders a WHERE condition.
func (r *render) cond(e Expr) (string, error) {
	s, _, err := r.condPrec(e)
	return s, err
}

// not renders NOT c.
func not(c string, prec int) (string, int) { return "NOT " + at(c, prec, precAtom), precAtom }

// condPrec renders a condition and says how loosely it binds.
func (r *render) condPrec(e Expr) (string, int, error) {
	switch e := e.(type) {
	case *BinaryExpr:
		switch e.Op {
		case "AND", "OR":
			prec := precAnd
			if e.Op == "OR" {
				prec = precOr
			}
			l, lp, err := r.boolOperand(e.L, msgAndOrOperands)
			if err != nil {
				return "", 0, err
			}
			rt, rp, err := r.boolOperand(e.R, msgAndOrOperands)
			if err != nil {
				return "", 0, err
			}
			return at(l, lp, prec) + " " + e.Op + " " + at(rt, rp, prec), prec, nil
		case "=", "<>", "<", "<=", ">", ">=":
			return r.comparison(e)
		}
		return "", 0, unsupportedCondition(e.Op)
	case *UnaryExpr:
		if e.Op != "NOT" {
			return "", 0, unsupportedCondition(e.Op)
		}
		x, xp, err := r.boolOperand(e.X, msgNotOperand)
		if err != nil {
			return "", 0, err
		}
		s, p := not(x, xp)
		return s, p, nil
	case *BetweenExpr:
		var ops [3]string
		for i, o := range []Expr{e.X, e.Lo, e.Hi} {
			if err := orderable(o, "BETWEEN"); err != nil {
				return "", 0, err
			}
			s, err := r.operand(o)
			if err != nil {
				return "", 0, err
			}
			ops[i] = s
		}
		s := ops[0] + " BETWEEN " + ops[1] + " AND " + ops[2]
		if e.Not {
			s, _ = not(s, precAtom)
		}
		return s, precAtom, nil
	case *InExpr:
		s, err := r.in(e)
		return s, precAtom, err
	case *IsExpr:
		s, err := r.is(e)
		return s, precAtom, err
	case *CallExpr:
		if !conditionFunctions[e.Name] {
			if e.Name == "size" {
				return "", 0, errorf(msgWhereBoolean)
			}
			return "", 0, errorAt(e.Pos, "Unrecognized function: %s", e.Name)
		}
		s, err := r.call(e)
		return s, precAtom, err
	case *MissingExpr:
		return "", 0, errorf(msgMissingCompare)
	}
	return "", 0, errorf(msgWhereBoolean)
}

// boolOperand renders an operand of AND, OR or NOT, which must be a
// condition; like DynamoDB it reports what is wrong inside the operand
// before refusing one that is not a condition (with msg).
func (r *render) boolOperand(e Expr, msg string) (string, int, error) {
	if isBool(e) {
		return r.condPrec(e)
	}
	if _, err := r.operand(e); err != nil {
		return "", 0, err
	}
	return "", 0, errorf("%s", msg)
}

func unsupportedCondition(op string) error {
	return errorf("Unsupported operator in Condition Expression. Operator: %s", strings.ToLower(op))
}

// comparison renders =, <>, <, <=, >, >=. A condition compared with TRUE
// or FALSE is the condition or its negation.
func (r *render) comparison(e *BinaryExpr) (string, int, error) {
	for _, side := range [2][2]Expr{{e.L, e.R}, {e.R, e.L}} {
		c, other := side[0], side[1]
		lit, ok := other.(*LitExpr)
		if !isBool(c) || !ok || lit.Num != "" || lit.V.Kind != attr.BOOL {
			continue
		}
		if e.Op != "=" && e.Op != "<>" {
			return "", 0, errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: BOOL", e.Op)
		}
		s, p, err := r.condPrec(c)
		if err != nil {
			return "", 0, err
		}
		if lit.V.Bool == (e.Op == "=") {
			return s, p, nil
		}
		s, p = not(s, p)
		return s, p, nil
	}
	if isBool(e.L) || isBool(e.R) {
		return "", 0, errorf(msgWhereBoolean)
	}
	if e.Op != "=" && e.Op != "<>" {
		for _, o := range []Expr{e.L, e.R} {
			if err := orderable(o, e.Op); err != nil {
				return "", 0, err
			}
		}
	}
	l, err := r.operand(e.L)
	if err != nil {
		return "", 0, err
	}
	rt, err := r.operand(e.R)
	if err != nil {
		return "", 0, err
	}
	return l + " " + e.Op + " " + rt, precAtom, nil
}

// orderable refuses a constant of a type that has no order as an operand of
// op, as DynamoDB does before reading any item.
func orderable(e Expr, op string) error {
	var k attr.Kind
	switch e := e.(type) {
	case *LitExpr:
		if e.Num != "" {
			return nil
		}
		k = e.V.Kind
	case *ListExpr:
		k = attr.L
	case *MapExpr:
		k = attr.M
	case *BagExpr:
		k = attr.SS
		if len(e.Elems) > 0 {
			if lit, ok := e.Elems[0].(*LitExpr); ok && lit.Num != "" {
				k = attr.NS
			}
		}
	default:
		return nil
	}
	if k == attr.S || k == attr.N || k == attr.B {
		return nil
	}
	return errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, k)
}

// maxInOperands is DynamoDB's limit on the values of one IN.
const maxInOperands = 100

func (r *render) in(e *InExpr) (string, error) {
	if len(e.List) == 0 {
		return "", errorf(msgInOperands)
	}
	if len(e.List) > maxInOperands {
		return "", errorf("The IN operator is provided with too many operands; number of operands: %d", len(e.List))
	}
	x, err := r.operand(e.X)
	if err != nil {
		return "", err
	}
	ops := make([]string, len(e.List))
	for i, o := range e.List {
		if ops[i], err = r.operand(o); err != nil {
			return "", err
		}
	}
	s := x + " IN (" + strings.Join(ops, ", ") + ")"
	if e.Not {
		s, _ = not(s, precAtom)
	}
	return s, nil
}

// dynamoTypes maps the IS types DynamoDB supports to attribute types.
var dynamoTypes = map[string]string{
	"BOOLEAN": "BOOL", "NUMERIC": "N", "STRING": "S", "BLOB": "B", "STRUCT": "M", "TUPLE": "M", "LIST": "L",
}

func (r *render) is(e *IsExpr) (string, error) {
	switch e.X.(type) {
	case *PathExpr, *LitExpr:
	default:
		return "", errorf("The left hand side argument to IS must be a Variable Reference, Literal, or Path")
	}
	x, err := r.operand(e.X)
	if err != nil {
		return "", err
	}
	var s string
	switch t := e.Type; t {
	case "MISSING":
		s = "attribute_not_exists(" + x + ")"
	case "NULL":
		s = x + " = " + r.value(attr.Null())
	default:
		dt, ok := dynamoTypes[t]
		if !ok {
			return "", errorf("Unsupported data type for IS operator: %s. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]", t)
		}
		s = "attribute_type(" + x + ", " + r.value(attr.String(dt)) + ")"
	}
	if e.Not {
		s, _ = not(s, precAtom)
	}
	return s, nil
}

// constant renders a literal or a parameter as a value placeholder.
func (r *render) constant(e Expr) (string, error) {
	v, err := value(e, r.params, "root", 1)
	if err != nil {
		return "", err
	}
	return r.value(v), nil
}

// arity is the number of operands of each function.
var arity = map[string]int{
	"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2, "begins_with": 2,
	"contains": 2, "size": 1, "list_append": 2, "if_not_exists": 2,
}

func checkArity(e *CallExpr) error {
	if n := arity[e.Name]; n != len(e.Args) {
		return errorf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", e.Name, len(e.Args))
	}
	return nil
}

// call renders a function call of a condition.
func (r *render) call(e *CallExpr) (string, error) {
	return r.callOf(e, r.operand)
}

// callOf renders a call of e's function, each argument rendered by arg,
// once the number of arguments is checked.
func (r *render) callOf(e *CallExpr, arg func(Expr) (string, error)) (string, error) {
	if err := checkArity(e); err != nil {
		return "", err
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		var err error
		if args[i], err = arg(a); err != nil {
			return "", err
		}
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")", nil
}

// operand renders a value of a condition: a path, a constant or size().
func (r *render) operand(e Expr) (string, error) {
	switch e := e.(type) {
	case *PathExpr:
		return r.path(e), nil
	case *LitExpr, *ParamExpr, *ListExpr, *MapExpr, *BagExpr:
		return r.constant(e)
	case *CallExpr:
		if e.Name == "size" {
			return r.call(e)
		}
		if !conditionFunctions[e.Name] {
			return "", errorAt(e.Pos, "Unrecognized function: %s", e.Name)
		}
		return "", errorf("The function is not allowed to be used this way in an expression; function: %s", e.Name)
	case *MissingExpr:
		return "", errorf(msgMissingCompare)
	case *BinaryExpr:
		return "", unsupportedCondition(e.Op)
	case *UnaryExpr:
		return "", unsupportedCondition(e.Op)
	}
	return "", errorf(msgWhereBoolean)
}
