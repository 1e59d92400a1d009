package schema

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Condition operators, as --where and --filter write them.
const (
	OpEq         = "="
	OpNe         = "<>"
	OpLt         = "<"
	OpLe         = "<="
	OpGt         = ">"
	OpGe         = ">="
	OpBetween    = "between"
	OpBeginsWith = "begins_with"
	OpContains   = "contains"
	OpExists     = "attribute_exists"
	OpNotExists  = "attribute_not_exists"
)

// Condition is one test of an edge attribute: Attr Op Values, the values
// typed by the attribute's declared kind (as ParseValue gives them;
// begins_with and contains take the text as typed).
type Condition struct {
	Attr   Attribute
	Op     string
	Values []any
}

// String writes the condition back as it was meant: since >= 2026-03-01.
func (c Condition) String() string {
	v := make([]string, len(c.Values))
	for i, x := range c.Values {
		v[i] = fmt.Sprint(x)
	}
	switch c.Op {
	case OpBetween:
		return fmt.Sprintf("%s between %s and %s", c.Attr.Name, v[0], v[1])
	case OpBeginsWith, OpContains:
		return fmt.Sprintf("%s(%s, %q)", c.Op, c.Attr.Name, v[0])
	case OpExists, OpNotExists:
		return fmt.Sprintf("%s(%s)", c.Op, c.Attr.Name)
	}
	return fmt.Sprintf("%s %s %s", c.Attr.Name, c.Op, v[0])
}

// ParseWhere reads --where: one condition on the relation's sort
// attribute, which a key condition can serve. A condition on another
// attribute is refused with the way to filter on it.
func (r *Relation) ParseWhere(text string) (Condition, error) {
	if r.Sort == nil {
		return Condition{}, &InputError{Msg: fmt.Sprintf("--where needs an ordered relation: %s has no sort attribute, so no key condition can serve a range; add sort: {by: ATTRIBUTE} to the relation, or use --filter %q (a filter: every edge is read and paid for)", r.Name, text)}
	}
	conds, err := parseConditions(r.Attributes, text, false)
	if err != nil {
		return Condition{}, &InputError{Msg: fmt.Sprintf("--where %q: %v", text, err)}
	}
	c := conds[0]
	switch {
	case c.Attr.Name != r.Sort.By:
		return Condition{}, &InputError{Msg: fmt.Sprintf("--where %q: %s is not the attribute %s is ordered by (%s), so no key condition can serve it; use --filter %q instead: DynamoDB then reads every edge of the list and drops those that do not match, and you pay for every edge read (--capacity shows it)", text, c.Attr.Name, r.Name, r.Sort.By, text)}
	case !slices.Contains([]string{OpEq, OpLt, OpLe, OpGt, OpGe, OpBetween, OpBeginsWith}, c.Op):
		return Condition{}, &InputError{Msg: fmt.Sprintf("--where %q: a key condition takes =, <, <=, >, >=, between A and B or begins_with(%s, \"PREFIX\"); use --filter for %s", text, r.Sort.By, c.Op)}
	case c.Op == OpBeginsWith && r.Sort.Kind != KindString && r.Sort.Kind != KindDate:
		return Condition{}, &InputError{Msg: fmt.Sprintf("--where %q: begins_with works on string and date attributes, and %s is %s; use between A and B", text, c.Attr.Name, c.Attr.Kind.Noun())}
	}
	return c, nil
}

// ParseFilter reads --filter: conditions on edge attributes joined by
// "and", for a FilterExpression.
func (r *Relation) ParseFilter(text string) ([]Condition, error) {
	conds, err := parseConditions(r.Attributes, text, true)
	if err != nil {
		return nil, &InputError{Msg: fmt.Sprintf("--filter %q: %v", text, err)}
	}
	return conds, nil
}

// parseConditions reads one condition, or with many several joined by and.
func parseConditions(attrs []Attribute, text string, many bool) ([]Condition, error) {
	toks, err := tokenize(text)
	if err != nil {
		return nil, err
	}
	p := &condParser{toks: toks, attrs: attrs}
	var out []Condition
	for {
		c, err := p.condition()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if p.done() {
			return out, nil
		}
		if !many {
			return nil, fmt.Errorf("expected the end after %s, found %q; --where takes one condition (more go in --filter)", c, p.peek().text)
		}
		if !p.keyword("and") {
			return nil, fmt.Errorf("expected and between conditions, found %q", p.peek().text)
		}
	}
}

type token struct {
	text   string
	quoted bool
}

