package expr

import (
	"strconv"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

type nodeKind uint8

const (
	nPath nodeKind = iota
	nValue
	nSize
	nFunc // boolean function (or an unknown function name)
	nCmp
	nBetween
	nIn
	nAnd
	nOr
	nNot
)

type fnKind uint8

const (
	fnUnknown fnKind = iota
	fnExists
	fnNotExists
	fnType
	fnBeginsWith
	fnContains
	fnSize
)

var functions = map[string]struct {
	fn   fnKind
	args int
}{
	"attribute_exists":     {fnExists, 1},
	"attribute_not_exists": {fnNotExists, 1},
	"attribute_type":       {fnType, 2},
	"begins_with":          {fnBeginsWith, 2},
	"contains":             {fnContains, 2},
	"size":                 {fnSize, 1},
}

// node is one element of a parsed condition. A single struct with a kind tag
// keeps evaluation a switch instead of interface dispatch.
type node struct {
	kind   nodeKind
	op     tokKind // comparator of nCmp
	fn     fnKind
	name   string // function name
	path   Path
	val    attr.Value
	ph     string // the :value placeholder of an nValue parsed from an expression
	kids   []*node
	parens bool // wrapped in parentheses and not yet combined with anything
}

func (n *node) isBool() bool { return n.kind >= nFunc }

// staticType is the operand's type when known before evaluation: the kind
// of a constant, N for size(), Invalid for paths.
func (n *node) staticType() attr.Kind {
	switch n.kind {
	case nValue:
		return n.val.Kind
	case nSize:
		return attr.N
	}
	return attr.Invalid
}

// Condition is a parsed ConditionExpression or FilterExpression.
type Condition struct {
	root  *node
	names []string
}

// ParseCondition parses a ConditionExpression.
func ParseCondition(s string, env *Env) (*Condition, error) {
	return parseCondition(s, ConditionExpression, env)
}

// ParseFilter parses a FilterExpression; only the message prefix differs
// from ParseCondition.
func ParseFilter(s string, env *Env) (*Condition, error) {
	return parseCondition(s, FilterExpression, env)
}

func parseCondition(s string, kind Kind, env *Env) (*Condition, error) {
	if c, ok := parses.condition(kind, s, env); ok {
		return c, nil
	}
	c, p, err := parseConditionText(s, kind, env)
	if err == nil {
		parses.keepCondition(kind, s, env, p)
	}
	return c, err
}

// parseConditionText parses s without the cache, returning the parser too
// (for the placeholders it resolved).
func parseConditionText(s string, kind Kind, env *Env) (*Condition, *parser, error) {
	p := newParser(s, kind, env)
	var root *node
	if err := p.run(func() { root = p.conditionRoot() }); err != nil {
		return nil, p, err
	}
	if msg := p.conditionErrors(); msg != "" {
		return nil, p, errorf(p.prefix() + msg)
	}
	c := &Condition{root: root}
	c.names = topNames(root, nil)
	return c, p, nil
}

func (p *parser) conditionRoot() *node {
	root := p.or()
	if !root.isBool() {
		p.failHere()
	}
	p.expectEOF()
	return root
}

func (p *parser) conditionErrors() string {
	s := &p.sem
	return first(s.parens, s.unknownFunction, s.misusedFunction, s.reserved,
		s.attrNameVal, s.operand, s.distinct, s.function)
}

// Names returns the distinct top-level attribute names the condition reads,
// so the engine can refuse key attributes in a Query filter.
func (c *Condition) Names() []string { return c.names }

func topNames(n *node, acc []string) []string {
	if n.kind == nPath {
		for _, a := range acc {
			if a == n.path[0].Name {
				return acc
			}
		}
		return append(acc, n.path[0].Name)
	}
	for _, k := range n.kids {
		acc = topNames(k, acc)
	}
	return acc
}

// ---- grammar ----

func (p *parser) or() *node  { return p.logical("OR", nOr, p.and) }
func (p *parser) and() *node { return p.logical("AND", nAnd, p.not) }

// logical parses operand (keyword operand)*, left-associative, into nodes
// of kind.
func (p *parser) logical(keyword string, kind nodeKind, operand func() *node) *node {
	left := operand()
	for p.isKeyword(keyword) {
		at := p.pos
		p.next()
		right := operand()
		left = p.combine(kind, at, left, right)
	}
	return left
}

func (p *parser) combine(kind nodeKind, at int, l, r *node) *node {
	if !l.isBool() {
		p.fail(at)
	}
	if !r.isBool() {
		p.failHere()
	}
	p.checkMisusedSize(l)
	p.checkMisusedSize(r)
	return &node{kind: kind, kids: []*node{l, r}}
}

func (p *parser) not() *node {
	if p.isKeyword("NOT") {
		p.next()
		n := p.not()
		if !n.isBool() {
			p.failHere()
		}
		p.checkMisusedSize(n)
		return &node{kind: nNot, kids: []*node{n}}
	}
	return p.comparison()
}

// comparison parses an operand followed by an optional comparator, BETWEEN
// or IN, or a parenthesised condition, or a function call.
func (p *parser) comparison() *node {
	var left *node
	if p.peek().kind == tLParen {
		p.next()
		inner := p.or()
		p.expect(tRParen)
		left = p.parenthesised(inner)
	} else {
		left = p.operand()
	}
	t := p.peek()
	switch {
	case t.kind >= tEq && t.kind <= tGe:
		if left.isBool() && left.kind != nFunc {
			p.failHere()
		}
		p.next()
		right := p.operandParens()
		p.checkMisused(left, right)
		p.checkDistinct(p.text(t), left, right)
		return &node{kind: nCmp, op: t.kind, kids: []*node{left, right}}
	case p.isKeyword("BETWEEN"):
		if left.isBool() && left.kind != nFunc {
			p.failHere()
		}
		p.next()
		lo := p.operandParens()
		if !p.isKeyword("AND") {
			p.failHere()
		}
		p.next()
		hi := p.operandParens()
		p.checkMisused(left, lo, hi)
		p.checkBetween(lo, hi)
		return &node{kind: nBetween, kids: []*node{left, lo, hi}}
	case p.isKeyword("IN"):
		if left.isBool() && left.kind != nFunc {
			p.failHere()
		}
		p.next()
		p.expect(tLParen)
		kids := []*node{left, p.operandParens()}
		for p.peek().kind == tComma {
			p.next()
			kids = append(kids, p.operandParens())
		}
		p.expect(tRParen)
		p.checkMisused(kids...)
		if len(kids)-1 > 100 {
			set(&p.sem.operand, "Too many operands for operator or function; operator or function: IN, number of operands: "+strconv.Itoa(len(kids)-1))
		}
		return &node{kind: nIn, kids: kids}
	}
	if left.kind == nSize && p.peek().kind != tRParen {
		// size() standing alone as a condition
		set(&p.sem.misusedFunction, "The function is not allowed to be used this way in an expression; function: size")
		return &node{kind: nFunc, fn: fnSize, name: "size", kids: []*node{left}}
	}
	if !left.isBool() && p.peek().kind != tRParen {
		p.failHere()
	}
	return left
}

// operandParens parses an operand, optionally wrapped in parentheses.
func (p *parser) operandParens() *node {
	if p.peek().kind != tLParen {
		return p.operand()
	}
	p.next()
	inner := p.operandParens()
	p.expect(tRParen)
	return p.parenthesised(inner)
}

// parenthesised marks n as read in parentheses; a second pair around it is
// redundant, which DynamoDB refuses.
func (p *parser) parenthesised(n *node) *node {
	if n.parens {
		set(&p.sem.parens, "The expression has redundant parentheses;")
	}
	n.parens = true
	return n
}

// operand parses a function call, a :value or a document path.
func (p *parser) operand() *node {
	t := p.peek()
	switch t.kind {
	case tValue:
		v, ph := p.value()
		return &node{kind: nValue, val: v, ph: ph}
	case tIdent:
		if p.toks[p.pos+1].kind == tLParen {
			return p.function()
		}
		fallthrough
	case tName:
		return &node{kind: nPath, path: p.path()}
	}
	p.failHere()
	return nil
}

func (p *parser) function() *node {
	name := p.text(p.next())
	args := callArgs(p, p.operandParens)
	p.checkMisused(args...)
	n := &node{kind: nFunc, name: name, kids: args}
	spec, ok := functions[name]
	if !ok {
		set(&p.sem.unknownFunction, "Invalid function name; function: "+name)
		return n
	}
	n.fn = spec.fn
	if n.fn == fnSize {
		n.kind = nSize
	}
	if len(args) != spec.args {
		set(&p.sem.operand, "Incorrect number of operands for operator or function; operator or function: "+name+", number of operands: "+strconv.Itoa(len(args)))
		return n
	}
	if len(args) == 2 {
		p.checkDistinct(name, args[0], args[1])
	}
	switch n.fn {
	case fnExists, fnNotExists:
		if args[0].kind != nPath {
			set(&p.sem.function, "Operator or function requires a document path; operator or function: "+name)
		}
	case fnBeginsWith:
		for _, a := range args {
			if k := a.staticType(); k != attr.Invalid && k != attr.S && k != attr.B {
				set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+name+", operand type: "+k.String())
				break
			}
		}
	case fnType:
		if args[1].kind == nValue {
			p.readsValues = true
		}
		k := args[1].staticType()
		switch {
		case k == attr.Invalid:
			set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+name+", operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}")
		case k != attr.S:
			set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+name+", operand type: "+k.String())
		case attr.KindOf(args[1].val.Str) == attr.Invalid:
			set(&p.sem.function, "Invalid attribute type name found; type: "+args[1].val.Str+", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}")
		}
	case fnSize:
		switch k := args[0].staticType(); k {
		case attr.N, attr.BOOL, attr.NULL:
			set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+name+", operand type: "+k.String())
		}
	}
	return n
}

