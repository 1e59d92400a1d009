package schema

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxShards bounds relation.shards: a reverse read fans out to every shard.
const MaxShards = 64

// MaxCounterShards bounds a counter's shards: reading the count sums them all.
const MaxCounterShards = 64

const relationExample = `enrollment: {from: student, to: course, edge: "ENROLL#"}`

func (b *builder) relations(rp pair) {
	for _, p := range b.c.pairs(rp.val, "relations", relationExample) {
		b.relation(p)
	}
}

func (b *builder) relation(rp pair) {
	c := b.c
	name, what := c.declName("relation", rp)
	r := &Relation{Name: name, Shards: 1, Counters: Counters{FromShards: 1, ToShards: 1}}
	src := &relationSrc{key: rp.key, verbs: make(map[VerbKind]*yaml.Node)}
	b.s.Relations = append(b.s.Relations, r)
	b.rel[r] = src
	f := c.fields(rp.val, what, `{from: student, to: course, edge: "ENROLL#"}`,
		"from", "to", "edge", "verbs", "attributes", "counters", "shards", "requireEntities", "sort")
	if v := deref(rp.val); v == nil || v.Kind != mappingKind {
		return
	}
	c.require(f, rp.key, what,
		[2]string{"from", "from: <entity> (the side whose partition holds the edges)"},
		[2]string{"to", "to: <entity> (the side read back through the index)"},
		[2]string{"edge", `edge: "NAME#" (the sort-key prefix of its edges; "" for none)`})
	if p, ok := f["from"]; ok {
		src.from = deref(p.val)
		r.From, src.fromPrefix = b.side(p, what+" from")
	}
	if p, ok := f["to"]; ok {
		src.to = deref(p.val)
		r.To, src.toPrefix = b.side(p, what+" to")
	}
	if p, ok := f["edge"]; ok {
		v := deref(p.val)
		switch {
		case isNull(v):
			c.addf(p.key.Line, p.key.Column, `%s: edge has no value; write edge: "" for no edge prefix, or a prefix such as edge: %q`, what, suggestPrefix(name))
		case v.Kind != yaml.ScalarNode:
			c.addf(v.Line, v.Column, "%s: edge must be a prefix such as %q, not %s", what, suggestPrefix(name), describe(v))
		case v.Value == "":
			src.edge = v
		default:
			if msg := prefixProblem(v.Value, "edge prefix"); msg != "" {
				c.addf(v.Line, v.Column, "%s: %s", what, msg)
			} else {
				r.Edge, src.edge = v.Value, v
			}
		}
	}
	if p, ok := f["verbs"]; ok {
		b.verbs(p, r, src, what)
	}
	if p, ok := f["attributes"]; ok {
		r.Attributes, src.attrs = b.attributes(p, what)
	}
	if p, ok := f["counters"]; ok {
		b.counters(p, r, src, what)
	}
	if p, ok := f["sort"]; ok {
		src.sort = p // read by checkSorts, once every attribute is known
	}
	if p, ok := f["requireEntities"]; ok {
		if v, ok := c.boolean(p, what+" requireEntities"); ok {
			r.RequireEntities = v
		}
	}
	if p, ok := f["shards"]; ok {
		if n, ok := c.integer(p, what+" shards"); ok {
			switch {
			case n < 1 || n > MaxShards:
				c.addf(p.val.Line, p.val.Column, "%s: shards must be between 1 and %d, not %d (1 means unsharded)", what, MaxShards, n)
			case n > 1 && b.s.Layout().Inverted():
				c.addf(p.val.Line, p.val.Column, "%s: shards: %d needs the generic index layout: the inverted layout's index partition key is the edge's own sort key, which cannot carry a shard number; use shards: 1, or layout: generic", what, n)
			default:
				r.Shards = int(n)
			}
		}
	}
}

