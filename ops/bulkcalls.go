package ops

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The wrappers of the batch operations bulk commands send (import, export,
// counters): through calls.go's funnel, like every other request.

func (s *Store) batchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "BatchWriteItem", API.BatchWriteItem, in, func(out *dynamodb.BatchWriteItemOutput) []*types.ConsumedCapacity {
		return ccList(out.ConsumedCapacity)
	})
}

func (s *Store) batchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "BatchGetItem", API.BatchGetItem, in, func(out *dynamodb.BatchGetItemOutput) []*types.ConsumedCapacity {
		return ccList(out.ConsumedCapacity)
	})
}

func ccList(cc []types.ConsumedCapacity) []*types.ConsumedCapacity {
	out := make([]*types.ConsumedCapacity, len(cc))
	for i := range cc {
		out[i] = &cc[i]
	}
	return out
}

// writeAll sends one BatchWriteItem of reqs, sending UnprocessedItems again
// with backoff until none is left or giveUp passes without progress. The
// error of a failed request is prefixed with what, unless what is empty.
func (s *Store) writeAll(ctx context.Context, reqs []types.WriteRequest, giveUp time.Duration, stats *counterStats, what string) error {
	table := s.schema.Table.Name
	r := newBackoff(giveUp)
	failed := func(err error) error {
		if what == "" {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	for len(reqs) > 0 {
		out, err := s.batchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		stats.add(reqBatchWrite)
		if err != nil {
			if !retryable(err) {
				return failed(err)
			}
			if werr := r.wait(ctx, err); werr != nil {
				return failed(werr)
			}
			continue
		}
		left := out.UnprocessedItems[table]
		if len(left) < len(reqs) {
			r.progressed()
		}
		reqs = left
		if len(reqs) > 0 {
			if err := r.wait(ctx, &ThrottledError{Err: fmt.Errorf("BatchWriteItem kept returning %d unprocessed items", len(reqs))}); err != nil {
				return err
			}
		}
	}
	return nil
}

// backoff paces the retries of one bulk request: exponential backoff with
// full jitter (a random wait between 0 and min(cap, base·2^n)), as AWS
// recommends for BatchWriteItem's UnprocessedItems, and a deadline measured
// from the last progress, so a slow but moving import never gives up and a
// stuck one ends with the last error.
type backoff struct {
	base, cap time.Duration
	giveUp    time.Duration // without progress
	attempt   int
	since     time.Time
	sleep     func(ctx context.Context, d time.Duration) error
}

func newBackoff(giveUp time.Duration) *backoff {
	if giveUp <= 0 {
		giveUp = 2 * time.Minute
	}
	return &backoff{base: 20 * time.Millisecond, cap: 5 * time.Second, giveUp: giveUp, since: time.Now(), sleep: sleepCtx}
}

// progressed resets the backoff after a request that did some work.
func (r *backoff) progressed() { r.attempt, r.since = 0, time.Now() }

// wait sleeps before the next attempt; it returns last (or the context's
// error) when the deadline has passed.
func (r *backoff) wait(ctx context.Context, last error) error {
	if time.Since(r.since) > r.giveUp {
		return last
	}
	d := min(r.cap, r.base<<min(r.attempt, 20))
	r.attempt++
	return r.sleep(ctx, time.Duration(rand.Int64N(int64(d)+1)))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryable reports errors a bulk request is sent again for: throttling
// still there after the SDK's own retries, a conflicting transaction, and
// server errors (5xx) - except the embedded engine's storage failure,
// which lasts until the data file is reopened.
func retryable(err error) bool {
	var stuck *StorageFailureError
	if errors.As(err, &stuck) {
		return false
	}
	var thr *ThrottledError
	if errors.As(err, &thr) {
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if c := aws.ToString(r.Code); c == "TransactionConflict" || c == "ThrottlingError" || c == "ProvisionedThroughputExceeded" {
				return true
			}
		}
	}
	switch errorCode(err) {
	case "TransactionConflictException", "TransactionInProgressException", "InternalServerError",
		"ServiceUnavailable", "InternalFailure":
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() >= 500
}

// counterStats counts the requests of a bulk operation, for its report;
// a nil *counterStats counts nothing.
type counterStats struct{ n [len(reqNames)]atomic.Int64 }

// reqKind is an operation counterStats counts.
type reqKind int

var reqNames = [...]string{"Query", "BatchGetItem", "TransactWriteItems", "Scan", "BatchWriteItem", "UpdateItem"}

func (c *counterStats) add(k reqKind) {
	if c != nil {
		c.n[k].Add(1)
	}
}

func (c *counterStats) get(k reqKind) int64 { return c.n[k].Load() }

// snapshot is the requests sent, by operation.
func (c *counterStats) snapshot() map[string]int64 {
	out := map[string]int64{}
	for k, name := range reqNames {
		if v := c.n[k].Load(); v > 0 {
			out[name] = v
		}
	}
	return out
}

const (
	reqQuery reqKind = iota
	reqBatchGet
	reqTransact
	reqScan
	reqBatchWrite
	reqUpdate
)
