package schema

import (
	"fmt"
	"strings"
)

// Pattern is one access pattern the schema supports, with the single
// DynamoDB request shape that serves it; `adjl schema patterns` prints them
// so users can see that no read is a Scan.
type Pattern struct {
	Name         string // "enrollment: forward list"
	Command      string // the adjl command that runs it
	Operation    string // Query, GetItem, PutItem, DeleteItem or TransactWriteItems
	Index        string // "" for the base table, else the index name
	KeyCondition string // key condition, or the key for GetItem and writes
	Filter       string // filter expression, if any
	Notes        string
	// Kind, Relation, Entity and End say which pattern this is, so a tool
	// can run it (adjl verify); Requests (patterns_cost.go) derives from them.
	Kind     PatternKind
	Relation *Relation // nil for an entity's get
	Entity   *Entity   // the entity of a get
	End      End       // the side of a sharded-counter read
}

// AccessPatterns lists, for each entity, its point read, and for each
// relation, its forward and reverse lists (bare and with the entity item),
// point check, link and unlink, in schema order.
func (s *Schema) AccessPatterns() []Pattern {
	l := s.Layout()
	var out []Pattern
	for _, e := range s.Entities {
		key := e.Prefix + "<id>"
		out = append(out, Pattern{
			Name:         e.Name + ": get",
			Command:      "adjl get " + key,
			Operation:    "GetItem",
			KeyCondition: fmt.Sprintf("%s = %s, %s = %s", l.PK, key, l.SK, key),
			Notes:        "strongly consistent with --consistent",
			Kind:         PatternGet, Entity: e,
		})
	}
	for _, r := range s.Relations {
		out = append(out, s.relationPatterns(r)...)
	}
	return out
}

func (s *Schema) relationPatterns(r *Relation) []Pattern {
	l := s.Layout()
	from, to := r.From.Prefix+"<id>", r.To.Prefix+"<id>"
	ix := s.Table.Index.Name
	cmd := func(k VerbKind, generic string, args ...string) string {
		if v := r.Verbs.Get(k); v != "" {
			return strings.Join(append([]string{"adjl", v}, args...), " ")
		}
		return strings.Join(append([]string{"adjl", generic, r.Name}, args...), " ")
	}
	reverseCmd := cmd(VerbReverse, "list", to)
	if r.Verbs.Reverse == "" {
		reverseCmd = fmt.Sprintf("adjl list %s %s --reverse", r.Name, to)
	}
	part := l.ReversePartition(r, to, 0)
	reverseKey := fmt.Sprintf("%s = %s AND begins_with(%s, %q)", l.IndexPK, part, l.IndexSK, r.From.Prefix)
	reverseNotes := "eventually consistent (global index): --consistent is refused"
	if r.Shards > 1 {
		reverseKey = fmt.Sprintf("%s = %s#k AND begins_with(%s, %q), for k = 0..%d", l.IndexPK, to, l.IndexSK, r.From.Prefix, r.Shards-1)
		reverseNotes = fmt.Sprintf("%d Queries in parallel, one per shard, merged in %s order behind one cursor; %s", r.Shards, l.IndexSK, reverseNotes)
	}
	reverseKey, reverseNotes, ix = s.orderedReverse(r, reverseKey, reverseNotes, ix)
	entityReverse := s.entityPattern(r, true, reverseKey, reverseNotes)
	entityReverse.Name, entityReverse.Command, entityReverse.Index = r.Name+": reverse list with entity", reverseCmd+" --with-entity", ix
	entityReverse.Kind, entityReverse.Relation = PatternReverseEntity, r
	forwardKey := fmt.Sprintf("%s = %s AND begins_with(%s, %q)", l.PK, from, l.SK, r.EdgeSKPrefix())
	entityForward := s.entityPattern(r, false, forwardKey, "")
	entityForward.Name, entityForward.Command = r.Name+": forward list with entity", cmd(VerbForward, "list", from)+" --with-entity"
	entityForward.Kind, entityForward.Relation = PatternForwardEntity, r
	out := []Pattern{
		{
			Name: r.Name + ": forward list", Command: cmd(VerbForward, "list", from), Operation: "Query",
			KeyCondition: forwardKey,
			Notes:        "base table: may be strongly consistent with --consistent",
			Kind:         PatternForward, Relation: r,
		},
		entityForward,
		{
			Name: r.Name + ": reverse list", Command: reverseCmd, Operation: "Query", Index: ix,
			KeyCondition: reverseKey, Notes: reverseNotes,
			Kind: PatternReverse, Relation: r,
		},
		entityReverse,
		{
			Name: r.Name + ": check", Command: cmd(VerbCheck, "check", from, to), Operation: "GetItem",
			KeyCondition: fmt.Sprintf("%s = %s, %s = %s", l.PK, from, l.SK, r.Edge+to),
			Notes:        "exit 0 if linked, 1 if not",
			Kind:         PatternCheck, Relation: r,
		},
		l.writePattern(r, cmd(VerbLink, "link", from, to), true, from, to),
		l.writePattern(r, cmd(VerbUnlink, "unlink", from, to), false, from, to),
	}
	for _, end := range []End{FromEnd, ToEnd} {
		name, n := r.Counter(end)
		if name == "" || n <= 1 {
			continue
		}
		key := from
		if end == ToEnd {
			key = to
		}
		out = append(out, Pattern{
			Name: r.Name + ": " + name + " (sharded counter)", Command: "adjl get " + key, Operation: "Query",
			KeyCondition: fmt.Sprintf("%s = %s AND begins_with(%s, %q)", l.PK, key, l.SK, CounterSKPrefix),
			Notes:        fmt.Sprintf("after the GetItem of the item: one Query reads its %d counter items and adjl shows their sum as %s", n, name),
			Kind:         PatternCounterGet, Relation: r, End: end,
		})
	}
	return out
}

