package ops

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Direction of a list: forward reads the from side's base-table partition,
// reverse reads the to side's partition(s) of the index.
type Direction int

// Directions.
const (
	Forward Direction = iota
	Reverse
)

// DefaultLimit is the page size when ListQuery.Limit is 0.
const DefaultLimit = 25

// ListQuery is one list request.
type ListQuery struct {
	Relation  *schema.Relation
	Direction Direction
	Key       string // bare id or prefixed key of the side the list starts from
	Limit     int32  // page size; 0 means DefaultLimit
	Cursor    string // Page.Next of the previous page
	// Consistent asks for a strongly consistent read; refused in reverse,
	// which reads the global index.
	Consistent bool
	// WithEntity also returns the side's own item (profile, counters).
	WithEntity bool
	// Descending lists last first (ScanIndexForward false; a sharded list
	// merges in descending order). Cursors are bound to the direction.
	Descending bool
	// Ascending lists an ordered relation least first, against its
	// schema's order: desc (see listorder.go).
	Ascending bool
	// Where is a condition on the relation's sort attribute, sent as the
	// key condition; Filter, conditions on any edge attributes, sent as a
	// FilterExpression (the edges it drops are read and paid for).
	Where  *schema.Condition
	Filter []schema.Condition
	// OnRead, when set, is told after every Query how many items it read
	// (ScannedCount) and kept after the filter (Count).
	OnRead func(scanned, kept int32)
	// From starts the first page (no Cursor) at the other side's key From,
	// inclusive, in a list in key order (see list_refine.go); its cursor
	// continues the list as from any page.
	From string
}

// Page is one page of a list. Entity is set on the first page only.
type Page struct {
	Entity Item
	Items  []Item
	Next   string // "" on the last page
}

// plan is a validated ListQuery: the Queries to run (one per partition) and
// how to read what they return.
type plan struct {
	l          schema.Layout
	rel        *schema.Relation
	dir        Direction
	key        string // full key of the side the list starts from
	inputs     []*dynamodb.QueryInput
	keyAttrs   []string // attributes of the cursor and ExclusiveStartKey
	parts      []string // the partition each input reads (its key condition's value)
	ident      string
	withEntity bool
	desc       bool // items in descending key order
	// entityGet: the entity is read with GetItem after the plain list
	// Query, for schema.EntityGetReason's reasons (other items share the
	// partition, the item sorts after the edges, a sharded index, an index
	// projection other than ALL).
	entityGet bool
	// entityInQuery: the Query reads the whole partition with a type filter,
	// and the entity item, if any, is the first item it returns.
	entityInQuery bool
	// ord is the list's order and conditions (listorder.go).
	ord    *listOrder
	onRead func(scanned, kept int32)
}

func (s *Store) plan(q ListQuery) (*plan, error) {
	rel := q.Relation
	if rel == nil {
		return nil, &InputError{Msg: "list: no relation given"}
	}
	if q.Limit < 0 {
		return nil, &InputError{Msg: fmt.Sprintf("--limit must be positive, got %d", q.Limit)}
	}
	ord, err := listOrderOf(q)
	if err != nil {
		return nil, err
	}
	p := &plan{l: s.layout, rel: rel, dir: q.Direction, withEntity: q.WithEntity, ord: ord, onRead: q.OnRead}
	index := ""
	switch q.Direction {
	case Forward:
		if p.key, err = rel.FromKey(q.Key); err != nil {
			return nil, err
		}
		inQuery := q.WithEntity && ord.plain() && s.schema.EntityGetReason(rel, false, q.Descending) == ""
		p.entityGet, p.entityInQuery = q.WithEntity && !inQuery, inQuery
		in, err := s.listInput(ord, p.key, inQuery)
		if err != nil {
			return nil, err
		}
		if q.Consistent {
			in.ConsistentRead = aws.Bool(true)
		}
		p.inputs = []*dynamodb.QueryInput{in}
		p.parts = []string{p.key}
		p.keyAttrs = ord.cursorKeys(s.layout)
	case Reverse:
		if p.key, err = rel.ToKey(q.Key); err != nil {
			return nil, err
		}
		index = ord.indexName(s)
		if q.Consistent {
			return nil, &InputError{Msg: s.consistentRefusal(rel)}
		}
		parts := s.layout.ReversePartitions(rel, p.key)
		inQuery := q.WithEntity && ord.plain() && s.schema.EntityGetReason(rel, true, q.Descending) == ""
		p.entityGet, p.entityInQuery = q.WithEntity && !inQuery, inQuery
		for _, part := range parts {
			in, err := s.listInput(ord, part, inQuery)
			if err != nil {
				return nil, err
			}
			p.inputs = append(p.inputs, in)
		}
		p.parts = parts
		p.keyAttrs = ord.cursorKeys(s.layout)
	default:
		return nil, &InputError{Msg: fmt.Sprintf("unknown list direction %d", q.Direction)}
	}
	p.ident = ord.identity(queryIdentity(s.schema.Table.Name, index, rel.Name, q.Direction, p.key, q.WithEntity, shardsOf(rel)))
	if ord.desc {
		p.desc, p.ident = true, descendingIdentity(p.ident)
		for _, in := range p.inputs {
			in.ScanIndexForward = aws.Bool(false)
		}
	}
	return p, nil
}

