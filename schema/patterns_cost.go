package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// PatternKind names an access pattern by what it does.
type PatternKind string

// Pattern kinds.
const (
	PatternGet           PatternKind = "get"            // an entity item (GetItem)
	PatternCounterGet    PatternKind = "counter-get"    // an item with sharded counters (GetItem, then one Query)
	PatternForward       PatternKind = "forward"        // list from the from side
	PatternForwardEntity PatternKind = "forward-entity" // ... with the from side's item
	PatternReverse       PatternKind = "reverse"        // list from the to side, through the index
	PatternReverseEntity PatternKind = "reverse-entity" // ... with the to side's item
	PatternCheck         PatternKind = "check"
	PatternLink          PatternKind = "link"
	PatternUnlink        PatternKind = "unlink"
)

// Request is one kind of request a pattern sends.
type Request struct {
	Operation string // GetItem, Query, PutItem, DeleteItem or TransactWriteItems
	Index     string // "" for the table
	Count     int    // how many are sent (one per shard for a sharded read)
	Items     int    // TransactWriteItems: the items it writes
}

func (r Request) String() string {
	s := r.Operation
	if r.Index != "" {
		s += " " + r.Index
	}
	if r.Items > 0 {
		s += fmt.Sprintf(" (%d items)", r.Items)
	}
	if r.Count > 1 {
		s = fmt.Sprintf("%d × %s", r.Count, s)
	}
	return s
}

// Requests are the requests one run of p sends - the first page of a list,
// in ascending order - in the order they are sent (a sharded read's Queries
// run in parallel).
func (s *Schema) Requests(p Pattern) []Request {
	ix := s.Table.Index.Name
	if ix == "" {
		ix = DefaultIndexName
	}
	one := func(op, index string) Request { return Request{Operation: op, Index: index, Count: 1} }
	// counters is the Query that sums the sharded counters kept on items
	// under prefix, when there are any.
	counters := func(prefix string) []Request {
		if len(s.ShardedCounters(prefix)) == 0 {
			return nil
		}
		return []Request{one("Query", "")}
	}
	r := p.Relation
	switch p.Kind {
	case PatternGet:
		return append([]Request{one("GetItem", "")}, counters(p.Entity.Prefix)...)
	case PatternCounterGet:
		return []Request{one("GetItem", ""), one("Query", "")}
	case PatternForward:
		return []Request{one("Query", "")}
	case PatternForwardEntity:
		out := []Request{one("Query", "")}
		if s.EntityGetReason(r, false, false) != "" {
			out = append(out, one("GetItem", ""))
		}
		return append(out, counters(r.From.Prefix)...)
	case PatternReverse:
		return []Request{{Operation: "Query", Index: ix, Count: max(r.Shards, 1)}}
	case PatternReverseEntity:
		out := []Request{{Operation: "Query", Index: ix, Count: max(r.Shards, 1)}}
		if s.EntityGetReason(r, true, false) != "" {
			out = append(out, one("GetItem", ""))
		}
		return append(out, counters(r.To.Prefix)...)
	case PatternCheck:
		return []Request{one("GetItem", "")}
	case PatternLink, PatternUnlink:
		items := 1
		for _, end := range []End{FromEnd, ToEnd} {
			if name, _ := r.Counter(end); name != "" {
				items++
			}
		}
		switch {
		case items > 1:
			return []Request{{Operation: "TransactWriteItems", Count: 1, Items: items}}
		case p.Kind == PatternLink:
			return []Request{one("PutItem", "")}
		default:
			return []Request{one("DeleteItem", "")}
		}
	}
	return nil
}

// Capacity is what a pattern's requests consume on DynamoDB when the items
// are small - each read returning at most 4 KB, each item written at most
// 1 KB - and reads are eventually consistent (adjl's default):
// "one read request unit represents ... two eventually consistent reads
// for an item up to 4 KB", "one write request unit represents one write for
// an item up to 1 KB", and transactions "two ... for each item".
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
type Capacity struct {
	ReadUnits  float64 // read units, table and index
	WriteUnits float64 // write units of the table; index writes come on top
}

// CapacityOf is the capacity of requests with small items.
func CapacityOf(reqs []Request) Capacity {
	var c Capacity
	for _, r := range reqs {
		n := float64(max(r.Count, 1))
		switch r.Operation {
		case "GetItem", "Query":
			c.ReadUnits += 0.5 * n
		case "PutItem", "DeleteItem", "UpdateItem":
			c.WriteUnits += n
		case "TransactWriteItems":
			c.WriteUnits += 2 * float64(max(r.Items, 1)) * n
		}
	}
	return c
}

// String says the capacity the way schema show prints it.
func (c Capacity) String() string {
	var parts []string
	if c.ReadUnits > 0 {
		parts = append(parts, units(c.ReadUnits)+" RCU")
	}
	if c.WriteUnits > 0 {
		parts = append(parts, units(c.WriteUnits)+" WCU + index writes")
	}
	return strings.Join(parts, ", ")
}

func units(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// RequestsText lists requests for schema show: "GetItem, Query".
func RequestsText(reqs []Request) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}
