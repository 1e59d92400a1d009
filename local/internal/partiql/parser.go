package partiql

import (
	"strings"
)

// Parse reads one PartiQL statement: SELECT, INSERT, UPDATE (also written
// FROM ... SET), DELETE or EXISTS(SELECT ...), optionally ending with a
// semicolon. It refuses what DynamoDB's parser refuses, with its messages.
func Parse(src string) (st Statement, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			st, err = nil, pe.err
		}
	}()
	return p.statement(), nil
}

// parseError carries a refusal out of the recursive descent.
type parseError struct{ err *Error }

type parser struct {
	toks   []token
	i      int
	params int // ? seen so far
}

func (p *parser) fail(err *Error) { panic(parseError{err}) }

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// is reports whether t is the keyword kw (upper case).
func is(t token, kw string) bool {
	return t.kind == tWord && len(t.text) == len(kw) && strings.EqualFold(t.text, kw)
}

func (p *parser) accept(kw string) bool {
	if is(p.peek(), kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) statement() Statement {
	t := p.peek()
	var st Statement
	switch {
	case is(t, "SELECT"):
		st = p.selectStatement()
	case is(t, "INSERT"):
		st = p.insert()
	case is(t, "UPDATE"):
		st = p.update()
	case is(t, "DELETE"):
		st = p.delete()
	case is(t, "FROM"):
		st = p.fromUpdate()
	case is(t, "EXISTS") && p.peekAt(1).kind == tLParen:
		st = p.exists()
	case t.kind == tEOF || t.kind == tSemicolon:
		p.fail(malformed("Unexpected term"))
	default:
		e := p.expr()
		p.end()
		p.fail(errorf("Unsupported operation: %s", kindName(e)))
	}
	p.end()
	return st
}

// end accepts an optional semicolon and requires the end of the text.
func (p *parser) end() {
	if p.peek().kind == tSemicolon {
		p.next()
	}
	if p.peek().kind != tEOF {
		p.fail(malformed("Unexpected token after expression"))
	}
}

func (p *parser) selectStatement() *Select {
	p.next() // SELECT
	s := &Select{}
	if t := p.peek(); is(t, "VALUE") || is(t, "PIVOT") {
		p.fail(errorf("Select projection doesn't support value or pivot keywords"))
	}
	if t := p.peek(); is(t, "DISTINCT") || is(t, "ALL") {
		p.fail(errorf("Unsupported clause: %s", strings.ToUpper(t.text)))
	}
	for {
		if p.peek().kind == tStar {
			p.next()
			s.Star = true
		} else {
			e := p.expr()
			if is(p.peek(), "AS") || p.peek().kind == tQuoted || p.peek().kind == tWord && !reserved(p.peek().text) {
				p.fail(errorf(msgAliasing))
			}
			col, ok := e.(*PathExpr)
			if !ok {
				p.fail(errorAt(e.position(), "Unexpected path component"))
			}
			s.Columns = append(s.Columns, col)
		}
		if p.peek().kind != tComma {
			break
		}
		p.next()
	}
	if s.Star && len(s.Columns) > 0 {
		p.fail(errorf(msgStarAndOthers))
	}
	if !p.accept("FROM") {
		p.fail(malformed(p.termError()))
	}
	s.Table, s.Index = p.source("Unexpected term", true)
	p.noAlias()
	if p.peek().kind == tComma {
		p.fail(errorf(msgSingleFrom))
	}
	s.Where = p.where()
	for _, kw := range []string{"GROUP", "HAVING", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT"} {
		if is(p.peek(), kw) {
			p.fail(errorf("Unsupported clause: %s", kw))
		}
	}
	if p.accept("ORDER") {
		if !p.accept("BY") {
			p.fail(malformed("Expected keyword"))
		}
		for {
			e := p.expr()
			path, ok := e.(*PathExpr)
			if !ok || len(path.Steps) != 1 {
				p.fail(errorf("Argument to ORDER BY must be of type VariableReference. Type: %s", kindName(e)))
			}
			term := OrderTerm{Name: path.Steps[0].Name, Pos: path.Pos}
			if p.accept("DESC") {
				term.Desc = true
			} else {
				p.accept("ASC")
			}
			s.OrderBy = append(s.OrderBy, term)
			if p.peek().kind != tComma {
				break
			}
			p.next()
		}
	}
	s.params = p.params
	return s
}

// source reads FROM's "table" or "table"."index"; detail is the syntax
// error when no name follows.
func (p *parser) source(detail string, allowIndex bool) (table, index string) {
	if p.peek().kind == tParam || p.peek().kind == tLBracket || p.peek().kind == tString {
		p.fail(errorf(msgFromSource))
	}
	table = p.name(detail)
	if p.peek().kind == tDot {
		p.next()
		index = p.name("Invalid path dot component")
		if p.peek().kind == tDot {
			p.fail(errorf(msgFromPath))
		}
		if !allowIndex {
			p.fail(errorf("FROM clause may only contain a single table name in data manipulation statements"))
		}
	}
	if p.peek().kind == tLBracket {
		p.fail(errorf(msgFromSource))
	}
	if err := checkTableName(table); err != nil {
		p.fail(err)
	}
	return table, index
}

// checkTableName applies DynamoDB's naming rule to a table named in a
// statement.
func checkTableName(name string) *Error {
	ok := len(name) >= 3 && len(name) <= 255
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = isWordPart(c) && c != '$' || c == '-' || c == '.'
	}
	if !ok {
		return errorf("Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.")
	}
	return nil
}

