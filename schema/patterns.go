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
	var out []Pattern
	for _, e := range s.Entities {
		key := e.Prefix + "<id>"
		out = append(out, Pattern{
			Name:         e.Name + ": get",
			Command:      "adjl get " + key,
			Operation:    "GetItem",
			KeyCondition: fmt.Sprintf("PK = %s, SK = %s", key, key),
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
	typeFilter := func(sd Side) string {
		owner := sd.Entity.Name
		return fmt.Sprintf("type IN (%q, %q)", owner, r.Name)
	}
	reverseKey := fmt.Sprintf("GSI1PK = %s AND begins_with(GSI1SK, %q)", to, r.From.Prefix)
	reverseNotes := "eventually consistent (global index): --consistent is refused"
	if r.Shards > 1 {
		reverseKey = fmt.Sprintf("GSI1PK = %s#k AND begins_with(GSI1SK, %q), for k = 0..%d", to, r.From.Prefix, r.Shards-1)
		reverseNotes = fmt.Sprintf("%d Queries in parallel, one per shard, merged in GSI1SK order behind one cursor; %s", r.Shards, reverseNotes)
	}
	entityReverse := Pattern{
		Name: r.Name + ": reverse list with entity", Command: reverseCmd + " --with-entity", Operation: "Query", Index: ix,
		KeyCondition: "GSI1PK = " + to, Filter: typeFilter(r.To),
		Notes: "the " + r.To.Prefix + " item and its edges in one read; " + reverseNotes,
		Kind:  PatternReverseEntity, Relation: r,
	}
	switch {
	case r.Shards > 1:
		// No shard partition holds the item itself: it is one GetItem more.
		entityReverse.KeyCondition, entityReverse.Filter = reverseKey, ""
		entityReverse.Notes = fmt.Sprintf("the %d shard Queries, plus GetItem PK = SK = %s for the item itself; %s", r.Shards, to, reverseNotes)
	case s.Table.Index.Projection != "" && s.Table.Index.Projection != ProjectionAll:
		// The index holds only some of the item's attributes: the item
		// itself is read from the table.
		entityReverse.KeyCondition, entityReverse.Filter = reverseKey, ""
		entityReverse.Notes = fmt.Sprintf("the Query, plus GetItem PK = SK = %s for the whole item (the index projects %s); %s", to, s.Table.Index.Projection, reverseNotes)
	}
	out := []Pattern{
		{
			Name: r.Name + ": forward list", Command: cmd(VerbForward, "list", from), Operation: "Query",
			KeyCondition: fmt.Sprintf("PK = %s AND begins_with(SK, %q)", from, r.EdgeSKPrefix()),
			Notes:        "base table: may be strongly consistent with --consistent",
			Kind:         PatternForward, Relation: r,
		},
		{
			Name: r.Name + ": forward list with entity", Command: cmd(VerbForward, "list", from) + " --with-entity", Operation: "Query",
			KeyCondition: "PK = " + from, Filter: typeFilter(r.From),
			Notes: "the " + r.From.Prefix + " item and its edges in one read; the filter drops other relations' edges (key attributes cannot be filtered)",
			Kind:  PatternForwardEntity, Relation: r,
		},
		{
			Name: r.Name + ": reverse list", Command: reverseCmd, Operation: "Query", Index: ix,
			KeyCondition: reverseKey, Notes: reverseNotes,
			Kind: PatternReverse, Relation: r,
		},
		entityReverse,
		{
			Name: r.Name + ": check", Command: cmd(VerbCheck, "check", from, to), Operation: "GetItem",
			KeyCondition: fmt.Sprintf("PK = %s, SK = %s", from, r.Edge+to),
			Notes:        "exit 0 if linked, 1 if not",
			Kind:         PatternCheck, Relation: r,
		},
		r.writePattern(cmd(VerbLink, "link", from, to), true, from, to),
		r.writePattern(cmd(VerbUnlink, "unlink", from, to), false, from, to),
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
			KeyCondition: fmt.Sprintf("PK = %s AND begins_with(SK, %q)", key, CounterSKPrefix),
			Notes:        fmt.Sprintf("after the GetItem of the item: one Query reads its %d counter items and adjl shows their sum as %s", n, name),
			Kind:         PatternCounterGet, Relation: r, End: end,
		})
	}
	return out
}

// writePattern describes link (add) or unlink: the edge write plus, when the
// relation keeps counters, ADD on each side's item in the same transaction.
func (r *Relation) writePattern(command string, add bool, from, to string) Pattern {
	name, op, cond, delta := r.Name+": link", "Put", "attribute_not_exists(PK)", "1"
	if !add {
		name, op, cond, delta = r.Name+": unlink", "Delete", "attribute_exists(PK)", "-1"
	}
	key := fmt.Sprintf("PK = %s, SK = %s", from, r.Edge+to)
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
			counters = append(counters, fmt.Sprintf("ADD %s %s on PK = %s, SK = %s (j = hash of %s mod %d)",
				counter, delta, c.key, CounterSKPrefix+counter+Delimiter+"j", c.peer, n))
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
