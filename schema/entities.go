package schema

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

const entityExample = `student: {prefix: "STU#", attributes: {name: string}}`

func (b *builder) entities(ep pair) {
	c := b.c
	ps := c.pairs(ep.val, "entities", entityExample)
	if len(ps) == 0 && deref(ep.val) != nil && deref(ep.val).Kind == mappingKind {
		c.addf(ep.key.Line, ep.key.Column, "entities is empty; declare at least one, e.g. %s", entityExample)
	}
	for _, p := range ps {
		b.entity(p)
	}
}

func (b *builder) entity(ep pair) {
	c := b.c
	name, what := c.declName("entity", ep)
	e := &Entity{Name: name}
	src := &entitySrc{key: ep.key}
	b.s.Entities = append(b.s.Entities, e)
	b.ent[e] = src
	f := c.fields(ep.val, what, `{prefix: "STU#"}`, "prefix", "attributes")
	if v := deref(ep.val); v == nil || v.Kind != mappingKind {
		return
	}
	c.require(f, ep.key, what, [2]string{"prefix", fmt.Sprintf("prefix: %q (the key prefix of its items)", suggestPrefix(name))})
	if p, ok := f["prefix"]; ok {
		if v, ok := c.str(p, what+" prefix"); ok {
			if msg := prefixProblem(v, "prefix"); msg != "" {
				c.addf(p.val.Line, p.val.Column, "%s: %s", what, msg)
			} else {
				e.Prefix = v
				src.prefix = deref(p.val)
			}
		}
	}
	if p, ok := f["attributes"]; ok {
		e.Attributes, src.attrs = b.attributes(p, what)
	}
}

// attributes reads `attributes: {name: kind, ...}` in file order.
func (b *builder) attributes(ap pair, owner string) ([]Attribute, map[string]*yaml.Node) {
	c := b.c
	what := owner + " attributes"
	var out []Attribute
	nodes := make(map[string]*yaml.Node)
	for _, p := range c.pairs(ap.val, what, "{name: string, credits: number}") {
		name := p.name()
		switch {
		case slices.Contains(b.s.Layout().Reserved(), name):
			c.addf(p.key.Line, p.key.Column, "%s: %q is a key attribute adjl manages (%s are reserved); rename the attribute", owner, name, joinNames(b.s.Layout().Reserved()))
			continue
		case !attrRE.MatchString(name):
			c.addf(p.key.Line, p.key.Column, "%s: attribute name %q must start with a letter and use only letters, digits, _ and - (no dots)", owner, name)
			continue
		}
		kind, ok := c.str(p, fmt.Sprintf("%s: attribute %q", owner, name))
		if !ok {
			continue
		}
		if !slices.Contains(kindStrings(), kind) {
			c.addf(p.val.Line, p.val.Column, "%s: attribute %q has unknown kind %q; use one of %s", owner, name, kind, kindNames())
			continue
		}
		out = append(out, Attribute{Name: name, Kind: AttrKind(kind)})
		nodes[name] = p.key
	}
	return out, nodes
}

func kindStrings() []string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return s
}
