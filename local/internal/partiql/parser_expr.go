package partiql

import (
	"strconv"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// expr parses an expression, one method a precedence level from the
// loosest: OR, AND, NOT, predicates (comparisons, IN, IS, BETWEEN, LIKE),
// + and -, * and /, unary signs, then primary terms and paths.
func (p *parser) expr() Expr { return p.or() }

func (p *parser) or() Expr  { return p.keywordInfix("OR", p.and) }
func (p *parser) and() Expr { return p.keywordInfix("AND", p.not) }

// keywordInfix parses operand (keyword operand)*, left-associative.
func (p *parser) keywordInfix(keyword string, operand func() Expr) Expr {
	l := operand()
	for is(p.peek(), keyword) {
		op := p.next()
		p.needRHS()
		l = &BinaryExpr{Pos: op.pos, Op: keyword, L: l, R: operand()}
	}
	return l
}

func (p *parser) not() Expr {
	if is(p.peek(), "NOT") {
		op := p.next()
		p.needTerm()
		return &UnaryExpr{Pos: op.pos, Op: "NOT", X: p.not()}
	}
	return p.predicate()
}

func (p *parser) predicate() Expr {
	l := p.additive()
	for {
		t := p.peek()
		if op, ok := comparisons[t.kind]; ok {
			p.next()
			p.needRHS()
			l = &BinaryExpr{Pos: t.pos, Op: op, L: l, R: p.additive()}
			continue
		}
		not := false
		if is(t, "NOT") && (is(p.peekAt(1), "BETWEEN") || is(p.peekAt(1), "IN") || is(p.peekAt(1), "LIKE")) {
			p.next()
			not = true
			t = p.peek()
		}
		switch {
		case is(t, "BETWEEN"):
			p.next()
			p.needRHS()
			lo := p.additive()
			if !p.accept("AND") {
				p.fail(malformed("Expected keyword"))
			}
			p.needRHS()
			return &BetweenExpr{Pos: t.pos, X: l, Lo: lo, Hi: p.additive(), Not: not}
		case is(t, "IN"):
			p.next()
			p.needRHS()
			return p.in(t, l, not)
		case is(t, "LIKE"):
			p.next()
			p.needRHS()
			return &BinaryExpr{Pos: t.pos, Op: "LIKE", L: l, R: p.additive()}
		case is(t, "IS"):
			p.next()
			n := p.accept("NOT")
			return &IsExpr{Pos: t.pos, X: l, Type: p.typeName(), Not: n}
		}
		return l
	}
}

// in reads IN's right-hand side: [..], (..) or <<..>>, or anything else,
// which DynamoDB refuses later with its own message.
func (p *parser) in(op token, l Expr, not bool) Expr {
	in := &InExpr{Pos: op.pos, X: l, Not: not}
	if p.peek().kind == tLParen {
		open := p.next()
		in.List = p.elements(tRParen)
		in.RHS = &ListExpr{Pos: open.pos, Elems: in.List}
		if in.List == nil {
			in.List = []Expr{}
		}
		return in
	}
	in.RHS = p.additive()
	switch rhs := in.RHS.(type) {
	case *ListExpr:
		in.List = rhs.Elems
	case *BagExpr:
		in.List = rhs.Elems
	}
	if in.List == nil {
		if _, ok := in.RHS.(*ListExpr); ok {
			in.List = []Expr{}
		}
	}
	return in
}

func (p *parser) typeName() string {
	t := p.peek()
	name, ok := "", false
	if t.kind == tWord {
		name, ok = typeNames[strings.ToUpper(t.text)]
	}
	if !ok {
		p.fail(malformed("Expected type name"))
	}
	p.next()
	switch {
	case name == "DOUBLE_PRECISION":
		if !p.accept("PRECISION") {
			p.fail(malformed("Expected type name"))
		}
	case name == "CHARACTER" && p.accept("VARYING"):
		name = "CHARACTER_VARYING"
	}
	return name
}

func (p *parser) additive() Expr {
	l := p.multiplicative()
	for {
		t := p.peek()
		var op string
		switch {
		case t.kind == tPlus:
			op = "+"
		case t.kind == tMinus:
			op = "-"
		case t.kind == tOp && t.text == "||":
			op = "||"
		default:
			return l
		}
		p.next()
		p.needRHS()
		l = &BinaryExpr{Pos: t.pos, Op: op, L: l, R: p.multiplicative()}
	}
}

func (p *parser) multiplicative() Expr {
	l := p.unary()
	for {
		t := p.peek()
		if t.kind != tStar && !(t.kind == tOp && t.text != "||") {
			return l
		}
		p.next()
		p.needRHS()
		l = &BinaryExpr{Pos: t.pos, Op: t.text, L: l, R: p.unary()}
	}
}

// unary folds signs into number literals (- - 1 is 1); a sign before
// anything else stays an operator, which DynamoDB refuses.
func (p *parser) unary() Expr {
	t := p.peek()
	if t.kind != tPlus && t.kind != tMinus {
		return p.primary()
	}
	p.next()
	p.needTerm()
	x := p.unary()
	if lit, ok := x.(*LitExpr); ok && lit.Num != "" {
		if t.kind == tMinus {
			if strings.HasPrefix(lit.Num, "-") {
				lit.Num = lit.Num[1:]
			} else {
				lit.Num = "-" + lit.Num
			}
		}
		lit.Pos = t.pos
		return lit
	}
	return &UnaryExpr{Pos: t.pos, Op: t.text, X: x}
}

// needRHS fails when an infix operator has nothing after it.
func (p *parser) needRHS() {
	switch p.peek().kind {
	case tEOF, tSemicolon, tRParen, tRBracket, tRBrace, tRBag, tComma:
		p.fail(malformed("Missing right-hand side expression of infix operator"))
	}
}

// needTerm fails when an operand must follow and does not.
func (p *parser) needTerm() {
	switch p.peek().kind {
	case tEOF, tSemicolon, tRParen, tRBracket, tRBrace, tRBag, tComma:
		p.fail(malformed("Unexpected term"))
	}
}

// operatorWord reports whether t is a keyword that is an operator.
func operatorWord(t token) bool {
	return is(t, "IS") || is(t, "LIKE") || is(t, "AND") || is(t, "OR") || is(t, "IN") || is(t, "BETWEEN") || is(t, "NOT")
}

// termError names what stands where an operand was expected.
func (p *parser) termError() string {
	t := p.peek()
	switch {
	case t.kind == tWord && operatorWord(t) && !is(t, "NOT"):
		return "Unexpected operator"
	case t.kind == tWord:
		return "Unexpected keyword"
	case t.kind == tOp || comparisons[t.kind] != "" || t.kind == tStar:
		return "Unexpected operator"
	}
	return "Unexpected term"
}

func (p *parser) primary() Expr {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return &LitExpr{Pos: t.pos, Num: t.text}
	case tString:
		p.next()
		return &LitExpr{Pos: t.pos, V: attr.String(t.text)}
	case tParam:
		p.next()
		p.params++
		return &ParamExpr{Pos: t.pos, N: p.params - 1}
	case tQuoted:
		return p.path()
	case tLParen:
		p.next()
		p.needTerm()
		e := p.expr()
		if p.peek().kind != tRParen {
			p.fail(malformed("Expected right parenthesis"))
		}
		p.next()
		return e
	case tLBracket:
		p.next()
		return &ListExpr{Pos: t.pos, Elems: p.elements(tRBracket)}
	case tLBag:
		p.next()
		return &BagExpr{Pos: t.pos, Elems: p.elements(tRBag)}
	case tLBrace:
		p.next()
		return p.tuple(t)
	case tWord:
		upper := strings.ToUpper(t.text)
		switch upper {
		case "TRUE", "FALSE":
			p.next()
			return &LitExpr{Pos: t.pos, V: attr.Bool(upper == "TRUE")}
		case "NULL":
			p.next()
			return &LitExpr{Pos: t.pos, V: attr.Null()}
		case "MISSING":
			p.next()
			return &MissingExpr{Pos: t.pos}
		}
		if p.peekAt(1).kind == tLParen && !operatorWord(t) {
			return p.call()
		}
		if !reserved(t.text) {
			return p.path()
		}
	}
	p.fail(malformed(p.termError()))
	return nil
}