// name reads an identifier or a quoted name.
func (p *parser) name(detail string) string {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		p.next()
		return t.text
	case t.kind == tWord && !reserved(t.text):
		p.next()
		return t.text
	}
	p.fail(malformed(detail))
	return ""
}

// noAlias refuses an alias after a table name.
func (p *parser) noAlias() {
	t := p.peek()
	if is(t, "AS") || t.kind == tQuoted || t.kind == tWord && !reserved(t.text) {
		p.fail(errorf(msgAliasing))
	}
}

func (p *parser) insert() *Insert {
	p.next() // INSERT
	if !p.accept("INTO") {
		p.fail(malformed("Expected keyword"))
	}
	s := &Insert{}
	s.Table, _ = p.source("Expected identifier for simple path", false)
	switch {
	case p.accept("VALUE"):
		s.Value = p.expr()
	case is(p.peek(), "VALUES") || p.peek().kind == tLBag:
		p.fail(errorf(`Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`))
	default:
		p.fail(malformed("Unexpected token after expression"))
	}
	if is(p.peek(), "RETURNING") {
		p.fail(errorf(msgInsertReturning))
	}
	if is(p.peek(), "AT") {
		p.fail(errorf("AT is not supported in insert statements."))
	}
	s.params = p.params
	return s
}

func (p *parser) update() *Update {
	p.next() // UPDATE
	s := &Update{Table: p.target()}
	p.actions(s)
	s.Where = p.where()
	s.Returning = p.returning()
	s.params = p.params
	return s
}

// fromUpdate is the FROM-first form: FROM "t" [WHERE cond] SET ... .
func (p *parser) fromUpdate() *Update {
	p.next() // FROM
	s := &Update{Table: p.target()}
	s.Where = p.where()
	p.actions(s)
	s.Returning = p.returning()
	s.params = p.params
	return s
}

// target reads the table an UPDATE or DELETE writes: a name without an
// index or an alias.
func (p *parser) target() string {
	table, _ := p.source("Expected identifier for simple path", false)
	p.noAlias()
	return table
}

// where reads an optional WHERE clause (nil without one).
func (p *parser) where() Expr {
	if p.accept("WHERE") {
		return p.expr()
	}
	return nil
}

// actions reads one or more SET and REMOVE clauses.
func (p *parser) actions(s *Update) {
	for {
		switch {
		case p.accept("SET"):
			for {
				path := p.pathOnly()
				if p.peek().kind != tEq {
					p.fail(malformed("Expected token type"))
				}
				p.next()
				p.needTerm()
				s.Actions = append(s.Actions, Action{Path: path, Value: p.expr()})
				if p.peek().kind != tComma {
					break
				}
				p.next()
			}
		case p.accept("REMOVE"):
			for {
				s.Actions = append(s.Actions, Action{Remove: true, Path: p.pathOnly()})
				if p.peek().kind != tComma {
					break
				}
				p.next()
			}
		default:
			if len(s.Actions) == 0 {
				p.fail(malformed("Expected data manipulation"))
			}
			return
		}
	}
}

// returning reads an optional RETURNING (ALL|MODIFIED) (OLD|NEW) *.
func (p *parser) returning() string {
	if !p.accept("RETURNING") {
		return ""
	}
	scope := p.keyword(map[string]string{"ALL": "ALL", "MODIFIED": "UPDATED"})
	age := p.keyword(map[string]string{"OLD": "OLD", "NEW": "NEW"})
	if p.peek().kind != tStar {
		p.fail(errorf(msgReturningStar))
	}
	p.next()
	if p.peek().kind == tComma {
		p.fail(errorf(msgReturningMany))
	}
	return scope + "_" + age
}

// keyword reads one of the keywords in words and returns what it stands
// for; anything else is malformed.
func (p *parser) keyword(words map[string]string) string {
	for kw, v := range words {
		if p.accept(kw) {
			return v
		}
	}
	p.fail(malformed("Expected keyword"))
	return ""
}

func (p *parser) delete() *Delete {
	p.next() // DELETE
	if !p.accept("FROM") {
		p.fail(malformed("Expected keyword"))
	}
	table, where := p.target(), p.where()
	return &Delete{Table: table, Where: where, Returning: p.returning(), params: p.params}
}

func (p *parser) exists() *Exists {
	p.next() // EXISTS
	p.next() // (
	if !is(p.peek(), "SELECT") {
		p.fail(malformed("Unexpected term"))
	}
	s := p.selectStatement()
	if p.peek().kind != tRParen {
		p.fail(malformed("Unexpected token after expression"))
	}
	p.next()
	return &Exists{Select: s}
}
