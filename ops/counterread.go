package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// settledCount counts the edges of t; reverse counts are repeated as
// opt.settle asks.
func (s *Store) settledCount(ctx context.Context, t counterTarget, opt recountOptions) (int64, error) {
	n, err := s.edgeCount(ctx, t.rel, t.end, t.key, opt.stats)
	if err != nil || opt.settle <= 0 || t.end == schema.FromEnd {
		return n, err
	}
	for range 10 {
		if err := sleepCtx(ctx, opt.settle); err != nil {
			return 0, err
		}
		again, err := s.edgeCount(ctx, t.rel, t.end, t.key, opt.stats)
		if err != nil || again == n {
			return again, err
		}
		n = again
	}
	return n, nil
}

// readCounterItems reads every item holding a part of the targets'
// counters with strongly consistent BatchGetItems of at most 100 keys;
// when, if set, says for Explain in which case they are sent.
func (s *Store) readCounterItems(ctx context.Context, targets []counterTarget, opt recountOptions, when string) (map[[2]string]Item, error) {
	var keys [][2]string
	seen := map[[2]string]bool{}
	names := []string{}
	for _, t := range targets {
		for _, k := range t.parts() {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if !slices.Contains(names, t.name) {
			names = append(names, t.name)
		}
	}
	var ex expression.Expression
	if !opt.exclusive { // exclusive: whole items, to be put back
		proj := expression.NamesList(expression.NameNoDotSplit(s.layout.PK), expression.NameNoDotSplit(s.layout.SK))
		for _, n := range names {
			proj = proj.AddNames(expression.NameNoDotSplit(n))
			if s.layout.CountsChanges() {
				proj = proj.AddNames(expression.NameNoDotSplit(schema.Changes(n)))
			}
		}
		var err error
		if ex, err = expression.NewBuilder().WithProjection(proj).Build(); err != nil {
			return nil, fmt.Errorf("build counter read: %w", err)
		}
	}
	items := make(map[[2]string]Item, len(keys))
	if err := s.batchGetAll(ctx, "read counters", keys, ex, items, opt, when); err != nil {
		return nil, err
	}
	return items, nil
}

// batchGetAll reads the items keyed (PK, SK) by keys into into, strongly
// consistent, 100 to a BatchGetItem (DynamoDB's limit); what names the read
// in errors, and when (if set) says, under --explain, when the reads are
// sent.
func (s *Store) batchGetAll(ctx context.Context, what string, keys [][2]string, ex expression.Expression, into map[[2]string]Item, opt recountOptions, when string) error {
	for i := 0; i < len(keys); i += 100 {
		var req []map[string]types.AttributeValue
		for _, k := range keys[i:min(i+100, len(keys))] {
			req = append(req, s.keyOf(k[0], k[1]))
		}
		if err := s.batchGetOnce(ctx, what, req, ex, into, opt, when); err != nil {
			return err
		}
	}
	return nil
}

// batchGetOnce sends one BatchGetItem of at most 100 keys, retrying
// UnprocessedKeys with backoff.
func (s *Store) batchGetOnce(ctx context.Context, what string, keys []map[string]types.AttributeValue, ex expression.Expression, into map[[2]string]Item, opt recountOptions, when string) error {
	table := s.schema.Table.Name
	r := newBackoff(opt.giveUp)
	for len(keys) > 0 {
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
			Keys: keys, ConsistentRead: aws.Bool(true),
			ProjectionExpression: ex.Projection(), ExpressionAttributeNames: ex.Names(),
		}}}
		if when != "" && s.explaining() {
			s.explainWhen("BatchGetItem", in, when)
			return nil
		}
		out, err := s.batchGetItem(ctx, in)
		opt.stats.add(reqBatchGet)
		if err != nil {
			if retryable(err) {
				if werr := r.wait(ctx, err); werr != nil {
					return fmt.Errorf("%s: %w", what, werr)
				}
				continue
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		for _, it := range out.Responses[table] {
			into[[2]string{sOf(it, s.layout.PK), sOf(it, s.layout.SK)}] = it
		}
		left := out.UnprocessedKeys[table].Keys
		if len(left) < len(keys) {
			r.progressed()
		}
		keys = left
		if len(keys) > 0 {
			if err := r.wait(ctx, &ThrottledError{Err: errors.New("BatchGetItem kept returning UnprocessedKeys")}); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
	}
	return nil
}
