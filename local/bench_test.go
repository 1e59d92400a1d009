package local

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/kv"
)

// benchClients is the number of concurrent clients of the HTTP benchmarks.
const benchClients = 4

// httpBenchClient serves e on loopback with a client pool sized for
// benchClients concurrent requests.
func httpBenchClient(b *testing.B, e *Engine) *dynamodb.Client {
	c := serverClient(b, e)
	return dynamodb.New(c.Options(), func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients * 2}}
	})
}

// schoolBenchClient is an httpBenchClient of a new in-memory engine with an
// empty school table.
func schoolBenchClient(b *testing.B) *dynamodb.Client {
	c := httpBenchClient(b, openMem(b))
	createGraphTable(b, c, "school")
	return c
}

func runClients(b *testing.B, fn func(i int64) error) {
	var next atomic.Int64
	b.SetParallelism((benchClients + 1) / 2) // GOMAXPROCS 2 on the target machine
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fn(next.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkPutItemConditional(b *testing.B) {
	c := schoolBenchClient(b)
	runClients(b, func(i int64) error {
		from, to := fmt.Sprintf("STU#%d", i), fmt.Sprintf("CRS#%d", i%1000)
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": s(from), "SK": s("ENROLL#" + to), "GSI1PK": s(to), "GSI1SK": s(from),
				"grade": s("A"), "enrolledOn": s("2026-09-01")},
			ConditionExpression: aws.String("attribute_not_exists(PK)")})
		return err
	})
}

// courseOf100 is a client of a new in-memory engine whose school table
// holds 100 students enrolled in CRS#math.
func courseOf100(b *testing.B) *dynamodb.Client {
	c := schoolBenchClient(b)
	for i := 0; i < 100; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			from := fmt.Sprintf("STU#%04d", j)
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]av{
				"PK": s(from), "SK": s("ENROLL#CRS#math"), "GSI1PK": s("CRS#math"), "GSI1SK": s(from),
				"grade": s("A"), "enrolledOn": s("2026-09-01")}}})
		}
		if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

func BenchmarkQueryGSI100(b *testing.B) {
	c := courseOf100(b)
	runClients(b, func(int64) error {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
			Limit: aws.Int32(100), KeyConditionExpression: aws.String("GSI1PK = :c"),
			ExpressionAttributeValues: map[string]av{":c": s("CRS#math")}})
		if err == nil && out.Count != 100 {
			err = fmt.Errorf("count %d", out.Count)
		}
		return err
	})
}

// edgeItem is one enrolment edge as adjl's import writes it.
func edgeItem(i int) map[string]av {
	from, to := fmt.Sprintf("STU#%07d", i), fmt.Sprintf("CRS#%04d", i%5000)
	return map[string]av{"PK": s(from), "SK": s("ENROLL#" + to), "GSI1PK": s(to), "GSI1SK": s(from),
		"grade": s("A"), "enrolledOn": s("2026-09-01")}
}

// BenchmarkBatchWriteIngest is in-process bulk ingest into a data file:
// BatchWriteItem of 25 edges per request. It reports items/s.
func BenchmarkBatchWriteIngest(b *testing.B) {
	for _, mem := range []bool{false, true} {
		name := "file"
		if mem {
			name = "memory"
		}
		b.Run(name, func(b *testing.B) { benchIngest(b, mem) })
	}
	b.Run("file-4writers", benchIngestParallel)
}

// benchIngestParallel ingests into a data file from four writers, as an
// import with concurrent workers does: group commit shares each fsync.
func benchIngestParallel(b *testing.B) {
	e, c := openGraphFile(b)
	var next atomic.Int64
	b.SetParallelism(2)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			base := int(next.Add(25)) - 25
			reqs := make([]types.WriteRequest, 25)
			for j := range reqs {
				reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: edgeItem(base + j)}}
			}
			if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(next.Load())/b.Elapsed().Seconds(), "items/s")
	reportItemsPerFsync(b, e, int(next.Load()))
}

// reportItemsPerFsync reports how many items shared each log fsync: group
// commit's effect, for a data-file engine.
func reportItemsPerFsync(b *testing.B, e *Engine, items int) {
	if f, ok := e.db.(*kv.File); ok {
		if n := f.Stats().LogSyncs; n > 0 {
			b.ReportMetric(float64(items)/float64(n), "items/fsync")
		}
	}
}

func benchIngest(b *testing.B, mem bool) {
	e, err := Open(filepath.Join(b.TempDir(), "data.db"), Options{InMemory: mem})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	c := clientFor(e)
	createGraphTable(b, c, "school")
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		reqs := make([]types.WriteRequest, 25)
		for j := range reqs {
			reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: edgeItem(n)}}
			n++
		}
		if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"school": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
	reportItemsPerFsync(b, e, n)
}

// serveBody calls ServeHTTP directly with a prepared body: the engine's own
// cost per request, without SDK or socket.
func serveBody(b *testing.B, e *Engine, op, body string) int {
	req, _ := newRequest("DynamoDB_20120810."+op, body)
	rec := &recorder{header: http.Header{}}
	e.ServeHTTP(rec, req)
	if rec.status != 200 {
		b.Fatalf("%s: %d %s", op, rec.status, rec.body.String())
	}
	return rec.body.Len()
}

