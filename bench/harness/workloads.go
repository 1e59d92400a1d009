package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Workload names, as printed.
const (
	wlPut   = "conditional PutItem"
	wlQuery = "GSI Query (1 page, 100 items)"
)

// queryPartition is the hot GSI1 partition the query workload reads; it holds
// hotEdges edges so that a 100-item page is always full and has a next page.
// Other edges, spread over 40 partitions, make the table less trivial.
const (
	queryPartition = "TARGET#t999999"
	hotEdges       = 250
	pageSize       = 100
	putTable       = "bench_edges"
	queryTable     = "bench_query"
)

// serverRun is one (workload, target) measurement.
type serverRun struct {
	Workload string
	Target   string
	Stats    runStats
}

// serverBench holds one target's clients and tables across rounds.
type serverBench struct {
	t    *target
	mode string // clientRaw or clientSDK: which clients the workloads use
	tr   *http.Transport
	cs   []*dynamodb.Client // set-up, and the workloads in SDK mode
	raw  []*rawClient       // the workloads in raw mode
}

// newServerBench creates the workload tables on t, seeds the query table with
// the same items on every target (hotEdges + otherEdges), and opens one
// client of the given mode per concurrent caller (SDK clients always: they
// set the tables up).
func newServerBench(ctx context.Context, t *target, mode string, clients, otherEdges int) (*serverBench, error) {
	if mode != clientRaw && mode != clientSDK {
		return nil, fmt.Errorf("unknown client mode %q (want raw or sdk)", mode)
	}
	b := &serverBench{t: t, mode: mode, tr: newTransport(clients)}
	for range clients {
		hc := &http.Client{Transport: b.tr}
		b.cs = append(b.cs, newClient(t.Endpoint, hc))
		b.raw = append(b.raw, newRawClient(t.Endpoint, hc))
	}
	for _, name := range []string{putTable, queryTable} {
		if err := createEdgeTable(ctx, b.cs[0], name); err != nil {
			return nil, err
		}
	}
	seed := make([]map[string]types.AttributeValue, 0, hotEdges+otherEdges)
	for i := range hotEdges {
		seed = append(seed, edgeItem(50_000_000+i, 999999))
	}
	for i := range otherEdges {
		seed = append(seed, edgeItem(60_000_000+i, i%40))
	}
	if _, err := batchWrite(ctx, b.cs[0], queryTable, seed); err != nil {
		return nil, fmt.Errorf("seed query table: %w", err)
	}
	return b, nil
}

// Close drops the idle connections.
func (b *serverBench) Close() { b.tr.CloseIdleConnections() }

// round runs both workloads once (warm-up, then the measured run). Round r
// writes its own range of keys, so every conditional put succeeds.
func (b *serverBench) round(ctx context.Context, r int, warm, run budget) []serverRun {
	// (a) conditional PutItem of new edges: the server does the full work
	// (read for the condition, write, index update).
	put := func(base int) func(ctx context.Context, c, seq int) error {
		if b.mode == clientRaw {
			return func(ctx context.Context, c, seq int) error {
				return b.raw[c].PutEdge(ctx, base+seq, seq%1000)
			}
		}
		return func(ctx context.Context, c, seq int) error {
			_, err := b.cs[c].PutItem(ctx, &dynamodb.PutItemInput{
				TableName:           aws.String(putTable),
				Item:                edgeItem(base+seq, seq%1000),
				ConditionExpression: aws.String("attribute_not_exists(PK)"),
			})
			return err
		}
	}
	runConcurrent(ctx, len(b.cs), warm, put(r*1_000_000+900_000))
	putStats := b.measure(ctx, run, put(r*1_000_000))

	// (b) one-page GSI Query of a partition with more than a page of edges.
	query := func(ctx context.Context, c, _ int) error {
		out, err := b.cs[c].Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(queryTable),
			IndexName:                 aws.String(gsiName),
			KeyConditionExpression:    aws.String("GSI1PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: queryPartition}},
			Limit:                     aws.Int32(pageSize),
		})
		if err != nil {
			return err
		}
		if len(out.Items) != pageSize || out.LastEvaluatedKey == nil {
			return fmt.Errorf("query returned %d items (next page: %v), want a full page of %d with a next page",
				len(out.Items), out.LastEvaluatedKey != nil, pageSize)
		}
		return nil
	}
	if b.mode == clientRaw {
		query = func(ctx context.Context, c, _ int) error { return b.raw[c].QueryPage(ctx) }
	}
	runConcurrent(ctx, len(b.cs), warm, query)
	queryStats := b.measure(ctx, run, query)

	return []serverRun{
		{Workload: wlPut, Target: b.t.Name, Stats: putStats},
		{Workload: wlQuery, Target: b.t.Name, Stats: queryStats},
	}
}

// measure is runConcurrent plus the server's CPU time over the run.
func (b *serverBench) measure(ctx context.Context, run budget, op func(ctx context.Context, client, seq int) error) runStats {
	var cpu0 time.Duration
	if b.t.cpu != nil {
		cpu0 = b.t.cpu()
	}
	st := runConcurrent(ctx, len(b.cs), run, op)
	if b.t.cpu != nil {
		st.ServerCPU = b.t.cpu() - cpu0
	}
	return st
}
