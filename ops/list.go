package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// listAllLimit is the Limit of each Query of a streaming list: large enough
// for few round trips, small enough that N shards' read-ahead stays a few MB.
const listAllLimit = 1000

func (s *Store) startList(q ListQuery) (*plan, cursor, error) {
	p, err := s.plan(q)
	if err != nil {
		return nil, cursor{}, err
	}
	if q.Cursor != "" {
		q.From = "" // From starts the first page only
	}
	if err := s.refine(p, q); err != nil {
		return nil, cursor{}, err
	}
	var c cursor
	if q.Cursor != "" {
		if c, err = decodeCursor(q.Cursor, p.ident, len(p.inputs)); err != nil {
			return nil, c, err
		}
		if err := p.checkCursor(c); err != nil {
			return nil, c, err
		}
	}
	return p, c, nil
}

// List returns one page. It reads Limit+1 edges (more requests when filters
// or the 1 MB page limit cut a response short) and returns Limit of them;
// Next is built from the last item returned, and only when one more exists.
// A sharded reverse list queries every shard and merges them in index order.
// With WithEntity the first page (no cursor) carries the side's own item,
// from the Query or from one GetItem as the plan decides; later pages none.
func (s *Store) List(ctx context.Context, q ListQuery) (*Page, error) {
	p, c, err := s.startList(q)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	// The entity item, read first, takes a place of the Limit.
	extra := int32(1)
	if p.entityInQuery && q.Cursor == "" {
		extra = 2
	}
	limit = min(limit, math.MaxInt32-extra)
	m := s.newMerger(p, c, limit+extra)
	if err := m.fillAll(ctx); err != nil {
		return nil, s.listErr(p, err)
	}
	page := &Page{Items: []Item{}}
	for int32(len(page.Items)) < limit {
		i, err := m.head(ctx)
		if err != nil {
			return nil, s.listErr(p, err)
		}
		if i < 0 {
			break
		}
		page.Items = append(page.Items, m.pop(i))
	}
	i, err := m.head(ctx)
	if err != nil {
		return nil, s.listErr(p, err)
	}
	if i >= 0 {
		page.Next = m.cursor()
	}
	if q.WithEntity && q.Cursor == "" {
		page.Entity = m.entity
		if p.entityGet {
			if page.Entity, err = s.entityItem(ctx, p.key, q.Consistent); err != nil {
				return nil, s.listErr(p, err)
			}
		}
		if page.Entity, err = s.withCounters(ctx, p.key, page.Entity, q.Consistent); err != nil {
			return nil, s.listErr(p, err)
		}
	}
	return page, nil
}

// ListAll streams every edge to emit, page by page and (sharded) as a k-way
// merge, so memory stays bounded by a page per shard whatever the list's size.
// A cursor, if given, is where the stream starts.
func (s *Store) ListAll(ctx context.Context, q ListQuery, emit func(Item) error) (Item, error) {
	p, c, err := s.startList(q)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = listAllLimit
	}
	m := s.newMerger(p, c, limit)
	var stop func()
	if s.explaining() {
		err = m.fillAll(ctx)
	} else {
		stop = m.prefetch(ctx)
		defer stop()
	}
	for err == nil {
		var i int
		if i, err = m.head(ctx); err != nil || i < 0 {
			break
		}
		err = emit(m.pop(i))
	}
	if err != nil {
		return nil, s.listErr(p, err)
	}
	// As with List, the entity comes with the first page only: a stream
	// from a cursor returns none.
	if !q.WithEntity || q.Cursor != "" {
		return nil, nil
	}
	entity := m.entity
	if p.entityGet {
		if entity, err = s.entityItem(ctx, p.key, q.Consistent); err != nil {
			return nil, s.listErr(p, err)
		}
	}
	if entity, err = s.withCounters(ctx, p.key, entity, q.Consistent); err != nil {
		return nil, s.listErr(p, err)
	}
	return entity, nil
}

func (s *Store) listErr(p *plan, err error) error {
	return fmt.Errorf("list %s of %s: %w", p.rel.Name, p.key, err)
}

// entityItem reads the list side's own item from the base table; nil if absent.
func (s *Store) entityItem(ctx context.Context, key string, consistent bool) (Item, error) {
	in := &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(key, key)}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	out, err := s.getItem(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}
