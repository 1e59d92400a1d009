package ops

import (
	"context"
	"fmt"

	"github.com/adjl/adjl/rowfile"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"
)

// Scans are for whole-table commands only (export, counters verify and
// repair, reshard): no read of one key's edges ever scans. They go through
// scanAPI, which API deliberately lacks.

// scanSegments runs a parallel Scan of in (segments at once, each paged to
// its end) and hands every page's items to each, which may be called from
// several goroutines at once.
func (s *Store) scanSegments(ctx context.Context, in *dynamodb.ScanInput, segments int, stats *counterStats, each func([]Item) error) error {
	scanner, ok := s.api.(scanAPI)
	if !ok && !s.explaining() {
		return fmt.Errorf("the backend client cannot Scan")
	}
	segments = max(segments, 1)
	g, ctx := errgroup.WithContext(ctx)
	for seg := range segments {
		g.Go(func() error {
			page := *in
			if segments > 1 {
				page.Segment, page.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(segments))
			}
			for {
				req := page // each request its own input: Explain keeps them
				out, err := s.scanPage(ctx, scanner, &req)
				stats.add(reqScan)
				if err != nil {
					return fmt.Errorf("scan %s: %w", s.schema.Table.Name, err)
				}
				if err := each(out.Items); err != nil {
					return err
				}
				if len(out.LastEvaluatedKey) == 0 {
					return nil
				}
				page.ExclusiveStartKey = out.LastEvaluatedKey
			}
		})
	}
	return g.Wait()
}

// itemsOf is the Scan filter that keeps the items of t: a relation's edges
// or an entity's items. The generic layout tells them by their type
// attribute; the inverted layout, which writes none, by their keys (a Scan
// may filter on key attributes, unlike a Query).
func (s *Store) itemsOf(t rowfile.Target) expression.ConditionBuilder {
	l := s.layout
	if l.Type != "" {
		return expression.Name(l.Type).Equal(expression.Value(t.Name()))
	}
	pk, sk := expression.NameNoDotSplit(l.PK), expression.NameNoDotSplit(l.SK)
	if rel := t.Relation; rel != nil {
		return pk.BeginsWith(rel.From.Prefix).And(sk.BeginsWith(rel.EdgeSKPrefix())).And(pk.NotEqual(sk))
	}
	return pk.BeginsWith(t.Entity.Prefix).And(pk.Equal(sk))
}
