package schema

import (
	"fmt"
	"strings"
)

// Entity returns the entity called name, or nil.
func (s *Schema) Entity(name string) *Entity {
	for _, e := range s.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Relation returns the relation called name, or nil.
func (s *Schema) Relation(name string) *Relation {
	for _, r := range s.Relations {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// VerbKind says what a relation verb does; the values are the keys of the
// schema's verbs: block.
type VerbKind string

// Verb kinds.
const (
	VerbLink    VerbKind = "link"
	VerbUnlink  VerbKind = "unlink"
	VerbCheck   VerbKind = "check"
	VerbForward VerbKind = "forward"
	VerbReverse VerbKind = "reverse"
)

// VerbKinds lists the kinds in the order the CLI shows them.
var VerbKinds = []VerbKind{VerbLink, VerbUnlink, VerbCheck, VerbForward, VerbReverse}

// Get returns the verb of kind k ("" when the relation does not declare it).
func (v Verbs) Get(k VerbKind) string {
	switch k {
	case VerbLink:
		return v.Link
	case VerbUnlink:
		return v.Unlink
	case VerbCheck:
		return v.Check
	case VerbForward:
		return v.Forward
	case VerbReverse:
		return v.Reverse
	}
	return ""
}

func (v *Verbs) set(k VerbKind, name string) {
	switch k {
	case VerbLink:
		v.Link = name
	case VerbUnlink:
		v.Unlink = name
	case VerbCheck:
		v.Check = name
	case VerbForward:
		v.Forward = name
	case VerbReverse:
		v.Reverse = name
	}
}

// RelationByVerb finds the relation that declares verb as one of its
// commands, so the CLI can turn `adjl enroll ...` into a link. It returns
// nil, "" when no relation declares it. Validation guarantees uniqueness.
func (s *Schema) RelationByVerb(verb string) (*Relation, VerbKind) {
	if verb == "" {
		return nil, ""
	}
	for _, r := range s.Relations {
		for _, k := range VerbKinds {
			if r.Verbs.Get(k) == verb {
				return r, k
			}
		}
	}
	return nil, ""
}

// ResolveKey finds the entity a full key belongs to, by its entity prefix or
// by a role prefix some relation gives it, so `adjl get TARGET#bob` works.
// The key must carry a prefix: a bare id could belong to any entity.
// Failures are *KeyError.
func (s *Schema) ResolveKey(key string) (ent *Entity, prefix string, err error) {
	want := "a key with one of the prefixes " + strings.Join(s.KeyPrefixes(), " ")
	for _, p := range s.KeyPrefixes() {
		if !strings.HasPrefix(key, p) {
			continue
		}
		e := s.entityOfPrefix(p)
		if _, err := s.owners().normalize(key, p, MaxSortKeyBytes); err != nil {
			return nil, "", err
		}
		return e, p, nil
	}
	var reason, suggest string
	if key == "" {
		reason = "empty key"
	} else if i := strings.Index(key, Delimiter); i < 0 {
		reason = "no prefix; a bare id could belong to any entity"
	} else {
		reason = fmt.Sprintf("unknown prefix %q", key[:i+1])
		for _, p := range s.KeyPrefixes() {
			if strings.EqualFold(p, key[:i+1]) {
				reason, suggest = fmt.Sprintf("prefix %q is %q in another case", key[:i+1], p), p+key[i+1:]
			}
		}
	}
	return nil, "", &KeyError{Input: key, Reason: reason, Want: want, Suggest: suggest}
}

// indexPrefixes gives every entity and relation the schema's prefixes, so
// their key checks can name a prefix that belongs elsewhere.
func (s *Schema) indexPrefixes() {
	o := s.owners()
	for _, e := range s.Entities {
		e.prefixes = o
	}
	for _, r := range s.Relations {
		r.prefixes = o
	}
}

// owners maps each key prefix to the name of the entity it belongs to.
// The first owner of a prefix wins, as in entityOfPrefix; one pass, so a
// schema of many entities costs linear time, not quadratic.
func (s *Schema) owners() prefixOwners {
	o := prefixOwners{}
	own := func(p string, e *Entity) {
		if _, ok := o[p]; !ok && p != "" && e != nil {
			o[p] = e.Name
		}
	}
	for _, e := range s.Entities {
		own(e.Prefix, e)
	}
	for _, r := range s.Relations {
		own(r.From.Prefix, r.From.Entity)
		own(r.To.Prefix, r.To.Entity)
	}
	return o
}

// KeyPrefixes lists every prefix an item key can start with: entity
// prefixes, then role prefixes, each once, in schema order.
func (s *Schema) KeyPrefixes() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range s.Entities {
		add(e.Prefix)
	}
	for _, r := range s.Relations {
		add(r.From.Prefix)
		add(r.To.Prefix)
	}
	return out
}

func (s *Schema) entityOfPrefix(p string) *Entity {
	for _, e := range s.Entities {
		if e.Prefix == p {
			return e
		}
	}
	for _, r := range s.Relations {
		for _, sd := range []Side{r.From, r.To} {
			if sd.Prefix == p {
				return sd.Entity
			}
		}
	}
	return nil
}

// End says which end of a relation a side is.
type End string

// Ends of a relation.
const (
	FromEnd End = "from" // the edge's PK is this side's key (forward reads)
	ToEnd   End = "to"   // the edge's GSI1PK is this side's key (reverse reads)
)

// SideRef is one place an entity takes part in a relation: which relation,
// which end, and the key prefix its keys carry there (the entity's own
// prefix, or a role prefix such as ACTOR#).
type SideRef struct {
	Relation *Relation
	End      End
	Prefix   string
}

// Sides lists every relation end the entity takes part in, in schema order
// (a self-relation yields two). Deleting an entity with --cascade must remove
// the edges of each: for a FromEnd, Query PK = Prefix+id and
// begins_with(SK, Relation.EdgeSKPrefix()); for a ToEnd, Query the index at
// each Layout().ReversePartitions(Relation, Prefix+id) with begins_with(index SK,
// Relation.From.Prefix); and, when Prefix differs from the entity's own
// prefix, delete the role item Layout().ItemKeys(Prefix+id) too.
func (s *Schema) Sides(e *Entity) []SideRef {
	var out []SideRef
	same := func(x *Entity) bool { return x == e || x != nil && e != nil && x.Name == e.Name }
	for _, r := range s.Relations {
		if same(r.From.Entity) {
			out = append(out, SideRef{Relation: r, End: FromEnd, Prefix: r.From.Prefix})
		}
		if same(r.To.Entity) {
			out = append(out, SideRef{Relation: r, End: ToEnd, Prefix: r.To.Prefix})
		}
	}
	return out
}

// HasRole reports whether the side uses a role prefix, so its counters live
// on a separate role item (PK=SK=GSI1PK=GSI1SK=ACTOR#alice) rather than on
// the entity item.
func (sd Side) HasRole() bool { return sd.Entity != nil && sd.Prefix != sd.Entity.Prefix }
