package schema

import (
	"iter"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// validate runs the checks that span several parts of the file. Parts that
// already failed their own checks are skipped, so one mistake is reported once.
func (b *builder) validate() {
	b.checkPrefixOwners()
	b.checkPartitions()
	b.checkNames()
	b.checkVerbs()
	b.checkCounters()
	b.checkInclude()
	b.checkTTL()
	b.checkSorts()
}

// completeRelations yields, in file order, the relations that parsed well
// enough for cross-checks, each with where its parts stand in the file.
func (b *builder) completeRelations() iter.Seq2[*Relation, *relationSrc] {
	return func(yield func(*Relation, *relationSrc) bool) {
		for _, r := range b.s.Relations {
			src := b.rel[r]
			complete := r.From.Entity != nil && r.To.Entity != nil && r.From.Prefix != "" && r.To.Prefix != "" &&
				src.fromPrefix != nil && src.toPrefix != nil && src.edge != nil &&
				!src.badPrefix && !b.ent[r.From.Entity].badPrefix && !b.ent[r.To.Entity].badPrefix
			if complete && !yield(r, src) {
				return
			}
		}
	}
}

// checkPrefixOwners: each prefix names exactly one entity. A role prefix may
// be reused for the same entity (in several relations), never for another.
func (b *builder) checkPrefixOwners() {
	type owner struct {
		e    *Entity
		node *yaml.Node
	}
	owners := make(map[string]owner)
	for _, e := range b.s.Entities {
		src := b.ent[e]
		if e.Prefix == "" {
			continue
		}
		if o, dup := owners[e.Prefix]; dup {
			b.c.addf(src.prefix.Line, src.prefix.Column, "entity %q: prefix %q is already used by entity %q (line %d); each entity needs its own prefix", e.Name, e.Prefix, o.e.Name, o.node.Line)
			src.badPrefix = true
			continue
		}
		owners[e.Prefix] = owner{e, src.prefix}
	}
	for r, src := range b.completeRelations() {
		for _, sd := range []struct {
			end  End
			side Side
			node *yaml.Node
		}{{FromEnd, r.From, src.fromPrefix}, {ToEnd, r.To, src.toPrefix}} {
			o, seen := owners[sd.side.Prefix]
			switch {
			case !seen:
				owners[sd.side.Prefix] = owner{sd.side.Entity, sd.node}
			case o.e != sd.side.Entity:
				src.badPrefix = true
				b.c.addf(sd.node.Line, sd.node.Column, "relation %q %s: role prefix %q is already the prefix of entity %q (line %d); a prefix must always name the same entity, choose another", r.Name, sd.end, sd.side.Prefix, o.e.Name, o.node.Line)
			}
		}
	}
}

// skPrefix is one kind of item that can sit in a partition, by the prefix of
// its sort key there.
type skPrefix struct {
	prefix string
	rel    *Relation // nil: the partition's own entity or role item
	node   *yaml.Node
}

// checkPartitions makes sure a key condition can always tell apart the items
// sharing a partition. In the base table, the partition of key P+id holds the
// item itself (SK P+id) and the forward edges of every relation from P (SK
// Edge+ToPrefix+id). In the index, the partition of T+id holds the item
// itself (GSI1SK T+id) and the reverse edges of every relation to T (GSI1SK
// FromPrefix+id). No two of those sort-key prefixes may overlap (one a prefix
// of the other), or begins_with would return the wrong items. In the
// inverted layout an edge is indexed under its own sort key, Edge+T+id: the
// item T+id shares that partition only when the edge prefix is empty.
func (b *builder) checkPartitions() {
	inverted := b.s.Layout().Inverted()
	base := make(map[string][]skPrefix)
	index := make(map[string][]skPrefix)
	var order []string
	for r, src := range b.completeRelations() {
		for _, p := range []string{r.From.Prefix, r.To.Prefix} {
			if !slices.Contains(order, p) {
				order = append(order, p)
				base[p] = []skPrefix{{prefix: p}}
				index[p] = []skPrefix{{prefix: p}}
			}
		}
		edgeNode := src.edge
		base[r.From.Prefix] = b.addSK(base[r.From.Prefix], skPrefix{r.EdgeSKPrefix(), r, edgeNode}, r.From.Prefix, "base table")
		part := r.To.Prefix
		if inverted {
			part = r.EdgeSKPrefix()
			if _, ok := index[part]; !ok {
				index[part] = nil
			}
		}
		index[part] = b.addSK(index[part], skPrefix{r.From.Prefix, r, src.from}, part, "index")
	}
}

func (b *builder) addSK(have []skPrefix, add skPrefix, partition, where string) []skPrefix {
	for _, h := range have {
		if !strings.HasPrefix(add.prefix, h.prefix) && !strings.HasPrefix(h.prefix, add.prefix) {
			continue
		}
		r := add.rel
		switch {
		case h.rel == nil && where == "base table":
			b.c.addf(add.node.Line, add.node.Column, "relation %q: its edges would be stored under sort keys starting %q in the same %s partitions as the %s items themselves, so a forward read could not tell them apart; set an edge prefix such as edge: %q", r.Name, add.prefix, partition, partition, suggestPrefix(r.Name))
		case h.rel == nil:
			b.c.addf(add.node.Line, add.node.Column, "relation %q: from and to both use prefix %q, so a reverse read could not tell edges from the %s items themselves; give the sides role prefixes, e.g. from: {entity: %s, prefix: \"ACTOR#\"} and to: {entity: %s, prefix: \"TARGET#\"}", r.Name, partition, partition, r.From.Entity.Name, r.To.Entity.Name)
		case where == "base table":
			b.c.addf(add.node.Line, add.node.Column, "relation %q: its edges in %s partitions would have sort keys starting %q, which overlaps %q of relation %q (line %d), so forward reads could not tell them apart; give one of them a distinct edge prefix, e.g. edge: %q", r.Name, partition, add.prefix, h.prefix, h.rel.Name, h.node.Line, suggestPrefix(r.Name))
		default:
			b.c.addf(add.node.Line, add.node.Column, "relation %q: its edges are indexed in %s partitions under %q, like those of relation %q (line %d), so reverse reads could not tell them apart; give one of them a role prefix, e.g. from: {entity: %s, prefix: %q}", r.Name, partition, add.prefix, h.rel.Name, h.node.Line, r.From.Entity.Name, suggestPrefix(r.Name+"ER"))
		}
		return have
	}
	return append(have, add)
}

// checkNames: the type attribute holds entity and relation names, so they
// must differ.
func (b *builder) checkNames() {
	for _, r := range b.s.Relations {
		if e := b.s.Entity(r.Name); e != nil {
			k := b.rel[r].key
			b.c.addf(k.Line, k.Column, "relation %q has the same name as entity %q (line %d); items record their entity or relation name in the type attribute, so rename one", r.Name, e.Name, b.ent[e].key.Line)
		}
	}
}

// checkVerbs: every verb becomes a top-level command, so it must be unique
// and must not shadow a built-in command or read as another relation's name
// (`adjl likes` must not mean a verb of relation follow). A relation's own
// name is allowed: relation follow with verb follow is natural.
func (b *builder) checkVerbs() {
	type use struct {
		r    *Relation
		k    VerbKind
		node *yaml.Node
	}
	seen := make(map[string]use)
	for _, r := range b.s.Relations {
		src := b.rel[r]
		for _, k := range VerbKinds {
			v, node := r.Verbs.Get(k), src.verbs[k]
			if v == "" || node == nil {
				continue
			}
			switch {
			case slices.Contains(BuiltinCommands, v):
				b.c.addf(node.Line, node.Column, "relation %q: verb %s: %q collides with the built-in command %q; choose another name", r.Name, k, v, v)
			case b.s.Relation(v) != nil && v != r.Name:
				b.c.addf(node.Line, node.Column, "relation %q: verb %s: %q is also the name of relation %q; choose another name", r.Name, k, v, v)
			default:
				if u, dup := seen[v]; dup {
					b.c.addf(node.Line, node.Column, "relation %q: verb %s: %q is already the %s verb of relation %q (line %d); verbs become commands and must be unique", r.Name, k, v, u.k, u.r.Name, u.node.Line)
					continue
				}
				seen[v] = use{r, k, node}
			}
		}
	}
}

// checkCounters: a counter is an attribute of the side's item, so two
// counters on the same kind of item, or a counter and a declared attribute of
// it, would overwrite each other.
func (b *builder) checkCounters() {
	type use struct {
		r    *Relation
		node *yaml.Node
	}
	seen := make(map[string]use) // prefix + "\x00" + counter
	for r, src := range b.completeRelations() {
		for _, c := range []struct {
			side Side
			name string
			node *yaml.Node
		}{{r.From, r.Counters.From, src.counterFrom}, {r.To, r.Counters.To, src.counterTo}} {
			if c.name == "" || c.node == nil {
				continue
			}
			e := c.side.Entity
			if e.hasAttribute(c.name) {
				b.c.addf(c.node.Line, c.node.Column, "relation %q: counter %q has the name of an attribute of entity %q (line %d); choose another counter name", r.Name, c.name, e.Name, b.ent[e].attrs[c.name].Line)
				continue
			}
			id := c.side.Prefix + "\x00" + c.name
			if u, dup := seen[id]; dup {
				b.c.addf(c.node.Line, c.node.Column, "relation %q: counter %q is already kept on %s items by relation %q (line %d); choose another counter name", r.Name, c.name, c.side.Prefix, u.r.Name, u.node.Line)
				continue
			}
			seen[id] = use{r, c.node}
		}
	}
}

func (e *Entity) hasAttribute(name string) bool {
	for _, a := range e.Attributes {
		if a.Name == name {
			return true
		}
	}
	return false
}

// checkInclude: an INCLUDE projection naming an undeclared attribute is
// almost always a typo, and DynamoDB would accept it silently.
func (b *builder) checkInclude() {
	l := b.s.Layout()
	known := map[string]bool{}
	if l.Type != "" {
		known[l.Type] = true
	}
	for _, e := range b.s.Entities {
		for _, a := range e.Attributes {
			known[a.Name] = true
		}
	}
	for _, r := range b.s.Relations {
		for _, a := range r.Attributes {
			known[a.Name] = true
		}
		known[r.Counters.From], known[r.Counters.To] = true, true
	}
	delete(known, "")
	for _, n := range b.include {
		switch {
		case slices.Contains(l.KeyNames(), n.Value):
			b.c.addf(n.Line, n.Column, "index include: %q is a key attribute, always projected; remove it", n.Value)
		case !known[n.Value]:
			b.c.addf(n.Line, n.Column, "index include: %q is not a declared attribute or counter; declared: %s", n.Value, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
}
