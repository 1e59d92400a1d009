package schema

import (
	"fmt"
	"strings"
)

// EntityGetReason says why a list of r with --with-entity reads the side's
// own item with a GetItem after the plain list Query, or "" when the list's
// Query itself brings the item (key condition on the partition alone, a
// type filter): one Query per page.
//
// DynamoDB applies a Query's Limit before its filter, so that one Query
// stays bounded only when the partition holds nothing but the item and r's
// edges, and the item is read first: it sorts ahead of every edge in the
// read order (ascending, or descending with desc). Anything else the schema
// puts in the partition - other relations' edges, sharded counter items -
// would be walked a page size at a time; an item sorting after the edges
// would be reached only past the last edge.
func (s *Schema) EntityGetReason(r *Relation, reverse, desc bool) string {
	l := s.Layout()
	if l.Type == "" {
		// No type attribute to filter by (the inverted layout), and an
		// adopted table's partitions often hold items the schema does not
		// name: the one Query would read them all, a page size at a time.
		return "the layout has no type attribute to keep the list's items by"
	}
	side, edges, others := r.From, r.EdgeSKPrefix(), s.forwardNeighbours(r)
	if reverse {
		switch {
		case r.Shards > 1:
			return fmt.Sprintf("no shard partition holds the %s item", r.To.Prefix)
		case !l.ReverseHoldsEntity(r):
			return fmt.Sprintf("the index holds the %s item under its own key, the edges under %s", r.To.Prefix, l.ReversePartition(r, r.To.Prefix+"<id>", 0))
		case s.Table.Index.Projection != "" && s.Table.Index.Projection != ProjectionAll:
			return fmt.Sprintf("the index projects %s, not the whole item", s.Table.Index.Projection)
		}
		side, edges, others = r.To, r.From.Prefix, s.reverseNeighbours(r)
	} else if len(s.ShardedCounters(side.Prefix)) > 0 {
		others = append(others, "sharded counter items ("+CounterSKPrefix+")")
	}
	if len(others) > 0 {
		return "the partition also holds " + strings.Join(others, ", ")
	}
	first, order := sortsBefore(side.Prefix, edges), "after"
	if desc {
		first, order = sortsBefore(edges, side.Prefix), "before"
	}
	if !first {
		if strings.HasPrefix(side.Prefix, edges) || strings.HasPrefix(edges, side.Prefix) {
			order = "among"
		}
		if desc && order == "before" {
			order = "before the edges, read last descending"
		} else {
			order += " the edges"
		}
		return fmt.Sprintf("the %s item sorts %s", side.Prefix, order)
	}
	return ""
}

// forwardNeighbours names the other relations whose edges share r's
// forward partitions (the same from prefix).
func (s *Schema) forwardNeighbours(r *Relation) []string {
	var out []string
	for _, o := range s.Relations {
		if o != r && o.From.Prefix == r.From.Prefix {
			out = append(out, fmt.Sprintf("%s's edges (%s)", o.Name, o.EdgeSKPrefix()))
		}
	}
	return out
}

// reverseNeighbours names the other relations whose edges share r's
// (unsharded) reverse partition of the index: those into the same prefix,
// and a sharded one's shard partitions (<to key>#<shard>), which the
// partition of a key holding "#" can be.
func (s *Schema) reverseNeighbours(r *Relation) []string {
	l := s.Layout()
	var out []string
	for _, o := range s.Relations {
		switch {
		case o == r || o.To.Prefix != r.To.Prefix:
		case o.Shards > 1:
			out = append(out, fmt.Sprintf("%s's shard partitions (%s)", o.Name, l.ReversePartition(o, o.To.Prefix+"<id>", 0)))
		case l.ReverseHoldsEntity(o):
			out = append(out, fmt.Sprintf("%s's edges (%s)", o.Name, o.From.Prefix))
		}
	}
	return out
}

// sortsBefore reports whether every string starting with a sorts before
// every string starting with b.
func sortsBefore(a, b string) bool {
	return !strings.HasPrefix(a, b) && !strings.HasPrefix(b, a) && a < b
}
