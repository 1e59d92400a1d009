package schema

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SortIndex says where an ordered relation's reverse lists keep their order.
type SortIndex string

// Sort index layouts, as written in relation.sort.index.
const (
	// SortComposite writes the sort value at the head of the edge's index
	// sort key (GSI1SK = ACTOR#2026-12-04#ACTOR#newbie): one index, every
	// backend, any existing table.
	SortComposite SortIndex = "composite"
	// SortMultiAttribute reads the relation through an index of its own
	// whose keys are DynamoDB multi-attribute keys: partition [GSI1PK, type],
	// sort [the attribute itself, GSI1SK]. No key string carries the value.
	SortMultiAttribute SortIndex = "multi-attribute"
)

// Sort is a relation's order: its lists are ordered by an edge attribute,
// then by key.
type Sort struct {
	By   string   // the edge attribute that orders the lists
	Kind AttrKind // its declared kind
	// DefaultNow gives a link without the attribute the time of the link.
	DefaultNow bool
	// Desc makes the lists newest (greatest) first unless --asc says otherwise.
	Desc  bool
	Index SortIndex
	// Forward orders the forward lists too, through the table's local
	// secondary index (a table created with it).
	Forward bool
}

// Sortable kinds: scalar kinds whose order adjl can keep in a key.
var sortableKinds = []AttrKind{KindString, KindDate, KindDatetime, KindNumber}

// ForwardIndexName is the local secondary index of ordered forward lists,
// and ForwardSK its sort key attribute: the edge's sort value first, as in
// the composite index sort key.
const (
	ForwardIndexName = "LSI1"
	ForwardSK        = "LSI1SK"
)

// IsMultiAttribute reports whether the relation is read through its own
// multi-attribute index.
func (r *Relation) IsMultiAttribute() bool {
	return r.Sort != nil && r.Sort.Index == SortMultiAttribute
}

// IsComposite reports whether the relation's index sort key carries its
// sort value.
func (r *Relation) IsComposite() bool {
	return r.Sort != nil && r.Sort.Index == SortComposite
}

// SortedForward reports whether the relation's forward lists are ordered
// (through the local secondary index).
func (r *Relation) SortedForward() bool { return r.Sort != nil && r.Sort.Forward }

// SortIndexName is the multi-attribute index of relations ordered by attr:
// GSI1-by-since. Relations ordered by the same attribute share it; its
// partition key includes the type attribute, so each relation's edges
// keep to their own partitions.
func SortIndexName(index, attr string) string { return index + "-by-" + attr }

// NeedsForwardIndex reports whether any relation orders its forward lists,
// which takes the local secondary index.
func (s *Schema) NeedsForwardIndex() bool {
	return slices.ContainsFunc(s.Relations, (*Relation).SortedForward)
}

// SortAttributes are the attributes of the schema's multi-attribute
// indexes, one index each, in first-use order, with their kind.
func (s *Schema) SortAttributes() []Attribute {
	var out []Attribute
	for _, r := range s.Relations {
		if r.IsMultiAttribute() && !slices.ContainsFunc(out, func(a Attribute) bool { return a.Name == r.Sort.By }) {
			out = append(out, Attribute{Name: r.Sort.By, Kind: r.Sort.Kind})
		}
	}
	return out
}

// Signature is the sort in one line, as the table's metadata records it
// and plan compares it: "since composite desc forward" ("" unordered).
// The order is part of it only for show: changing it rewrites nothing.
func (st *Sort) Signature() string {
	if st == nil {
		return ""
	}
	parts := []string{st.By, string(st.Index)}
	if st.Forward {
		parts = append(parts, "forward")
	}
	return strings.Join(parts, " ")
}

const sortExample = "{by: since, default: now, order: desc, index: composite}"

// sort reads a relation's sort block once its attributes are known.
func (b *builder) sort(r *Relation, sp pair) {
	c := b.c
	what := fmt.Sprintf("relation %q sort", r.Name)
	f := c.fields(sp.val, what, sortExample, "by", "default", "order", "index", "forward")
	v := deref(sp.val)
	if v == nil || v.Kind != mappingKind {
		return
	}
	if !c.require(f, v, what, [2]string{"by", "by: <edge attribute> (a string, date, datetime or number attribute of the relation)"}) {
		return
	}
	st := &Sort{Index: SortComposite}
	if !b.sortBy(r, st, f["by"], what) {
		return
	}
	ok := b.sortDefault(st, f, what)
	ok = b.sortOrder(st, f, what) && ok
	ok = b.sortIndex(st, f, what) && ok
	if p, has := f["forward"]; has {
		fw, good := c.boolean(p, what+" forward")
		st.Forward, ok = fw, ok && good
	}
	if ok {
		r.Sort = st
	}
}

// sortBy checks that by names a declared, sortable edge attribute.
func (b *builder) sortBy(r *Relation, st *Sort, p pair, what string) bool {
	c := b.c
	name, ok := c.str(p, what+" by")
	if !ok {
		return false
	}
	a, found := findAttribute(r.Attributes, name)
	switch {
	case !found:
		c.addf(p.val.Line, p.val.Column, "%s: by: %q is not an attribute of the relation; declare it, e.g. attributes: {%s: date}, or sort by one of: %s", what, name, name, attrList(r.Attributes))
		return false
	case !slices.Contains(sortableKinds, a.Kind):
		c.addf(p.val.Line, p.val.Column, "%s: by: %q is %s, which has no order a key can keep; sort by a string, date, datetime or number attribute", what, name, a.Kind.Noun())
		return false
	}
	st.By, st.Kind = a.Name, a.Kind
	return true
}

