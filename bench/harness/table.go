package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// gsiName is the inverted index every workload table has, as adjl creates it.
const gsiName = "GSI1"

// createEdgeTable creates adjl's table shape (PK/SK, GSI1 on GSI1PK/GSI1SK,
// projection ALL, on-demand) and waits until the table and index are ACTIVE.
func createEdgeTable(ctx context.Context, c *dynamodb.Client, name string) error {
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(h), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(r), KeyType: types.KeyTypeRange},
		}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{s("PK"), s("SK"), s("GSI1PK"), s("GSI1SK")},
		KeySchema:            key("PK", "SK"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String(gsiName),
			KeySchema:  key("GSI1PK", "GSI1SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("describe table %s: %w", name, err)
		}
		if tableActive(out.Table) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("table %s not ACTIVE after 30s", name)
}

func tableActive(t *types.TableDescription) bool {
	if t == nil || t.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range t.GlobalSecondaryIndexes {
		if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

// edgeItem is a follow edge as adjl writes it: the edge once, the index
// materialising the inverse. Keys are zero-padded so that their bytes (and so
// item sizes) are the same on every target.
func edgeItem(actor, target int) map[string]types.AttributeValue {
	a := padded("ACTOR#u", actor, 8)
	t := padded("TARGET#t", target, 6)
	return map[string]types.AttributeValue{
		"PK":     &types.AttributeValueMemberS{Value: a},
		"SK":     &types.AttributeValueMemberS{Value: t},
		"GSI1PK": &types.AttributeValueMemberS{Value: t},
		"GSI1SK": &types.AttributeValueMemberS{Value: a},
		"type":   &types.AttributeValueMemberS{Value: "follows"},
		"since":  &types.AttributeValueMemberS{Value: "2026-11-30T11:00:00Z"},
	}
}

// padded is prefix and n zero-padded to width digits, built in one
// allocation: the generator runs inside the timed ingest loop, so it should
// cost the engine's CPU as little as a loader reading a file would.
func padded(prefix string, n, width int) string {
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], int64(n), 10)
	var b strings.Builder
	b.Grow(len(prefix) + max(width, len(digits)))
	b.WriteString(prefix)
	for range width - len(digits) {
		b.WriteByte('0')
	}
	b.Write(digits)
	return b.String()
}

// batchWrite writes items in BatchWriteItem calls of 25 (DynamoDB's limit),
// re-sending UnprocessedItems, and returns how many calls it made.
func batchWrite(ctx context.Context, c *dynamodb.Client, table string, items []map[string]types.AttributeValue) (int, error) {
	calls := 0
	for len(items) > 0 {
		n := min(25, len(items))
		reqs := make([]types.WriteRequest, n)
		for i, it := range items[:n] {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		items = items[n:]
		pending := map[string][]types.WriteRequest{table: reqs}
		for tries := 0; len(pending) > 0; tries++ {
			if tries == 10 {
				return calls, errors.New("batch write: items still unprocessed after 10 tries")
			}
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			calls++
			if err != nil {
				return calls, fmt.Errorf("batch write: %w", err)
			}
			pending = out.UnprocessedItems
		}
	}
	return calls, nil
}

// writeBatches writes items 0..n-1, built by item, with BatchWriteItem calls
// of ingestBatch from `workers` goroutines that claim batches in turn. It
// stops at the first error (or when ctx ends) and returns that error.
func writeBatches(ctx context.Context, c *dynamodb.Client, table string, n, workers int, item func(i int) map[string]types.AttributeValue) error {
	var next atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			items := make([]map[string]types.AttributeValue, 0, ingestBatch)
			for {
				lo := int(next.Add(1)-1) * ingestBatch
				if lo >= n || ctx.Err() != nil {
					return
				}
				items = items[:0]
				for i := lo; i < min(lo+ingestBatch, n); i++ {
					items = append(items, item(i))
				}
				if _, err := batchWrite(ctx, c, table, items); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