// side reads `from: student` or `from: {entity: user, prefix: "ACTOR#"}`.
func (b *builder) side(p pair, what string) (Side, *yaml.Node) {
	c := b.c
	v := deref(p.val)
	var name string
	var nameNode, prefixNode *yaml.Node
	switch {
	case v != nil && v.Kind == yaml.ScalarNode && !isNull(v):
		name, nameNode = v.Value, v
	case v != nil && v.Kind == mappingKind:
		f := c.fields(v, what, `{entity: user, prefix: "ACTOR#"}`, "entity", "prefix")
		c.require(f, v, what, [2]string{"entity", "entity: <entity name>"})
		if ep, ok := f["entity"]; ok {
			if s, ok := c.str(ep, what+" entity"); ok {
				name, nameNode = s, deref(ep.val)
			}
		}
		if pp, ok := f["prefix"]; ok {
			if s, ok := c.str(pp, what+" prefix"); ok {
				if msg := prefixProblem(s, "role prefix"); msg != "" {
					c.addf(pp.val.Line, pp.val.Column, "%s: %s", what, msg)
				} else {
					prefixNode = deref(pp.val)
				}
			}
		}
	default:
		c.addf(p.key.Line, p.key.Column, `%s must name an entity, e.g. student, or {entity: user, prefix: "ACTOR#"}`, what)
		return Side{}, nil
	}
	if nameNode == nil {
		return Side{}, nil
	}
	e := b.s.Entity(name)
	if e == nil {
		c.addf(nameNode.Line, nameNode.Column, "%s: unknown entity %q; declared entities: %s", what, name, b.entityNames())
		return Side{}, nil
	}
	side := Side{Entity: e, Prefix: e.Prefix}
	if prefixNode != nil {
		side.Prefix = prefixNode.Value
		return side, prefixNode
	}
	return side, b.ent[e].prefix
}

func (b *builder) entityNames() string {
	names := make([]string, 0, len(b.s.Entities))
	for _, e := range b.s.Entities {
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func (b *builder) verbs(vp pair, r *Relation, src *relationSrc, what string) {
	c := b.c
	kinds := []string{string(VerbLink), string(VerbUnlink), string(VerbCheck), string(VerbForward), string(VerbReverse)}
	f := c.fields(vp.val, what+" verbs", "{link: enroll, unlink: unenroll, check: enrolled, forward: courses, reverse: members}", kinds...)
	for _, k := range kinds {
		p, ok := f[k]
		if !ok {
			continue
		}
		v, ok := c.str(p, fmt.Sprintf("%s verb %s", what, k))
		if !ok {
			continue
		}
		if !verbRE.MatchString(v) {
			c.addf(p.val.Line, p.val.Column, "%s: verb %q must be lower-case letters, digits and - (starting with a letter), e.g. enroll", what, v)
			continue
		}
		r.Verbs.set(VerbKind(k), v)
		src.verbs[VerbKind(k)] = deref(p.val)
	}
}

func (b *builder) counters(cp pair, r *Relation, src *relationSrc, what string) {
	c := b.c
	f := c.fields(cp.val, what+" counters", "{from: courseCount, to: studentCount}", "from", "to")
	for _, side := range []struct {
		field  string
		dst    *string
		shards *int
		node   **yaml.Node
	}{{"from", &r.Counters.From, &r.Counters.FromShards, &src.counterFrom}, {"to", &r.Counters.To, &r.Counters.ToShards, &src.counterTo}} {
		p, ok := f[side.field]
		if !ok {
			continue
		}
		sw := fmt.Sprintf("%s counter %s", what, side.field)
		if v := deref(p.val); v != nil && v.Kind == mappingKind {
			// {name: followerCount, shards: 8}: a counter spread over shards.
			cf := c.fields(v, sw, "{name: followerCount, shards: 8}", "name", "shards")
			c.require(cf, v, sw, [2]string{"name", "name: <counter attribute>"})
			if sp, ok := cf["shards"]; ok {
				if n, ok := c.integer(sp, sw+" shards"); ok {
					switch {
					case n < 1 || n > MaxCounterShards:
						c.addf(sp.val.Line, sp.val.Column, "%s: counter shards must be between 1 and %d, not %d (1 keeps the counter on the item itself)", what, MaxCounterShards, n)
					case n > 1 && b.s.Layout().Inverted():
						c.addf(sp.val.Line, sp.val.Column, "%s: counter shards: %d needs the generic index layout: the inverted index is keyed on every item's sort key, so the counter items of every key (sort keys %sNAME#0..%d) would pile into the same %d index partitions, the hot spot sharding is meant to avoid; keep the counter on the item (shards: 1), or use layout: generic", what, n, CounterSKPrefix, n-1, n)
					default:
						*side.shards = int(n)
					}
				}
			}
			np, ok := cf["name"]
			if !ok {
				continue
			}
			p = np
		}
		v, ok := c.str(p, sw)
		if !ok {
			continue
		}
		switch {
		case slices.Contains(b.s.Layout().Reserved(), v):
			c.addf(p.val.Line, p.val.Column, "%s: counter %q is a key attribute adjl manages (%s are reserved); choose another name", what, v, joinNames(b.s.Layout().Reserved()))
		case !attrRE.MatchString(v):
			c.addf(p.val.Line, p.val.Column, "%s: counter name %q must start with a letter and use only letters, digits, _ and - (no dots)", what, v)
		default:
			*side.dst, *side.node = v, deref(p.val)
		}
	}
}
