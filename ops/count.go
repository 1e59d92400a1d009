package ops

import (
	"context"
	"fmt"
	"sync"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Count is the number of edges a list would return: the list's Queries with
// Select COUNT, every page, every shard (in parallel, at most
// Options.Parallel at once). Nothing but the count comes back, so it costs
// the reads of the edges and none of the transfer. Cursor, Limit and
// WithEntity are ignored; Consistent is honoured (forward only).
func (s *Store) Count(ctx context.Context, q ListQuery) (int64, error) {
	q.Cursor, q.Limit, q.WithEntity = "", 0, false
	p, _, err := s.startList(q)
	if err != nil {
		return 0, err
	}
	n, err := s.countInputs(ctx, p.inputs, nil)
	if err != nil {
		return 0, s.listErr(p, err)
	}
	return n, nil
}

// countInputs sums Select COUNT over the given Queries, paging each one;
// queries, when not nil, is increased by the requests sent.
func (s *Store) countInputs(ctx context.Context, ins []*dynamodb.QueryInput, queries *counterStats) (int64, error) {
	var mu sync.Mutex
	var total int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(s.opt.Parallel)
	for _, in := range ins {
		g.Go(func() error {
			n, err := s.countQuery(ctx, in, queries)
			mu.Lock()
			total += n
			mu.Unlock()
			return err
		})
	}
	return total, g.Wait()
}

// countQuery pages one Query with Select COUNT.
func (s *Store) countQuery(ctx context.Context, in *dynamodb.QueryInput, stats *counterStats) (int64, error) {
	page := *in
	page.Select = types.SelectCount
	var n int64
	for {
		req := page // each request its own input: Explain keeps them
		out, err := s.query(ctx, &req)
		stats.add(reqQuery)
		if err != nil {
			return n, err
		}
		n += int64(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// edgeCount counts the edges of key on one side of rel: forward, its
// base-table partition (strongly consistent); reverse, every index shard
// of it. The key conditions are those of the lists; schema validation
// keeps other items out of them (no two relations share an edge or role
// prefix in a partition).
func (s *Store) edgeCount(ctx context.Context, rel *schema.Relation, end schema.End, key string, stats *counterStats) (int64, error) {
	var ins []*dynamodb.QueryInput
	if end == schema.FromEnd {
		in, err := s.queryInput(Forward, rel, key, false)
		if err != nil {
			return 0, err
		}
		in.ConsistentRead = aws.Bool(true)
		ins = append(ins, in)
	} else {
		for _, part := range s.layout.ReversePartitions(rel, key) {
			in, err := s.queryInput(Reverse, rel, part, false)
			if err != nil {
				return 0, err
			}
			ins = append(ins, in)
		}
	}
	var n int64
	for _, in := range ins {
		c, err := s.countQuery(ctx, in, stats)
		if err != nil {
			return 0, fmt.Errorf("count edges of %s: %w", key, err)
		}
		n += c
	}
	return n, nil
}