// elements reads comma-separated expressions up to close.
func (p *parser) elements(close tokKind) []Expr {
	var out []Expr
	if p.peek().kind == close {
		p.next()
		return out
	}
	for {
		p.needTerm()
		out = append(out, p.expr())
		t := p.next()
		if t.kind == close {
			return out
		}
		if t.kind != tComma {
			p.fail(malformed("Unexpected token"))
		}
	}
}

// tuple reads {key: value, ...} after its opening brace.
func (p *parser) tuple(open token) Expr {
	m := &MapExpr{Pos: open.pos}
	if p.peek().kind == tRBrace {
		p.next()
		return m
	}
	for {
		p.needTerm()
		k := p.expr()
		if p.peek().kind != tColon {
			p.fail(malformed("Expected token type"))
		}
		p.next()
		p.needTerm()
		m.Keys = append(m.Keys, k)
		m.Vals = append(m.Vals, p.expr())
		t := p.next()
		if t.kind == tRBrace {
			return m
		}
		if t.kind != tComma {
			p.fail(malformed("Unexpected token"))
		}
	}
}

func (p *parser) call() Expr {
	name := p.next()
	p.next() // (
	c := &CallExpr{Pos: name.pos, Name: strings.ToLower(name.text)}
	if p.peek().kind == tStar {
		p.fail(malformed("Unexpected term"))
	}
	c.Args = p.elements(tRParen)
	return c
}

