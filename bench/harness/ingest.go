package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	bolt "go.etcd.io/bbolt"
)

// ingestBatch is DynamoDB's BatchWriteItem limit, used by adjl import and by
// the raw-store baseline alike.
const ingestBatch = 25

// ingestResult is one bulk-ingest measurement.
type ingestResult struct {
	Items   int
	Elapsed time.Duration
	// ScanNote reports a paged Scan that did not find every item (an engine
	// paging bug, not an ingest loss, when ItemCount is right).
	ScanNote string
}

// PerSec is items written per second.
func (r ingestResult) PerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Items) / r.Elapsed.Seconds()
}

// ingestEdges writes n edge items (spread over partitions and GSI partitions
// like a real follow graph) through BatchWriteItem calls of 25, from
// `workers` goroutines, into a fresh table with GSI1. hc is the engine's
// in-process client; no socket is involved. finish runs inside the timed
// region after the last batch (closing a data-file engine: its checkpoint
// writes the write-ahead log into the bbolt file, and that work counts);
// reopen then gives a client for checking what was written.
func ingestEdges(ctx context.Context, hc *http.Client, n, workers int, finish func() error, reopen func() (*http.Client, error)) (ingestResult, error) {
	c := newInProcessClient(hc)
	const table = "ingest"
	if err := createEdgeTable(ctx, c, table); err != nil {
		return ingestResult{}, err
	}
	start := time.Now()
	err := writeBatches(ctx, c, table, n, workers, func(i int) map[string]types.AttributeValue { return edgeItem(i, i%10_000) })
	if err == nil {
		err = finish()
	}
	res := ingestResult{Items: n, Elapsed: time.Since(start)}
	if err != nil {
		return res, err
	}
	if hc, err = reopen(); err != nil {
		return res, err
	}
	return res, checkIngest(ctx, newInProcessClient(hc), table, &res)
}

// checkIngest runs outside the timed region: a rate means nothing if items
// went missing. The engine's own count must match; a paged Scan must find
// them all too.
func checkIngest(ctx context.Context, c *dynamodb.Client, table string, res *ingestResult) error {
	n := res.Items
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("describe ingest table: %w", err)
	}
	if got := aws.ToInt64(d.Table.ItemCount); got != int64(n) {
		return fmt.Errorf("ingest wrote %d items but the table's ItemCount is %d", n, got)
	}
	got, pages, err := countItems(ctx, c, table)
	if err != nil {
		return err
	}
	if got != n {
		res.ScanNote = fmt.Sprintf("ItemCount is %d but a paged Scan (Select=COUNT, %d pages) counts %d items", n, pages, got)
	}
	return nil
}

// countItems counts a table's items with paged Select=COUNT Scans.
func countItems(ctx context.Context, c *dynamodb.Client, table string) (n, pages int, err error) {
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return n, pages, fmt.Errorf("count items: %w", err)
		}
		n += int(out.Count)
		pages++
	}
	return n, pages, nil
}

// rawBboltIngest is the baseline for ingest: the same n items, the same
// batches of 25 and the engine's freelist type, written straight into bbolt with
// no protocol, parsing, validation or expression work: per item one record
// in the table bucket (key PK,SK, value the item in the engine's binary
// encoding) and one in the index bucket (key GSI1PK,GSI1SK,PK,SK, empty
// value), exactly the records the engine writes (local/writer.go). One bbolt
// transaction per batch, as one BatchWriteItem is one transaction. The page
// size stays bbolt's default, the raw store's best case for commits of 25
// items (bench/results/design-measurements.md).
func rawBboltIngest(ctx context.Context, dir string, n int, noSync bool) (ingestResult, error) {
	path := filepath.Join(dir, "raw.db")
	opt := &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType,
		NoSync: noSync, NoGrowSync: noSync, NoFreelistSync: noSync}
	db, err := bolt.Open(path, 0o600, opt)
	if err != nil {
		return ingestResult{}, fmt.Errorf("open raw bbolt: %w", err)
	}
	defer os.Remove(path)
	defer db.Close()
	tb, xb := []byte("d/ingest"), []byte("x/ingest/GSI1")
	if err := db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucket(tb); err != nil {
			return err
		}
		_, err := tx.CreateBucket(xb)
		return err
	}); err != nil {
		return ingestResult{}, fmt.Errorf("create raw buckets: %w", err)
	}
	start := time.Now()
	for lo := 0; lo < n; lo += ingestBatch {
		if err := ctx.Err(); err != nil {
			return ingestResult{}, fmt.Errorf("raw bbolt ingest: %w", err)
		}
		err := db.Update(func(tx *bolt.Tx) error {
			t, x := tx.Bucket(tb), tx.Bucket(xb)
			for i := lo; i < min(lo+ingestBatch, n); i++ {
				item := edgeItem(i, i%10_000)
				val := itemBytes(item)
				pk, sk := str(item["PK"]), str(item["SK"])
				gpk, gsk := str(item["GSI1PK"]), str(item["GSI1SK"])
				tk := joinKey(pk, sk)
				if err := t.Put(tk, val); err != nil {
					return err
				}
				if err := x.Put(joinKey(gpk, gsk, pk, sk), []byte{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return ingestResult{}, fmt.Errorf("raw bbolt batch: %w", err)
		}
	}
	return ingestResult{Items: n, Elapsed: time.Since(start)}, nil
}

// joinKey is the engine's composite key encoding (local/internal/attr
// AppendKey for S values): each part with 0x00 escaped as 0x00 0xFF and
// terminated by 0x00 0x01, which keeps tuples in lexicographic order.
func joinKey(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p) + 2
	}
	k := make([]byte, 0, n)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if p[i] == 0 {
				k = append(k, 0x00, 0xFF)
			} else {
				k = append(k, p[i])
			}
		}
		k = append(k, 0x00, 0x01)
	}
	return k
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// kindS is the engine's kind byte for S in its binary item encoding.
const kindS = 1

// itemBytes encodes a string-only item the way the engine keeps items at rest
// (local/internal/attr AppendItem): uvarint attribute count, then per
// attribute a uvarint-length name, a kind byte and a uvarint-length value.
func itemBytes(item map[string]types.AttributeValue) []byte {
	b := binary.AppendUvarint(nil, uint64(len(item)))
	for k, v := range item {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		s := str(v)
		b = append(b, kindS)
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}
