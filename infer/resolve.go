package infer

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
)

// relKey identifies a relation by the prefixes of its edges' keys.
type relKey struct{ from, edge, to string }

// relStat is what the sample says about one relation.
type relStat struct {
	edges     int
	attrs     kinds
	types     map[string]int
	stamps    map[string]int // shard stamps seen, by relation name
	maxShard  int            // highest index-partition shard seen (generic), -1 none
	toIDs     map[string]bool
	unsharded bool // an edge indexed under its to-key itself
}

// nameRE is what adjl accepts as an entity or relation name (schema's nameRE).
func validName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// word is a prefix's word in lower case: "STU#" -> "stu".
func word(prefix string) string {
	return strings.ToLower(strings.TrimSuffix(prefix, schema.Delimiter))
}

// resolve turns the sample into the proposal's entities and relations.
func (s *sample) resolve(p *Proposal) {
	// Prefixes that are sides of edges: those with items of their own, and
	// every edge's from-prefix, are known; an edge's to-prefix is the first
	// word of its sort key that is a known prefix (the words before it are
	// the edge prefix), else its last word but the id.
	known := map[string]bool{}
	for pr, st := range s.prefixes {
		if st.items > 0 {
			known[pr] = true
		}
	}
	for _, e := range s.edges {
		known[e.from] = true
	}
	rels := map[relKey]*relStat{}
	for _, e := range s.edges {
		i := slices.IndexFunc(e.words, func(w string) bool { return known[w] })
		if i < 0 {
			i = min(1, len(e.words)-1)
		}
		k := relKey{from: e.from, edge: strings.Join(e.words[:i], ""), to: e.words[i]}
		toID := strings.Join(e.words[i+1:], "") + e.rest
		st := rels[k]
		if st == nil {
			st = &relStat{attrs: kinds{}, types: map[string]int{}, stamps: map[string]int{}, maxShard: -1, toIDs: map[string]bool{}}
			rels[k] = st
		}
		st.edges++
		s.count(st.attrs, e.attrs)
		if e.typ != "" {
			st.types[e.typ]++
		}
		maps.Copy(st.stamps, e.stamps)
		st.toIDs[toID] = true
		s.prefix(k.to).ids[toID] = true
		toKey := k.to + toID
		switch {
		case e.indexPK == toKey:
			st.unsharded = true
		case strings.HasPrefix(e.indexPK, toKey+schema.Delimiter):
			if n, err := strconv.Atoi(e.indexPK[len(toKey)+1:]); err == nil {
				st.maxShard = max(st.maxShard, n)
			}
		}
	}

	entityOf := s.roles(rels)
	names := s.entityNames(entityOf)
	for _, pr := range slices.Sorted(maps.Keys(s.prefixes)) {
		if entityOf[pr] != pr {
			continue
		}
		st := s.prefixes[pr]
		p.Entities = append(p.Entities, &Entity{Name: names[pr], Prefix: pr, Items: st.items})
	}
	slices.SortFunc(p.Entities, func(a, b *Entity) int { return strings.Compare(a.Name, b.Name) })

	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	counterUse := map[string]int{} // side prefix -> relation ends using it
	for k := range rels {
		counterUse[k.from]++
		counterUse[k.to]++
	}
	counters := map[string]bool{} // prefix \x00 attribute, assigned as counters
	for _, k := range slices.SortedFunc(maps.Keys(rels), func(a, b relKey) int {
		return strings.Compare(a.from+"\x00"+a.edge+"\x00"+a.to, b.from+"\x00"+b.edge+"\x00"+b.to)
	}) {
		st := rels[k]
		r := &Relation{Edge: k.edge, Edges: st.edges, Shards: 1,
			From: side(k.from, entityOf, names), To: side(k.to, entityOf, names)}
		r.Name = s.relationName(k, st, taken)
		taken[r.Name] = true
		r.Attributes = attributes(st.attrs, nil)
		for _, a := range mixed(st.attrs) {
			p.note("relation %s: attribute %s holds values of several kinds; the proposal says %s", r.Name, a, kindNamed(r.Attributes, a))
		}
		r.Shards = s.shards(r.Name, st, p)
		r.From1 = s.counter(k.from, entityOf[k.from] != k.from, counterUse, counters)
		r.To1 = s.counter(k.to, entityOf[k.to] != k.to, counterUse, counters)
		p.Relations = append(p.Relations, r)
	}
	slices.SortFunc(p.Relations, func(a, b *Relation) int { return strings.Compare(a.Name, b.Name) })

	for _, e := range p.Entities {
		st := s.prefixes[e.Prefix]
		skip := map[string]bool{}
		for name := range st.attrs {
			skip[name] = counters[e.Prefix+"\x00"+name]
		}
		e.Attributes = attributes(st.attrs, skip)
		for _, a := range mixed(st.attrs) {
			p.note("entity %s: attribute %s holds values of several kinds; the proposal says %s", e.Name, a, kindNamed(e.Attributes, a))
		}
	}
	for _, pr := range slices.Sorted(maps.Keys(s.prefixes)) {
		if own := entityOf[pr]; own != pr {
			st := s.prefixes[pr]
			for _, name := range slices.Sorted(maps.Keys(st.attrs)) {
				if !counters[pr+"\x00"+name] {
					p.note("%s items (role of entity %s) hold %s, which the proposal does not place; roles hold only counters", pr, names[own], name)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.unsupported)) {
		p.note("attribute %s was left out: %s", name, s.unsupported[name])
	}
}

func kindNamed(attrs []schema.Attribute, name string) schema.AttrKind {
	for _, a := range attrs {
		if a.Name == name {
			return a.Kind
		}
	}
	return schema.KindString
}

func side(prefix string, entityOf map[string]string, names map[string]string) Side {
	own := entityOf[prefix]
	sd := Side{Entity: names[own]}
	if own != prefix {
		sd.Role = prefix
	}
	return sd
}

// roles maps every prefix to the prefix of its entity: itself, or, for a
// role prefix (ACTOR# for USER#), the entity's. With adjl's type attribute
// the items say it (a role item records its entity's name); without, a
// prefix whose own items hold only numbers (counters) and whose ids are
// mostly an entity's ids is taken for a role of that entity.
func (s *sample) roles(rels map[relKey]*relStat) map[string]string {
	entityOf := map[string]string{}
	for pr := range s.prefixes {
		entityOf[pr] = pr
	}
	sides := map[string]bool{}
	for k := range rels {
		sides[k.from], sides[k.to] = true, true
	}
	onlyNumbers := func(st *prefixStat) bool {
		for _, ks := range st.attrs {
			for kind := range ks {
				if kind != schema.KindNumber {
					return false
				}
			}
		}
		return true
	}
	// By type: the prefixes recording one name; the entity's own is the one
	// holding more than counters, else the one that is no relation's side,
	// else the one with the most items.
	byType := map[string][]string{}
	for _, pr := range slices.Sorted(maps.Keys(s.prefixes)) {
		if t := typeOf(s.prefixes[pr].types); t != "" {
			byType[t] = append(byType[t], pr)
		}
	}
	for _, prs := range byType {
		if len(prs) < 2 {
			continue
		}
		own := slices.MaxFunc(prs, func(a, b string) int {
			score := func(pr string) int {
				st, n := s.prefixes[pr], 0
				if !onlyNumbers(st) {
					n += 1 << 20
				}
				if !sides[pr] {
					n += 1 << 19
				}
				return n + st.items
			}
			return score(a) - score(b)
		})
		for _, pr := range prs {
			entityOf[pr] = own
		}
	}
	// By ids, for prefixes no type placed.
	for _, pr := range slices.Sorted(maps.Keys(s.prefixes)) {
		st := s.prefixes[pr]
		if entityOf[pr] != pr || !sides[pr] || !onlyNumbers(st) || len(st.types) > 0 || len(st.ids) == 0 {
			continue
		}
		best, bestN := "", 0
		for _, other := range slices.Sorted(maps.Keys(s.prefixes)) {
			ost := s.prefixes[other]
			if other == pr || ost.items == 0 || onlyNumbers(ost) {
				continue
			}
			n := 0
			for id := range st.ids {
				if ost.ids[id] {
					n++
				}
			}
			if n > bestN {
				best, bestN = other, n
			}
		}
		if best != "" && 2*bestN >= len(st.ids) {
			entityOf[pr] = best
		}
	}
	return entityOf
}

// entityNames names the entities: adjl's type attribute when the items
// carry one, else the prefix's word in lower case.
func (s *sample) entityNames(entityOf map[string]string) map[string]string {
	names := map[string]string{}
	used := map[string]bool{}
	for _, pr := range slices.Sorted(maps.Keys(s.prefixes)) {
		if entityOf[pr] != pr {
			continue
		}
		name := typeOf(s.prefixes[pr].types)
		if !validName(name) || used[name] {
			name = word(pr)
		}
		for n := 2; used[name] || !validName(name); n++ {
			name = "entity" + strconv.Itoa(n)
		}
		names[pr], used[name] = name, true
	}
	for pr, own := range entityOf {
		if own != pr {
			names[pr] = names[own]
		}
	}
	return names
}

// relationName is adjl's type attribute of the edges, else the edge
// prefix's word, else the two sides' words ("actor-target").
func (s *sample) relationName(k relKey, st *relStat, taken map[string]bool) string {
	name := typeOf(st.types)
	if !validName(name) || taken[name] {
		name = word(k.from) + "-" + word(k.to)
		if k.edge != "" {
			name = word(k.edge[:strings.Index(k.edge, schema.Delimiter)+1])
		}
	}
	base := name
	for n := 2; taken[name] || !validName(name); n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	return name
}

// shards is the relation's reverse-index shard count in the generic
// layout: what adjl's metadata item or the edges' stamps record, else one
// more than the highest shard seen in the edges' index partitions.
func (s *sample) shards(name string, st *relStat, p *Proposal) int {
	if !s.l.WritesIndexKeys() {
		return 1
	}
	if n, ok := s.meta[name]; ok {
		return n
	}
	if n, ok := st.stamps[name]; ok {
		return n
	}
	if st.maxShard >= 0 {
		if st.unsharded {
			p.note("relation %s: some edges are indexed under their to-key, others under a shard of it; the proposal says %d shards (run adjl reshard to settle them)", name, st.maxShard+1)
		} else {
			p.note("relation %s: its edges are indexed in shards up to %d; the proposal says %d shards, which the sample may undercount", name, st.maxShard, st.maxShard+1)
		}
		return st.maxShard + 1
	}
	return 1
}

// counter is the counter kept on a side's items, when the sample says so
// unambiguously: a sharded counter (adjl's counter items), or the one
// number attribute of a role's items, or the one entity attribute named
// like a count (courseCount), all of a prefix only one relation end uses.
func (s *sample) counter(prefix string, role bool, use map[string]int, assigned map[string]bool) Counter {
	if use[prefix] != 1 {
		return Counter{}
	}
	if cs := s.counterShards[prefix]; len(cs) == 1 {
		for name, n := range cs {
			assigned[prefix+"\x00"+name] = true
			return Counter{Name: name, Shards: n}
		}
	}
	st := s.prefixes[prefix]
	if st == nil {
		return Counter{}
	}
	var found []string
	for _, name := range slices.Sorted(maps.Keys(st.attrs)) {
		if _, isNum := st.attrs[name][schema.KindNumber]; !isNum || len(st.attrs[name]) > 1 {
			continue
		}
		if role || strings.HasSuffix(name, "Count") || strings.HasSuffix(name, "_count") || name == "count" {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return Counter{}
	}
	assigned[prefix+"\x00"+found[0]] = true
	return Counter{Name: found[0], Shards: 1}
}