// checkMisused flags boolean functions used where a value is needed.
func (p *parser) checkMisused(args ...*node) {
	for _, a := range args {
		if a.kind == nFunc {
			set(&p.sem.misusedFunction, "The function is not allowed to be used this way in an expression; function: "+a.name)
			return
		}
	}
}

func (p *parser) checkMisusedSize(n *node) {
	if n.kind == nSize {
		set(&p.sem.misusedFunction, "The function is not allowed to be used this way in an expression; function: size")
	}
}

// checkDistinct refuses comparing a path with itself, as DynamoDB does.
func (p *parser) checkDistinct(op string, a, b *node) {
	if a.kind == nPath && b.kind == nPath && a.path.equal(b.path) {
		set(&p.sem.distinct, "The first operand must be distinct from the remaining operands for this operator or function; operator: "+op+", first operand: "+a.path.String())
	}
}

func (p *parser) checkBetween(lo, hi *node) {
	if lo.kind == nValue && hi.kind == nValue {
		p.readsValues = true
	}
	if lo.kind != nValue || hi.kind != nValue || lo.val.Kind == attr.Invalid || hi.val.Kind == attr.Invalid {
		return
	}
	bounds := "lower bound operand: AttributeValue: {" + literal(lo.val) + "}, upper bound operand: AttributeValue: {" + literal(hi.val) + "}"
	if lo.val.Kind != hi.val.Kind {
		set(&p.sem.function, "The BETWEEN operator requires same data type for lower and upper bounds; "+bounds)
		return
	}
	if scalar(lo.val.Kind) && attr.Compare(lo.val, hi.val) > 0 {
		set(&p.sem.function, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "+bounds)
	}
}

func scalar(k attr.Kind) bool { return k == attr.S || k == attr.N || k == attr.B }

// literal renders a value as DynamoDB's messages do: "S:a", "N:1".
func literal(v attr.Value) string {
	switch v.Kind {
	case attr.S, attr.N:
		return v.Kind.String() + ":" + v.Str
	case attr.B:
		b, _ := attr.Binary(v.Bytes).MarshalJSON()
		s := string(b)
		return "B:" + strings.TrimSuffix(strings.TrimPrefix(s, `{"B":"`), `"}`)
	}
	return v.Kind.String() + ":" + v.String()
}

// ---- evaluation ----