// tokenize splits a condition into names, operators, punctuation and
// values; "..." and '...' quote a value (\" and \\ inside double quotes).
func tokenize(text string) ([]token, error) {
	var out []token
	rs := []rune(text)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(rs) && rs[j] != c; j++ {
				if c == '"' && rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				b.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("the quote at position %d is not closed", i+1)
			}
			out, i = append(out, token{text: b.String(), quoted: true}), j+1
		case c == '(' || c == ')' || c == ',':
			out, i = append(out, token{text: string(c)}), i+1
		case c == '<' || c == '>' || c == '=' || c == '!':
			j := i + 1
			for j < len(rs) && (rs[j] == '=' || rs[j] == '>') && j-i < 2 {
				j++
			}
			out, i = append(out, token{text: string(rs[i:j])}), j
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune("()<>=!,", rs[j]) {
				j++
			}
			out, i = append(out, token{text: string(rs[i:j])}), j
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the condition is empty; write e.g. since >= 2026-03-01")
	}
	return out, nil
}

type condParser struct {
	toks  []token
	i     int
	attrs []Attribute
}

func (p *condParser) done() bool { return p.i >= len(p.toks) }

func (p *condParser) peek() token {
	if p.done() {
		return token{text: "end"}
	}
	return p.toks[p.i]
}

func (p *condParser) next() token {
	t := p.peek()
	p.i++
	return t
}

func (p *condParser) keyword(w string) bool {
	if t := p.peek(); !t.quoted && strings.EqualFold(t.text, w) {
		p.i++
		return true
	}
	return false
}

func (p *condParser) expect(s string) error {
	if t := p.next(); t.quoted || t.text != s {
		return fmt.Errorf("expected %q, found %q", s, t.text)
	}
	return nil
}

// condition reads NAME OP VALUE, NAME between A and B, or FUNC(NAME[, VALUE]).
func (p *condParser) condition() (Condition, error) {
	for _, fn := range []string{OpBeginsWith, OpContains, OpExists, OpNotExists} {
		if p.keyword(fn) {
			return p.function(fn)
		}
	}
	a, err := p.attribute()
	if err != nil {
		return Condition{}, err
	}
	if p.keyword(OpBetween) {
		lo, err := p.value(a)
		if err != nil {
			return Condition{}, err
		}
		if !p.keyword("and") {
			return Condition{}, fmt.Errorf("expected and in between A and B, found %q", p.peek().text)
		}
		hi, err := p.value(a)
		if err != nil {
			return Condition{}, err
		}
		return Condition{Attr: a, Op: OpBetween, Values: []any{lo, hi}}, nil
	}
	op := p.next()
	if op.text == "!=" {
		op.text = OpNe
	}
	if op.quoted || !slices.Contains([]string{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe}, op.text) {
		return Condition{}, fmt.Errorf("expected an operator (=, <>, <, <=, >, >=, between) after %s, found %q", a.Name, op.text)
	}
	v, err := p.value(a)
	if err != nil {
		return Condition{}, err
	}
	return Condition{Attr: a, Op: op.text, Values: []any{v}}, nil
}

func (p *condParser) function(fn string) (Condition, error) {
	if err := p.expect("("); err != nil {
		return Condition{}, err
	}
	a, err := p.attribute()
	if err != nil {
		return Condition{}, err
	}
	c := Condition{Attr: a, Op: fn}
	if fn == OpBeginsWith || fn == OpContains {
		if err := p.expect(","); err != nil {
			return Condition{}, err
		}
		t := p.next()
		if t.text == "end" && !t.quoted {
			return Condition{}, fmt.Errorf("%s needs a value after the comma", fn)
		}
		c.Values = []any{t.text}
	}
	return c, p.expect(")")
}

func (p *condParser) attribute() (Attribute, error) {
	t := p.next()
	if a, ok := findAttribute(p.attrs, t.text); ok && !t.quoted {
		return a, nil
	}
	return Attribute{}, fmt.Errorf("%q is not an attribute of the relation; declared: %s", t.text, attrList(p.attrs))
}

// value reads one value typed by a's kind.
func (p *condParser) value(a Attribute) (any, error) {
	t := p.next()
	if t.text == "end" && !t.quoted {
		return nil, fmt.Errorf("expected a value for %s", a.Name)
	}
	v, err := ParseValue(a.Kind, t.text)
	if err != nil {
		return nil, fmt.Errorf("%s is %s: %v", a.Name, a.Kind.Noun(), err)
	}
	return v, nil
}