func (b *builder) sortDefault(st *Sort, f map[string]pair, what string) bool {
	p, has := f["default"]
	if !has {
		return true
	}
	v, ok := b.c.str(p, what+" default")
	switch {
	case !ok:
		return false
	case v != "now":
		b.c.addf(p.val.Line, p.val.Column, "%s: default %q is not supported; write default: now (the time of the link), or leave it out to require the attribute on every link", what, v)
		return false
	case st.Kind == KindNumber:
		b.c.addf(p.val.Line, p.val.Column, "%s: default: now needs a date, datetime or string attribute, and %q is a number; remove the default, or declare %s as a date or datetime", what, st.By, st.By)
		return false
	}
	st.DefaultNow = true
	return true
}

func (b *builder) sortOrder(st *Sort, f map[string]pair, what string) bool {
	p, has := f["order"]
	if !has {
		return true
	}
	v, ok := b.c.str(p, what+" order")
	switch {
	case !ok:
		return false
	case v == "asc":
	case v == "desc":
		st.Desc = true
	default:
		b.c.addf(p.val.Line, p.val.Column, "%s: order %q is neither asc nor desc; write order: desc for greatest (newest) first, order: asc for least first", what, v)
		return false
	}
	return true
}

func (b *builder) sortIndex(st *Sort, f map[string]pair, what string) bool {
	p, has := f["index"]
	if !has {
		return true
	}
	v, ok := b.c.str(p, what+" index")
	switch {
	case !ok:
		return false
	case v == string(SortComposite), v == string(SortMultiAttribute):
		st.Index = SortIndex(v)
	default:
		b.c.addf(p.val.Line, p.val.Column, "%s: index %q is unknown; use composite (the value in the index sort key, any backend) or multi-attribute (DynamoDB's multi-attribute index keys)", what, v)
		return false
	}
	if st.Index == SortMultiAttribute && st.Kind == KindDatetime {
		b.c.addf(p.val.Line, p.val.Column, "%s: index: multi-attribute sorts %q as the text it is stored as, and RFC 3339 times in other offsets or precisions do not sort as text; use index: composite (its key holds the time in UTC), or a date attribute", what, st.By)
		return false
	}
	return true
}

// checkSorts reads every relation's sort block, then checks what spans
// relations: the layout must be generic, the forward index's attribute
// free, and an attribute a multi-attribute index keys on one DynamoDB type
// wherever it is declared (DynamoDB refuses an item whose key attribute has
// another type, whatever relation wrote it).
func (b *builder) checkSorts() {
	for _, r := range b.s.Relations {
		src := b.rel[r]
		if src == nil || src.sort.key == nil {
			continue
		}
		if b.s.Layout().Inverted() {
			b.c.addf(src.sort.key.Line, src.sort.key.Column, "relation %q: sort needs the generic index layout: the inverted index's sort key is the edge's own table key, which cannot carry a value; remove sort, or use layout: generic", r.Name)
			continue
		}
		b.sort(r, src.sort)
	}
	b.checkSortTypes()
}

// checkSortTypes: each multi-attribute sort attribute has one key type in
// every entity and relation that declares it, and the forward index's sort
// key attribute is not declared.
func (b *builder) checkSortTypes() {
	for _, a := range b.s.SortAttributes() {
		want := keyType(a.Kind)
		for _, o := range b.attributeOwners(a.Name) {
			if keyType(o.kind) != want {
				b.c.addf(o.node.Line, o.node.Column, "%s: attribute %q is %s, but the multi-attribute index %s keys on %q as %s; DynamoDB would refuse to write such an item, so declare it %s everywhere, or rename one", o.owner, a.Name, o.kind.Noun(), SortIndexName(b.s.Table.Index.Name, a.Name), a.Name, keyTypeNoun(want), keyTypeNoun(want))
			}
		}
	}
	if !b.s.NeedsForwardIndex() {
		return
	}
	for _, o := range b.attributeOwners(ForwardSK) {
		b.c.addf(o.node.Line, o.node.Column, "%s: %q is the sort key of the forward index %s that sort.forward uses; rename the attribute", o.owner, ForwardSK, ForwardIndexName)
	}
}

type attrOwner struct {
	owner string
	kind  AttrKind
	node  *yaml.Node
}

// attributeOwners lists every declaration of attribute name.
func (b *builder) attributeOwners(name string) []attrOwner {
	var out []attrOwner
	for _, e := range b.s.Entities {
		if a, ok := findAttribute(e.Attributes, name); ok && b.ent[e] != nil {
			out = append(out, attrOwner{fmt.Sprintf("entity %q", e.Name), a.Kind, b.ent[e].attrs[name]})
		}
	}
	for _, r := range b.s.Relations {
		if a, ok := findAttribute(r.Attributes, name); ok && b.rel[r] != nil {
			out = append(out, attrOwner{fmt.Sprintf("relation %q", r.Name), a.Kind, b.rel[r].attrs[name]})
		}
	}
	return out
}

// keyType is the DynamoDB scalar type a kind is stored as: "N" or "S";
// "" for kinds that cannot be a key (bool, string sets).
func keyType(k AttrKind) string {
	switch k {
	case KindNumber:
		return "N"
	case KindString, KindDate, KindDatetime:
		return "S"
	}
	return ""
}

// KeyType is the DynamoDB attribute type ("S" or "N") of the sort
// attribute, as an index's AttributeDefinitions declare it.
func (st *Sort) KeyType() string { return keyType(st.Kind) }

func keyTypeNoun(t string) string {
	switch t {
	case "N":
		return "a number"
	case "S":
		return "a string (string, date or datetime)"
	}
	return "a string or number"
}