// consistentRefusal explains why a reverse list cannot be consistent and
// names what can be read consistently instead: one pair, via the check verb.
func (s *Store) consistentRefusal(rel *schema.Relation) string {
	rev, check := rel.Verbs.Reverse, rel.Verbs.Check
	if rev == "" {
		rev = "list " + rel.Name + " --reverse"
	}
	if check == "" {
		check = "check " + rel.Name
	}
	return fmt.Sprintf("--consistent is not available for `%s`: it reads the global index %s, which only supports eventually consistent reads; drop --consistent, or check one pair consistently with `%s %s<id> %s<id> --consistent`",
		rev, s.indexName(), check, rel.From.Prefix, rel.To.Prefix)
}

// queryInput builds the Query of one partition. Forward: PK = key AND
// begins_with(SK, edge prefix); with the entity in the Query (the plan
// decides, never for a layout without a type attribute), PK = key and a
// filter on the type that keeps the edges and the entity item. Reverse:
// GSI1PK = partition AND begins_with(GSI1SK, from prefix); with the entity,
// the partition and the filter likewise.
func (s *Store) queryInput(dir Direction, rel *schema.Relation, part string, withEntity bool) (*dynamodb.QueryInput, error) {
	b := expression.NewBuilder()
	in := &dynamodb.QueryInput{TableName: aws.String(s.schema.Table.Name)}
	l := s.layout
	pkName, skName, skPrefix := l.PK, l.SK, rel.EdgeSKPrefix()
	if dir == Reverse {
		pkName, skName, skPrefix = l.IndexPK, l.IndexSK, rel.From.Prefix
		in.IndexName = aws.String(s.indexName())
	}
	keyCond := expression.Key(pkName).Equal(expression.Value(part))
	switch {
	case withEntity:
		// DynamoDB refuses a filter on the queried keys ("Filter Expression can
		// only contain non-primary key attributes"), so the edges and the
		// entity item are told apart by their type attribute; isEdge and
		// isEntity still check the keys of what comes back.
		entity := rel.From.Entity.Name
		if dir == Reverse {
			entity = rel.To.Entity.Name
		}
		b = b.WithKeyCondition(keyCond).WithFilter(expression.NameNoDotSplit(l.Type).In(
			expression.Value(rel.Name), expression.Value(entity)))
	default:
		b = b.WithKeyCondition(keyCond.And(expression.Key(skName).BeginsWith(skPrefix)))
	}
	ex, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	in.KeyConditionExpression = ex.KeyCondition()
	in.FilterExpression = ex.Filter()
	in.ExpressionAttributeNames = ex.Names()
	in.ExpressionAttributeValues = ex.Values()
	return in, nil
}

// isEdge reports whether an item returned by the plan's queries is an edge
// of its relation (partitions may hold the entity item and other relations'
// edges that share prefixes).
func (p *plan) isEdge(it Item) bool {
	pk, sk := sOf(it, p.l.PK), sOf(it, p.l.SK)
	if pk == sk {
		return false
	}
	if p.dir == Forward {
		return pk == p.key && strings.HasPrefix(sk, p.rel.EdgeSKPrefix())
	}
	return sk == p.rel.Edge+p.key && strings.HasPrefix(pk, p.rel.From.Prefix)
}

// isEntity reports whether it is the list side's own item.
func (p *plan) isEntity(it Item) bool {
	return sOf(it, p.l.PK) == p.key && sOf(it, p.l.SK) == p.key
}

// less orders items as the merged list shows them: index sort key, then the
// table keys (reverse); the sort key (forward); descending, the other way.
func (p *plan) less(a, b Item) bool {
	if p.desc {
		return p.ascending(b, a)
	}
	return p.ascending(a, b)
}

// ascending is the order DynamoDB returns a partition in with
// ScanIndexForward true.
func (p *plan) ascending(a, b Item) bool {
	if p.ord.multi() {
		if c := compareSortValues(a, b, p.rel.Sort.By); c != 0 {
			return c < 0
		}
	}
	if p.dir == Forward {
		if p.ord.forwardIndex() {
			if x, y := sOf(a, schema.ForwardSK), sOf(b, schema.ForwardSK); x != y {
				return x < y
			}
		}
		return sOf(a, p.l.SK) < sOf(b, p.l.SK)
	}
	for _, n := range []string{p.l.IndexSK, p.l.PK, p.l.SK} {
		if x, y := sOf(a, n), sOf(b, n); x != y {
			return x < y
		}
	}
	return false
}

func (p *plan) keysOf(it Item) map[string]string {
	m := make(map[string]string, len(p.keyAttrs))
	for _, n := range p.keyAttrs {
		m[n] = sOf(it, n)
		if x, ok := it[n].(*types.AttributeValueMemberN); ok && p.ord.numeric(n) {
			m[n] = x.Value
		}
	}
	return m
}

// startKey is the ExclusiveStartKey of a position: strings, but for a
// number sort attribute in the multi-attribute index.
func (p *plan) startKey(m map[string]string) Item {
	if len(m) == 0 {
		return nil
	}
	it := make(Item, len(m))
	for n, v := range m {
		it[n] = str(v)
		if p.ord.numeric(n) {
			it[n] = &types.AttributeValueMemberN{Value: v}
		}
	}
	return it
}

// listInput is the Query of one partition: the one adjl always sent for a
// plain list, else the ordered one (listorder.go).
func (s *Store) listInput(o *listOrder, part string, withEntity bool) (*dynamodb.QueryInput, error) {
	if o.plain() {
		return s.queryInput(o.dir, o.rel, part, withEntity)
	}
	return s.orderedInput(o, part)
}
