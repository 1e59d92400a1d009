package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// flatGrowthMB is how much the live heap may grow while a client pages
// through a million-item partition for the harness to call memory flat: a
// page or two in flight, nothing proportional to the partition.
const flatGrowthMB = 32

// pagingResult is what benchPaging measured.
type pagingResult struct {
	Items, Pages         int
	Elapsed              time.Duration
	LiveBefore, LivePeak uint64 // live heap (after a GC), bytes
	LiveAfter            uint64
	Samples              int
}

// benchPaging loads n edges into one GSI partition of an engine reached
// through hc, then pages through the partition with Query (1 MB pages). The
// engine runs in this process, so the live heap — measured after a forced
// GC every few pages — is the engine's memory plus a constant for the
// harness; what paging leaves behind shows up as growth.
func benchPaging(ctx context.Context, hc *http.Client, n int, stderr io.Writer) (pagingResult, error) {
	c := newInProcessClient(hc)
	const table = "bench_paging"
	if err := createEdgeTable(ctx, c, table); err != nil {
		return pagingResult{}, err
	}
	progress(stderr, "engine memory: loading %d items into one GSI partition", n)
	if err := loadPartition(ctx, c, table, n); err != nil {
		return pagingResult{}, err
	}
	res := pagingResult{LiveBefore: liveHeap()}
	res.LivePeak = res.LiveBefore
	progress(stderr, "engine memory: paging through the partition")
	start := time.Now()
	p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(gsiName),
		KeyConditionExpression:    aws.String("GSI1PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: queryPartition}},
	})
	var gcTime time.Duration
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return res, fmt.Errorf("query page %d: %w", res.Pages+1, err)
		}
		res.Items += len(out.Items)
		res.Pages++
		if res.Pages%10 == 0 {
			t0 := time.Now()
			res.LivePeak = max(res.LivePeak, liveHeap())
			res.Samples++
			gcTime += time.Since(t0)
		}
	}
	res.Elapsed = time.Since(start) - gcTime
	res.LiveAfter = liveHeap()
	res.LivePeak = max(res.LivePeak, res.LiveAfter)
	return res, nil
}

// liveHeap forces a collection and returns the bytes still reachable.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchEngineMemory checks the engine's target "memory stays flat while
// paging through a million-item partition", on the in-memory engine in this
// process.
func benchEngineMemory(ctx context.Context, cfg *config, rep *report, stderr io.Writer) {
	name := fmt.Sprintf("engine live-heap growth paging a %s-item partition", thousands(float64(cfg.memItems)))
	target := fmt.Sprintf("≤ %d MB", flatGrowthMB)
	if cfg.memItems <= 0 {
		rep.Checks = append(rep.Checks, skipped(areaEngine, "engine live-heap growth paging a 1,000,000-item partition", target, "quick mode (use -mem-items N)"))
		return
	}
	res, err := enginePaging(ctx, cfg.memItems, stderr)
	if err != nil {
		rep.Checks = append(rep.Checks, skipped(areaEngine, name, target, err.Error()))
		return
	}
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	growth := mb(res.LivePeak) - mb(res.LiveBefore)
	const sec = "Engine memory while paging one partition (in-memory engine in process, live heap after GC)"
	rep.Figures = append(rep.Figures, figure{Section: sec,
		Name:  fmt.Sprintf("Query GSI1, %s items, 1 MB pages", thousands(float64(cfg.memItems))),
		Value: fmt.Sprintf("%+.1f MB", growth),
		Detail: fmt.Sprintf("live heap %.1f MB before, %.1f MB peak (%d samples), %.1f MB after; %d items in %d pages, %s (%s items/s)",
			mb(res.LiveBefore), mb(res.LivePeak), res.Samples, mb(res.LiveAfter), res.Items, res.Pages, fmtDur(res.Elapsed),
			thousands(float64(res.Items)/res.Elapsed.Seconds()))})
	if res.Items != cfg.memItems {
		rep.Checks = append(rep.Checks, check{Area: areaEngine, Name: name, Target: target, Verdict: fail,
			Note: fmt.Sprintf("paging returned %d of %d items", res.Items, cfg.memItems)})
		return
	}
	rep.Checks = append(rep.Checks, atMost(areaEngine, name, growth, flatGrowthMB, "MB"))
}

// loadPartition writes n edges, all in GSI1 partition queryPartition, with
// BatchWriteItem from 4 goroutines.
func loadPartition(ctx context.Context, c *dynamodb.Client, table string, n int) error {
	err := writeBatches(ctx, c, table, n, 4, func(i int) map[string]types.AttributeValue { return edgeItem(i, 999999) })
	if err != nil {
		return fmt.Errorf("load partition: %w", err)
	}
	return ctx.Err()
}
