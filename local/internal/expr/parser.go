package expr

import (
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
)

// semantic collects the first error of each category DynamoDB reports after
// a successful parse. DynamoDB reports categories in a fixed priority order
// rather than by position, so errors are gathered first and chosen last.
type semantic struct {
	parens, unknownFunction, misusedFunction, reserved string
	attrNameVal, operand, distinct, function           string
	section, attrName, attrVal                         string
	pathOverlap, pathConflict                          string
}

func set(dst *string, msg string) {
	if *dst == "" {
		*dst = msg
	}
}

// syntaxError is raised (via panic) inside the recursive-descent parser and
// recovered at the entry point; it keeps the grammar code free of error
// plumbing, and panics only happen on invalid input.
type syntaxError struct{ msg string }

type parser struct {
	src  string
	kind Kind
	toks []token
	pos  int
	env  *Env
	sem  semantic
	// refs are the placeholders the expression uses, in order, repeats
	// included; readsValues: a check read a value's content, not only its
	// type (see parseCache).
	refs        []string
	readsValues bool
}

func newParser(src string, kind Kind, env *Env) *parser {
	return &parser{src: src, kind: kind, toks: lex(src, make([]token, 0, 16)), env: env}
}

func (p *parser) prefix() string { return "Invalid " + string(p.kind) + ": " }

// run parses with fn, turning a raised syntax error into *Error.
func (p *parser) run(fn func()) (err error) {
	if p.src == "" {
		return errorf(p.prefix() + "The expression can not be empty;")
	}
	if len(p.src) > maxExprLen {
		return errorf(p.prefix() + "Expression size has exceeded the maximum allowed size" + sizeTail(p.kind, len(p.src)))
	}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(syntaxError)
			if !ok {
				panic(r)
			}
			err = errorf(p.prefix() + se.msg)
		}
	}()
	fn()
	return nil
}

// sizeTail ends the message of an expression over maxExprLen as DynamoDB's
// TransactWriteItems words it (captured in ten regions, 2026-10-09): a
// condition names its size, an update ends at a semicolon. The other
// operations' wording varies by region and is not captured exactly; they
// get the same, and the other kinds none.
func sizeTail(kind Kind, size int) string {
	switch kind {
	case ConditionExpression:
		return "; expression size: " + strconv.Itoa(size)
	case UpdateExpression:
		return ";"
	}
	return ""
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// isKeyword reports whether the current token is the given keyword.
func (p *parser) isKeyword(kw string) bool {
	t := p.toks[p.pos]
	return t.kind == tIdent && equalFold(p.src[t.start:t.end], kw)
}

// fail raises DynamoDB's syntax error for the token at index i: the token
// text and the source from the previous token to the next one.
func (p *parser) fail(i int) {
	t := p.toks[i]
	tok := "<EOF>"
	if t.kind != tEOF {
		tok = p.src[t.start:t.end]
	}
	from, to := i, i
	if i > 0 {
		from = i - 1
	}
	if i+1 < len(p.toks) && p.toks[i+1].kind != tEOF {
		to = i + 1
	}
	near := p.src[p.toks[from].start:p.toks[to].end]
	panic(syntaxError{msg: `Syntax error; token: "` + tok + `", near: "` + near + `"`})
}

func (p *parser) failHere() { p.fail(p.pos) }

func (p *parser) expect(k tokKind) token {
	if p.peek().kind != k {
		p.failHere()
	}
	return p.next()
}

func (p *parser) expectEOF() {
	if p.peek().kind != tEOF {
		p.failHere()
	}
}

// pathElem parses an identifier or #name at the current position.
func (p *parser) pathElem() string {
	t := p.peek()
	switch t.kind {
	case tIdent:
		p.next()
		name := p.text(t)
		if IsReserved(name) {
			set(&p.sem.reserved, "Attribute name is a reserved keyword; reserved keyword: "+name)
		}
		return name
	case tName:
		p.next()
		ph := p.text(t)
		p.refs = append(p.refs, ph)
		name, ok := p.env.name(ph)
		if !ok {
			set(&p.sem.attrNameVal, "An expression attribute name used in the document path is not defined; attribute name: "+ph)
			set(&p.sem.attrName, "An expression attribute name used in the document path is not defined; attribute name: "+ph)
		}
		return name
	}
	p.failHere()
	return ""
}

// path parses a document path: elem { "." elem | "[" digits "]" }.
func (p *parser) path() Path {
	path := make(Path, 1, 4)
	path[0] = Step{Name: p.pathElem(), Index: -1}
	for {
		switch p.peek().kind {
		case tDot:
			p.next()
			path = append(path, Step{Name: p.pathElem(), Index: -1})
		case tLBracket:
			p.next()
			t := p.peek()
			if t.kind != tNumber {
				p.failHere()
			}
			n, err := strconv.Atoi(p.text(t))
			if err != nil {
				p.failHere()
			}
			p.next()
			p.expect(tRBracket)
			path = append(path, Step{Index: n})
		default:
			return path
		}
	}
}

// value resolves the :value token at the current position.
func (p *parser) value() (attr.Value, string) {
	t := p.expect(tValue)
	ph := p.text(t)
	p.refs = append(p.refs, ph)
	v, ok := p.env.value(ph)
	if !ok {
		set(&p.sem.attrNameVal, "An expression attribute value used in expression is not defined; attribute value: "+ph)
		set(&p.sem.attrVal, "An expression attribute value used in expression is not defined; attribute value: "+ph)
	}
	return v, ph
}

// callArgs parses a function call's parenthesised arguments, each with arg.
func callArgs[T any](p *parser, arg func() T) []T {
	p.expect(tLParen)
	args := []T{arg()}
	for p.peek().kind == tComma {
		p.next()
		args = append(args, arg())
	}
	p.expect(tRParen)
	return args
}

// first returns the first non-empty message.
func first(msgs ...string) string {
	for _, m := range msgs {
		if m != "" {
			return m
		}
	}
	return ""
}
