package expr

import (
	"slices"
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
)

type uKind uint8

const (
	uPath uKind = iota
	uValue
	uIfNotExists
	uListAppend
	uPlus
	uMinus
)

// uval is a SET right-hand side: operand, function or arithmetic.
type uval struct {
	kind uKind
	path Path
	val  attr.Value
	ph   string // the :value placeholder of a uValue parsed from an expression
	kids []*uval
}

type setAction struct {
	path Path
	val  *uval
}

type valAction struct {
	path Path
	val  attr.Value
	ph   string // val's placeholder
}

// Update is a parsed UpdateExpression.
type Update struct {
	sets    []setAction
	removes []Path
	adds    []valAction
	deletes []valAction
	names   []string
	legacy  bool // built from AttributeUpdates: type errors say so
}

// ParseUpdate parses an UpdateExpression.
func ParseUpdate(s string, env *Env) (*Update, error) {
	if u, ok := parses.update(s, env); ok {
		return u, nil
	}
	u, p, err := parseUpdateText(s, env)
	if err == nil {
		parses.keepUpdate(s, env, p)
	}
	return u, err
}

// parseUpdateText parses s without the cache, returning the parser too
// (for the placeholders it resolved).
func parseUpdateText(s string, env *Env) (*Update, *parser, error) {
	p := newParser(s, UpdateExpression, env)
	u := &Update{}
	if err := p.run(func() { p.update(u) }); err != nil {
		return nil, p, err
	}
	var paths []Path
	for _, a := range u.sets {
		paths = append(paths, a.path)
	}
	paths = append(paths, u.removes...)
	for _, a := range u.adds {
		paths = append(paths, a.path)
	}
	for _, a := range u.deletes {
		paths = append(paths, a.path)
	}
	if p.sem.reserved == "" && p.sem.attrName == "" {
		p.sem.pathOverlap, p.sem.pathConflict = overlapCheck(paths)
	}
	s2 := &p.sem
	if msg := first(s2.reserved, s2.unknownFunction, s2.section, s2.attrName, s2.attrVal,
		s2.pathOverlap, s2.pathConflict, s2.operand, s2.function); msg != "" {
		return nil, p, errorf(p.prefix() + msg)
	}
	for _, path := range paths {
		u.names = appendName(u.names, path[0].Name)
	}
	return u, p, nil
}

func appendName(names []string, n string) []string {
	if slices.Contains(names, n) {
		return names
	}
	return append(names, n)
}

// Names returns the distinct top-level attributes the update writes or
// removes, so the engine can refuse updates to key attributes.
func (u *Update) Names() []string { return u.names }

func (p *parser) update(u *Update) {
	seen := map[string]bool{}
	for p.peek().kind != tEOF {
		var kw string
		for _, k := range [...]string{"SET", "REMOVE", "ADD", "DELETE"} {
			if p.isKeyword(k) {
				kw = k
			}
		}
		if kw == "" {
			p.failHere()
		}
		p.next()
		if seen[kw] {
			set(&p.sem.section, `The "`+kw+`" section can only be used once in an update expression;`)
		}
		seen[kw] = true
		for {
			switch kw {
			case "SET":
				path := p.path()
				p.expect(tEq)
				u.sets = append(u.sets, setAction{path: path, val: p.setValue()})
			case "REMOVE":
				u.removes = append(u.removes, p.path())
			case "ADD", "DELETE":
				path := p.path()
				v, ph := p.value()
				p.checkSetOperand(kw, v)
				a := valAction{path: path, val: v, ph: ph}
				if kw == "ADD" {
					u.adds = append(u.adds, a)
				} else {
					u.deletes = append(u.deletes, a)
				}
			}
			if p.peek().kind != tComma {
				break
			}
			p.next()
		}
	}
}

var typeWords = map[attr.Kind]string{
	attr.S: "STRING", attr.N: "NUMBER", attr.B: "BINARY", attr.BOOL: "BOOLEAN",
	attr.NULL: "NULL", attr.L: "LIST", attr.M: "MAP",
}

// checkSetOperand enforces that ADD takes a number or set and DELETE a set.
func (p *parser) checkSetOperand(kw string, v attr.Value) {
	switch v.Kind {
	case attr.Invalid, attr.SS, attr.NS, attr.BS:
		return
	case attr.N:
		if kw == "ADD" {
			return
		}
	}
	set(&p.sem.operand, "Incorrect operand type for operator or function; operator: "+kw+", operand type: "+typeWords[v.Kind]+", typeSet: ALLOWED_FOR_"+kw+"_OPERAND")
}

// setValue parses a SET right-hand side: an operand, "operand + operand",
// "operand - operand", or one of those in a single pair of parentheses.
func (p *parser) setValue() *uval {
	if p.peek().kind != tLParen {
		return p.arithRest(p.setTerm())
	}
	p.next()
	inner := p.arithRest(p.setTerm())
	p.expect(tRParen)
	if inner.kind == uPlus || inner.kind == uMinus {
		return inner
	}
	return p.arithRest(inner)
}

// arithRest parses an optional ("+" | "-") operand after left.
func (p *parser) arithRest(left *uval) *uval {
	var k uKind
	var op string
	switch p.peek().kind {
	case tPlus:
		k, op = uPlus, "+"
	case tMinus:
		k, op = uMinus, "-"
	default:
		return left
	}
	p.next()
	right := p.setTerm()
	for _, a := range []*uval{left, right} {
		if a.kind == uValue && a.val.Kind != attr.Invalid && a.val.Kind != attr.N {
			set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+op+", operand type: "+a.val.Kind.String())
		}
	}
	return &uval{kind: k, kids: []*uval{left, right}}
}

// setTerm parses an operand, optionally in parentheses.
func (p *parser) setTerm() *uval {
	if p.peek().kind == tLParen {
		p.next()
		v := p.setTerm()
		p.expect(tRParen)
		return v
	}
	t := p.peek()
	switch t.kind {
	case tValue:
		v, ph := p.value()
		return &uval{kind: uValue, val: v, ph: ph}
	case tIdent:
		if p.toks[p.pos+1].kind == tLParen {
			return p.updateFunction()
		}
		fallthrough
	case tName:
		return &uval{kind: uPath, path: p.path()}
	}
	p.failHere()
	return nil
}

func (p *parser) updateFunction() *uval {
	name := p.text(p.next())
	args := callArgs(p, p.setTerm)
	var n *uval
	switch name {
	case "if_not_exists":
		n = &uval{kind: uIfNotExists, kids: args}
	case "list_append":
		n = &uval{kind: uListAppend, kids: args}
	default:
		set(&p.sem.unknownFunction, "Invalid function name; function: "+name)
		return &uval{kind: uValue}
	}
	if len(args) != 2 {
		set(&p.sem.function, "Incorrect number of operands for operator or function; operator or function: "+name+", number of operands: "+strconv.Itoa(len(args)))
		return n
	}
	switch n.kind {
	case uIfNotExists:
		if args[0].kind != uPath {
			set(&p.sem.function, "Operator or function requires a document path; operator or function: "+name)
		}
		n.path = args[0].path
	case uListAppend:
		for _, a := range args {
			if a.kind == uValue && a.val.Kind != attr.Invalid && a.val.Kind != attr.L {
				set(&p.sem.function, "Incorrect operand type for operator or function; operator or function: "+name+", operand type: "+a.val.Kind.String())
				break
			}
		}
	}
	return n
}

// ---- application ----
