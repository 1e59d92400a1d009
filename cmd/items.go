package cmd

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sideColumn names the column holding a side's key in list output: the
// entity name, or the role (actor, target) when both sides are one entity.
func sideColumn(rel *schema.Relation, side schema.Side) string {
	if rel.From.Entity == rel.To.Entity || side.Entity == nil {
		return strings.ToLower(strings.TrimSuffix(side.Prefix, schema.Delimiter))
	}
	return side.Entity.Name
}

// listColumns are the columns of a list: the other side's key first, then the
// edge attributes in schema order. A reverse list reads the index, so only
// the attributes it projects can have a value: the others are left out
// rather than printed empty.
func listColumns(rel *schema.Relation, dir ops.Direction, index schema.Index) []string {
	other := rel.To
	if dir == ops.Reverse {
		other = rel.From
	}
	cols := []string{sideColumn(rel, other)}
	for _, a := range rel.Attributes {
		if dir == ops.Reverse && !index.Projects(a.Name) {
			continue
		}
		cols = append(cols, a.Name)
	}
	return cols
}

// edgeRecord is one list row: the other side's key, the declared edge
// attributes present on the item, then any other attributes by name.
func edgeRecord(l schema.Layout, rel *schema.Relation, dir ops.Direction, item ops.Item) (orderedObject, error) {
	var other string
	if dir == ops.Forward {
		other = strings.TrimPrefix(stringAttr(item, l.SK), rel.Edge)
	} else {
		other = stringAttr(item, l.PK)
		if other == "" {
			other = stringAttr(item, l.IndexSK)
		}
	}
	rec := orderedObject{{listColumns(rel, dir, schema.Index{})[0], other}}
	return appendAttrs(l, rec, rel.Attributes, item)
}

// entityRecord is an entity (or role) item: its key and type, the declared
// attributes in schema order, then counters and anything else by name. The
// type is the layout's type attribute or, in a layout without one, the
// entity the key's prefix names (unless it declares a "type" of its own),
// so an item reads the same in every layout.
func entityRecord(s *schema.Schema, item ops.Item) (orderedObject, error) {
	l := schema.DefaultLayout
	if s != nil {
		l = s.Layout()
	}
	key := stringAttr(item, l.PK)
	rec := orderedObject{{"key", key}}
	var e *schema.Entity
	if s != nil {
		e, _, _ = s.ResolveKey(key)
	}
	var attrs []schema.Attribute
	if e != nil {
		attrs = e.Attributes
	}
	switch {
	case l.Type != "":
		if t := stringAttr(item, l.Type); t != "" {
			rec = append(rec, field{"type", t})
		}
	case e != nil && !slices.ContainsFunc(attrs, func(a schema.Attribute) bool { return a.Name == "type" }):
		rec = append(rec, field{"type", e.Name})
	}
	return appendAttrs(l, rec, attrs, item)
}

// entityColumns are the fields an item of key can have, for a header that
// stays the same from item to item (get -o csv): key and type, the entity's
// declared attributes (on its own prefix; a role item holds none), then the
// counters the relations keep on an item of that prefix (on its own prefix:
// on its role items too, as get shows the entity whole). nil without a
// schema or for a key no entity owns.
func entityColumns(s *schema.Schema, key string) []string {
	if s == nil {
		return nil
	}
	e, prefix, err := s.ResolveKey(key)
	if err != nil || e == nil {
		return nil
	}
	cols := []string{"key", "type"}
	if prefix == e.Prefix {
		for _, a := range e.Attributes {
			if !slices.Contains(cols, a.Name) {
				cols = append(cols, a.Name)
			}
		}
	}
	var counters []string
	for _, sd := range s.Sides(e) {
		// An entity key is shown whole: its role items' counters too.
		if name, _ := sd.Relation.Counter(sd.End); name != "" && (sd.Prefix == prefix || prefix == e.Prefix) {
			counters = append(counters, name)
		}
	}
	sort.Strings(counters) // entityRecord prints them by name too
	for _, c := range counters {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// withColumns is rec with every one of cols, in that order (nil, an empty
// cell, for those it lacks), then its other fields.
func withColumns(rec orderedObject, cols []string) orderedObject {
	out := make(orderedObject, 0, len(cols)+len(rec))
	for _, c := range cols {
		v, _ := rec.get(c)
		out = append(out, field{c, v})
	}
	for _, f := range rec {
		if !slices.Contains(cols, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// appendAttrs adds the declared attributes present on item, in schema
// order, then the others by name; the layout's key and type attributes and
// adjl's reserved ones (stamps) are left out.
func appendAttrs(l schema.Layout, rec orderedObject, declared []schema.Attribute, item ops.Item) (orderedObject, error) {
	seen := map[string]bool{}
	for _, k := range l.Reserved() {
		seen[k] = true
	}
	for _, f := range rec {
		seen[f.Name] = true
	}
	for _, a := range declared {
		seen[a.Name] = true
		av, ok := item[a.Name]
		if !ok {
			continue
		}
		v, err := ops.PlainValue(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.Name, err)
		}
		rec = append(rec, field{a.Name, v})
	}
	var rest []string
	for k := range item {
		if !seen[k] && !schema.IsReservedAttribute(k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		v, err := ops.PlainValue(item[k])
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		rec = append(rec, field{k, v})
	}
	return rec, nil
}

func stringAttr(item ops.Item, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