func BenchmarkServePutItemConditional(b *testing.B) {
	e := openMem(b)
	createGraphTable(b, clientFor(e), "school")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		serveBody(b, e, "PutItem", fmt.Sprintf(`{"TableName":"school","Item":{"PK":{"S":"STU#%d"},"SK":{"S":"ENROLL#CRS#1"},"GSI1PK":{"S":"CRS#1"},"GSI1SK":{"S":"STU#%d"},"grade":{"S":"A"},"enrolledOn":{"S":"2026-09-01"}},"ConditionExpression":"attribute_not_exists(PK)"}`, i, i))
	}
}

func BenchmarkServeQueryGSI100(b *testing.B) {
	e := openMem(b)
	c := clientFor(e)
	createGraphTable(b, c, "school")
	for i := 0; i < 100; i++ {
		from := fmt.Sprintf("STU#%04d", i)
		c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: map[string]av{
			"PK": s(from), "SK": s("ENROLL#CRS#math"), "GSI1PK": s("CRS#math"), "GSI1SK": s(from),
			"grade": s("A"), "enrolledOn": s("2026-09-01")}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		serveBody(b, e, "Query", `{"TableName":"school","IndexName":"GSI1","Limit":100,"KeyConditionExpression":"GSI1PK = :c","ExpressionAttributeValues":{":c":{"S":"CRS#math"}}}`)
	}
}

// BenchmarkServeBatchWrite is the engine's own cost of ingest: ServeHTTP of
// BatchWriteItem bodies of 25 edge items (the shape of edgeItem) into an
// in-memory table with GSI1, without the SDK. It reports items/s.
func BenchmarkServeBatchWrite(b *testing.B) {
	n := serveBatches(b, "BatchWriteItem", `{"RequestItems":{"school":[`, `]}}`, 25, func(body []byte, n int) []byte {
		from, to := fmt.Sprintf("STU#%07d", n), fmt.Sprintf("CRS#%04d", n%5000)
		return fmt.Appendf(body, `{"PutRequest":{"Item":{"PK":{"S":%q},"SK":{"S":"ENROLL#%s"},"GSI1PK":{"S":%q},"GSI1SK":{"S":%q},"grade":{"S":"A"},"enrolledOn":{"S":"2026-09-01"}}}}`, from, to, to, from)
	})
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}

// serveBatches serves b.N bodies of op to a new in-memory engine with an
// empty school table: each body is opening, per members appended by member
// (the n-th of the run), separated by commas, and closing. It returns the
// members served.
func serveBatches(b *testing.B, op, opening, closing string, per int, member func(body []byte, n int) []byte) int {
	e := openMem(b)
	createGraphTable(b, clientFor(e), "school")
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	body := make([]byte, 0, 64<<10)
	for range b.N {
		body = append(body[:0], opening...)
		for j := range per {
			if j > 0 {
				body = append(body, ',')
			}
			body = member(body, n)
			n++
		}
		body = append(body, closing...)
		serveBody(b, e, op, string(body))
	}
	return n
}

// BenchmarkRawHTTPPutItemConditional posts prepared PutItem bodies over a
// loopback socket from benchClients goroutines: the server's throughput
// without the SDK's client-side cost.
func BenchmarkRawHTTPPutItemConditional(b *testing.B) {
	e := openMem(b)
	createGraphTable(b, clientFor(e), "school")
	srv := httptest.NewServer(e)
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients * 2}}
	runClients(b, func(i int64) error {
		body := fmt.Sprintf(`{"TableName":"school","Item":{"PK":{"S":"STU#%d"},"SK":{"S":"ENROLL#CRS#1"},"GSI1PK":{"S":"CRS#1"},"GSI1SK":{"S":"STU#%d"},"grade":{"S":"A"}},"ConditionExpression":"attribute_not_exists(PK)"}`, i, i)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

// BenchmarkServeCounterFixTransaction is the engine's cost of an import's
// counter phase: ServeHTTP of TransactWriteItems bodies of 100 updates in
// the shape adjl's counter fixes take (set the count, the shard stamp, the
// index keys and the type, if the counter is still absent) into an
// in-memory table with GSI1. It reports updates/s.
func BenchmarkServeCounterFixTransaction(b *testing.B) {
	n := serveBatches(b, "TransactWriteItems", `{"TransactItems":[`, `]}`, 100, func(body []byte, n int) []byte {
		key := fmt.Sprintf("STU#%07d", n)
		return fmt.Appendf(body, `{"Update":{"TableName":"school","Key":{"PK":{"S":%q},"SK":{"S":%q}},`+
			`"UpdateExpression":"SET #c = :n, #s = :s, #ipk = :k, #isk = :k, #t = if_not_exists(#t, :t)",`+
			`"ConditionExpression":"attribute_not_exists(#c)",`+
			`"ExpressionAttributeNames":{"#c":"courseCount","#s":"ADJL#shards#enrollment","#ipk":"GSI1PK","#isk":"GSI1SK","#t":"type"},`+
			`"ExpressionAttributeValues":{":n":{"N":"20"},":s":{"N":"1"},":k":{"S":%q},":t":{"S":"student"}}}}`, key, key, key)
	})
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "updates/s")
}