// pathOnly reads a path where nothing else may stand (SET and REMOVE
// targets).
func (p *parser) pathOnly() *PathExpr {
	t := p.peek()
	if t.kind != tQuoted && !(t.kind == tWord && !reserved(t.text)) {
		p.fail(malformed(p.termError()))
	}
	return p.path()
}

// path reads name { .name | [index] | ['name'] }.
func (p *parser) path() *PathExpr {
	first := p.next()
	pe := &PathExpr{Pos: first.pos, Steps: []Step{{Name: first.text}}}
	for {
		switch p.peek().kind {
		case tDot:
			p.next()
			t := p.next()
			switch {
			case t.kind == tQuoted || t.kind == tWord && !reserved(t.text):
				pe.Steps = append(pe.Steps, Step{Name: t.text})
			case t.kind == tStar:
				p.fail(errorf("Unpivot path component like a.*.b are not supported"))
			default:
				p.fail(malformed("Invalid path dot component"))
			}
		case tLBracket:
			p.next()
			pe.Steps = append(pe.Steps, p.index())
			if p.peek().kind != tRBracket {
				p.fail(malformed("Expected token type"))
			}
			p.next()
		default:
			return pe
		}
	}
}

// index reads what stands between a path's brackets: a list index or a
// quoted map key.
func (p *parser) index() Step {
	t := p.peek()
	neg := false
	if t.kind == tMinus {
		p.next()
		neg = true
		t = p.peek()
	}
	switch t.kind {
	case tNumber:
		p.next()
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil && strings.Trim(t.text, "0123456789") != "" {
			p.fail(errorAt(t.pos, "Unexpected path component"))
		}
		text := t.text
		if neg {
			text = "-" + text
		}
		if err != nil || n > 1<<31-1 || neg && n != 0 {
			p.fail(errorAt(t.pos, "List index is not within the allowable range; index: [%s]", text))
		}
		return Step{Index: int(n), IsIndex: true}
	case tString:
		if !neg {
			p.next()
			return Step{Name: t.text}
		}
	case tStar:
		p.fail(errorf("Wildcard path component like a[*].b are not supported"))
	}
	p.fail(errorAt(t.pos, "Unexpected path component"))
	return Step{}
}

// kindName names an expression the way DynamoDB's "Unsupported operation"
// and ORDER BY messages do.
func kindName(e Expr) string {
	switch e := e.(type) {
	case *IsExpr:
		return "IsType"
	case *PathExpr:
		if len(e.Steps) == 1 {
			return "VariableReference"
		}
		return "Path"
	case *LitExpr:
		return "Literal"
	case *MissingExpr:
		return "LiteralMissing"
	case *ParamExpr:
		return "Parameter"
	case *CallExpr, *BinaryExpr, *UnaryExpr, *BetweenExpr, *InExpr:
		return "NAry"
	case *ListExpr, *BagExpr:
		return "Seq"
	case *MapExpr:
		return "Struct"
	}
	return "Unknown"
}

var comparisons = map[tokKind]string{tEq: "=", tNe: "<>", tLt: "<", tLe: "<=", tGt: ">", tGe: ">="}

// typeNames maps the type names IS accepts to the names DynamoDB's
// messages use.
var typeNames = map[string]string{
	"MISSING": "MISSING", "NULL": "NULL", "BOOL": "BOOLEAN", "BOOLEAN": "BOOLEAN",
	"STRING": "STRING", "NUMERIC": "NUMERIC", "BLOB": "BLOB", "STRUCT": "STRUCT", "TUPLE": "TUPLE",
	"LIST": "LIST", "SMALLINT": "SMALLINT", "INT2": "SMALLINT", "INTEGER2": "SMALLINT",
	"INT": "INTEGER", "INTEGER": "INTEGER", "INT4": "INTEGER4", "INTEGER4": "INTEGER4",
	"INT8": "INTEGER8", "INTEGER8": "INTEGER8", "BIGINT": "INTEGER8", "FLOAT": "FLOAT",
	"REAL": "REAL", "DOUBLE": "DOUBLE_PRECISION", "DECIMAL": "DECIMAL", "DEC": "DECIMAL",
	"CHAR": "CHARACTER", "CHARACTER": "CHARACTER", "VARCHAR": "CHARACTER_VARYING",
	"SYMBOL": "SYMBOL", "CLOB": "CLOB", "SEXP": "SEXP", "BAG": "BAG", "DATE": "DATE",
	"TIME": "TIME", "TIMESTAMP": "TIMESTAMP", "ANY": "ANY",
}