// entityPattern describes a list with the side's own item (reverse: the
// to side's, through the index), as a list in ascending order reads it: one
// Query of the whole partition with a type filter when EntityGetReason
// allows it, else the plain list Query (listKey) plus a GetItem of the item.
// Notes say what --desc changes and end with tail.
func (s *Schema) entityPattern(r *Relation, reverse bool, listKey, tail string) Pattern {
	l := s.Layout()
	side, pkName, part := r.From, l.PK, r.From.Prefix+"<id>"
	if reverse {
		side, pkName, part = r.To, l.IndexPK, l.ReversePartition(r, r.To.Prefix+"<id>", 0)
	}
	key := side.Prefix + "<id>"
	p := Pattern{Operation: "Query"}
	if why := s.EntityGetReason(r, reverse, false); why != "" {
		p.KeyCondition = listKey
		queries := "the list Query"
		if reverse && r.Shards > 1 {
			queries = fmt.Sprintf("the %d shard Queries", r.Shards)
		}
		p.Notes = fmt.Sprintf("%s, plus GetItem %s = %s = %s for the item itself (%s)", queries, l.PK, l.SK, key, why)
	} else {
		p.KeyCondition = pkName + " = " + part
		if l.Type != "" {
			p.Filter = fmt.Sprintf("%s IN (%q, %q)", l.Type, side.Entity.Name, r.Name)
		}
		p.Notes = "the " + side.Prefix + " item and its edges in one Query per page (the partition holds nothing else, and the item sorts first)"
	}
	switch ascWhy, descWhy := s.EntityGetReason(r, reverse, false), s.EntityGetReason(r, reverse, true); {
	case ascWhy != "" && descWhy == "":
		p.Notes += "; with --desc the item sorts first: one Query with a filter on " + pkName + " alone"
	case ascWhy == "" && descWhy != "":
		p.Notes += "; with --desc the list Query plus the GetItem (" + descWhy + ")"
	}
	p.Notes += "; the item on the first page only"
	if tail != "" {
		p.Notes += "; " + tail
	}
	return p
}

// writePattern describes link (add) or unlink: the edge write plus, when the
// relation keeps counters, ADD on each side's item in the same transaction.
func (l Layout) writePattern(r *Relation, command string, add bool, from, to string) Pattern {
	name, op, cond, delta := r.Name+": link", "Put", "attribute_not_exists("+l.PK+")", "1"
	if !add {
		name, op, cond, delta = r.Name+": unlink", "Delete", "attribute_exists("+l.PK+")", "-1"
	}
	key := fmt.Sprintf("%s = %s, %s = %s", l.PK, from, l.SK, r.Edge+to)
	p := Pattern{Name: name, Command: command, KeyCondition: key, Kind: PatternLink, Relation: r}
	if !add {
		p.Kind = PatternUnlink
	}
	var counters []string
	for _, c := range []struct {
		end       End
		key, peer string
	}{{FromEnd, from, to}, {ToEnd, to, from}} {
		counter, n := r.Counter(c.end)
		switch {
		case counter == "":
		case n > 1:
			counters = append(counters, fmt.Sprintf("ADD %s %s on %s = %s, %s = %s (j = hash of %s mod %d)",
				counter, delta, l.PK, c.key, l.SK, CounterSKPrefix+counter+Delimiter+"j", c.peer, n))
		default:
			counters = append(counters, fmt.Sprintf("ADD %s %s on %s", counter, delta, c.key))
		}
	}
	if len(counters) == 0 {
		p.Operation = op + "Item"
		p.Notes = fmt.Sprintf("condition %s; the index materialises the reverse entry, no second write", cond)
		return p
	}
	p.Operation = "TransactWriteItems"
	p.Notes = fmt.Sprintf("%s edge with %s + %s; a repeated %s changes nothing", op, cond, strings.Join(counters, " + "), strings.TrimPrefix(name, r.Name+": "))
	return p
}
