package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// verifyAttempts bounds how often the after-count is repeated while it
// disagrees: the index is updated asynchronously on DynamoDB, so a count
// right after the move may still see a few edges in their old partitions.
const verifyAttempts = 6

// scanPage sends one Scan page (reshard and Sample only; see scanAPI).
func (s *Store) scanPage(ctx context.Context, api scanAPI, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("Scan", in)
		return &dynamodb.ScanOutput{}, nil
	}
	out, err := api.Scan(ctx, in)
	if err != nil {
		s.reportAnswered("Scan", err)
		return nil, s.classify(err)
	}
	s.report("Scan", out.ConsumedCapacity)
	return out, nil
}

// partitions lists the index partitions of toKey under the given layouts,
// each once.
func (r *resharder) partitions(toKey string, layouts []int) []string {
	var out []string
	for _, n := range layouts {
		for _, p := range r.s.layout.ReversePartitions(r.layout(n), toKey) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// countPartitions counts the relation's edges in the index partitions of
// every to-key the Scan found, under the given layouts: one Query with
// Select COUNT per partition (paged), at most Options.Parallel at once.
func (r *resharder) countPartitions(ctx context.Context, layouts []int) (map[string]int, error) {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.tableCount)) {
		parts = append(parts, r.partitions(k, layouts)...)
	}
	counts := make(map[string]int, len(parts))
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(r.s.opt.Parallel)
	for _, p := range parts {
		g.Go(func() error {
			n, err := r.countPartition(ctx, p)
			if err != nil {
				return err
			}
			mu.Lock()
			counts[p] = n
			mu.Unlock()
			return nil
		})
	}
	return counts, g.Wait()
}

// countPartition counts the relation's edges in one index partition.
func (r *resharder) countPartition(ctx context.Context, part string) (int, error) {
	in, err := r.s.queryInput(Reverse, r.rel, part, false)
	if err != nil {
		return 0, err
	}
	in.Select = types.SelectCount
	n := 0
	for {
		page := *in
		out, err := r.s.query(ctx, &page)
		if err != nil {
			return 0, fmt.Errorf("count edges in %s: %w", part, err)
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// countKeys sums countPartitions by to-key.
func (r *resharder) countKeys(ctx context.Context, layouts []int) (map[string]int, error) {
	parts, err := r.countPartitions(ctx, layouts)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(r.tableCount))
	for k := range r.tableCount {
		for _, p := range r.partitions(k, layouts) {
			out[k] += parts[p]
		}
	}
	return out, nil
}

// verify counts every partition after the move: each partition of the new
// layout must hold exactly the edges the counting Scan assigned to it (less
// those unlinked meanwhile), and partitions only the old layouts use must be
// empty. It returns the per-key counts in the new layout.
func (r *resharder) verify(ctx context.Context) (map[string]int, error) {
	var problems []string
	for attempt := range verifyAttempts {
		if attempt > 0 {
			select {
			case <-r.s.sleep(time.Duration(100<<attempt) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		all, err := r.countPartitions(ctx, r.layouts)
		if err != nil {
			return nil, err
		}
		problems = problems[:0]
		after := map[string]int{}
		for _, k := range slices.Sorted(maps.Keys(r.tableCount)) {
			newParts := r.partitions(k, []int{r.opt.To})
			for _, p := range r.partitions(k, r.layouts) {
				want, isNew := r.expected[p], slices.Contains(newParts, p)
				if isNew {
					after[k] += all[p]
				} else {
					want = 0
				}
				if got := all[p]; got != want && !(isNew && got <= want && got >= want-r.rep.Vanished) {
					problems = append(problems, fmt.Sprintf("%s holds %d edges, want %d", p, got, want))
				}
			}
		}
		if len(problems) == 0 || r.s.explaining() {
			return after, nil
		}
	}
	if len(problems) > 5 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return nil, &ConflictError{Msg: fmt.Sprintf("reshard of %s not verified: %s; the recorded shard count was not changed; rerun `adjl reshard %s --to %d --yes` (with no other writers)",
		r.rel.Name, strings.Join(problems, ", "), r.rel.Name, r.opt.To)}
}
