package local

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/kv"
	"github.com/adjl/adjl/local/internal/testkit"
)

// TestConcurrentLinksKeepCountersExact races link transactions on shared
// items: group commit must keep them serialisable, so every counter equals
// the number of edges that were really created.
func TestConcurrentLinksKeepCountersExact(t *testing.T) {
	_, c := openGraphFile(t)
	var created atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; i < 30; i++ {
				// Goroutines collide on the same pairs half of the time.
				stu := fmt.Sprintf("STU#%d", (g/2)*100+i%10)
				_, err := c.TransactWriteItems(ctx, linkTx(stu, fmt.Sprintf("CRS#%d", i%3)))
				var tce *types.TransactionCanceledException
				switch {
				case err == nil:
					created.Add(1)
				case errors.As(err, &tce):
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	total := 0
	for i := 0; i < 3; i++ {
		crs := fmt.Sprintf("CRS#%d", i)
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s(crs), "SK": s(crs)}})
		if err != nil {
			t.Fatal(err)
		}
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"), Select: types.SelectCount,
			KeyConditionExpression: aws.String("GSI1PK = :c"), ExpressionAttributeValues: map[string]av{":c": s(crs)}})
		if err != nil {
			t.Fatal(err)
		}
		if num(got.Item, "studentCount") != fmt.Sprint(q.Count) {
			t.Fatalf("%s: counter %s, edges %d", crs, num(got.Item, "studentCount"), q.Count)
		}
		total += int(q.Count)
	}
	if int64(total) != created.Load() {
		t.Fatalf("edges %d, successful links %d", total, created.Load())
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(total) + 3 + 40; *d.Table.ItemCount != want { // edges + courses + students
		t.Fatalf("ItemCount %d, want %d", *d.Table.ItemCount, want)
	}
}

// TestGroupCommitSharesTransactions checks that concurrent writers to a data
// file share commits (and so fsyncs) instead of taking one each.
func TestGroupCommitSharesTransactions(t *testing.T) {
	e, c := openGraphFile(t)
	rounds, jobs, fsyncs := putConcurrently(t, e, c, "school")
	if jobs != 200 {
		t.Fatalf("%d jobs committed, want 200", jobs)
	}
	t.Logf("%d writes in %d commits, %d log fsyncs", jobs, rounds, fsyncs)
	if fsyncs > rounds {
		t.Fatalf("%d log fsyncs for %d commits: an fsync covered no new commit", fsyncs, rounds)
	}
	// With one P, a writer whose fsync returns before the runtime hands its
	// P to another goroutine runs its whole request alone, so sharing
	// depends on timing there.
	if runtime.GOMAXPROCS(0) > 1 {
		if rounds >= jobs {
			t.Fatalf("%d commits for %d concurrent writes: nothing was shared", rounds, jobs)
		}
		if fsyncs >= jobs {
			t.Fatalf("%d log fsyncs for %d writes: none was shared", fsyncs, jobs)
		}
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil || *d.Table.ItemCount != 200 {
		t.Fatalf("ItemCount: %v", err)
	}
}

// putConcurrently has 8 writers put 25 items each into table (a graph
// table: every item is in GSI1 under "all") and returns how many commits
// and log fsyncs the 200 writes (jobs) took.
func putConcurrently(t *testing.T, e *Engine, c *dynamodb.Client, table string) (rounds, jobs, fsyncs int64) {
	t.Helper()
	c0, s0 := e.commits.Stats(), fileStore(e).Stats().LogSyncs
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 25; i++ {
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
					Item: map[string]av{"PK": s(fmt.Sprint(g)), "SK": s(fmt.Sprint(i)), "GSI1PK": s("all"), "GSI1SK": s(fmt.Sprint(g, "/", i))}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	c1 := e.commits.Stats()
	return c1.Rounds - c0.Rounds, c1.Jobs - c0.Jobs, fileStore(e).Stats().LogSyncs - s0
}

// TestPanicInWriteLeavesEngineUsable: a panic (a bug) inside a write must
// reach its caller and leave neither the group committer nor the store
// locked, with the half-done write rolled back, on both stores.
func TestPanicInWriteLeavesEngineUsable(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, _ bool) {
		write := func(v string, boom bool) (err error) {
			return e.update(func(w *writer) error {
				b, err := w.tx.CreateBucketIfNotExists([]byte("b"))
				if err != nil {
					return err
				}
				if err := b.Put([]byte("k"), []byte(v)); err != nil {
					return err
				}
				if boom {
					panic("boom")
				}
				return nil
			})
		}
		if err := write("before", false); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Errorf("recovered %v, want the write's panic", p)
				}
			}()
			write("during", true)
		}()
		e.db.View(func(tx kv.Tx) error {
			if got := string(tx.Bucket([]byte("b")).Get([]byte("k"))); got != "before" {
				t.Errorf("after the panic k=%q, want before: the write was not rolled back", got)
			}
			return nil
		})
		done := make(chan error, 1)
		go func() { done <- write("after", false) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a write after the panic is still waiting: the committer or the store stayed locked")
		}
		e.db.View(func(tx kv.Tx) error {
			if got := string(tx.Bucket([]byte("b")).Get([]byte("k"))); got != "after" {
				t.Errorf("k=%q, want after", got)
			}
			return nil
		})
	})
}

// TestGroupCommitOneProc: with a single P, whether writers share a
// round depends on timing (see TestGroupCommitSharesTransactions), but
// fsyncs never outnumber commits, and every acknowledged write is there
// after a crash.
func TestGroupCommitOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	path := filepath.Join(t.TempDir(), "data.db")
	e := openEngine(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	rounds, jobs, fsyncs := putConcurrently(t, e, c, "ggg")
	t.Logf("GOMAXPROCS=1: %d writes in %d commits, %d log fsyncs", jobs, rounds, fsyncs)
	if jobs != 200 {
		t.Fatalf("%d writes committed, want 200", jobs)
	}
	if fsyncs > rounds {
		t.Fatalf("%d log fsyncs for %d commits: an fsync covered no new record", fsyncs, rounds)
	}
	crashEngine(e)
	e = openEngine(t, path, false)
	defer e.Close()
	q, err := clientFor(e).Query(ctx, &dynamodb.QueryInput{TableName: aws.String("ggg"), IndexName: aws.String("GSI1"), Select: types.SelectCount,
		KeyConditionExpression: aws.String("GSI1PK = :a"), ExpressionAttributeValues: map[string]av{":a": s("all")}})
	if err != nil || q.Count != 200 {
		t.Fatalf("after a crash the index holds %v items (%v), want 200", q, err)
	}
}

// TestCommitsCheckpointsAndReadersTogether: writers, readers and
// checkpoints (a tiny log limit starts one every few commits; each syncs
// the log while holding the write lock) run together without a deadlock;
// a write, once acknowledged, is seen by every later read, through the
// table and the index; fsyncs never outnumber commits; and everything is
// there after a crash.
func TestCommitsCheckpointsAndReadersTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e := openEngine(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	SetCheckpointBytes(e, 2048)
	file := fileStore(e)
	f0, c0 := file.Stats(), e.commits.Stats()
	const writers, each = 6, 30
	var acked [writers]int // per writer: items acknowledged so far
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := 0; i < each; i++ {
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ggg"),
					Item: map[string]av{"PK": s(fmt.Sprint("w", g)), "SK": s(fmt.Sprintf("%03d", i)),
						"GSI1PK": s(fmt.Sprint("w", g)), "GSI1SK": s(fmt.Sprintf("%03d", i)), "pad": s(strings.Repeat("p", 200))}}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked[g] = i + 1
				mu.Unlock()
			}
		})
	}
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				g := (i + r) % writers
				mu.Lock()
				min := acked[g]
				mu.Unlock()
				in := &dynamodb.QueryInput{TableName: aws.String("ggg"), Select: types.SelectCount,
					KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s(fmt.Sprint("w", g))}}
				if i%2 == 1 {
					in.IndexName = aws.String("GSI1")
					in.KeyConditionExpression = aws.String("GSI1PK = :p")
				}
				q, err := c.Query(ctx, in)
				if err != nil {
					t.Error(err)
					return
				}
				if int(q.Count) < min {
					t.Errorf("writer %d had %d writes acknowledged; a later read (index %v) saw %d", g, min, in.IndexName != nil, q.Count)
					return
				}
			}
		})
	}
	testkit.WaitOrDump(t, 30*time.Second, "stuck: writers and readers did not finish", func() { wg.Wait(); close(done); readers.Wait() })
	if t.Failed() {
		return
	}
	if n := file.Stats().Epoch - f0.Epoch; n < 4 {
		t.Fatalf("only %d new log epochs: the checkpoints did not run", n)
	}
	if rounds, fsyncs := e.commits.Stats().Rounds-c0.Rounds, file.Stats().LogSyncs-f0.LogSyncs; fsyncs > rounds {
		t.Fatalf("%d log fsyncs for %d commits", fsyncs, rounds)
	}
	crashEngine(e)
	e = openEngine(t, path, false)
	defer e.Close()
	c = clientFor(e)
	for g := 0; g < writers; g++ {
		for _, idx := range []string{"", "GSI1"} {
			in := &dynamodb.QueryInput{TableName: aws.String("ggg"), KeyConditionExpression: aws.String("PK = :p"),
				ExpressionAttributeValues: map[string]av{":p": s(fmt.Sprint("w", g))}}
			if idx != "" {
				in.IndexName, in.KeyConditionExpression = aws.String(idx), aws.String("GSI1PK = :p")
			}
			q, err := c.Query(ctx, in)
			if err != nil || len(q.Items) != each {
				t.Fatalf("after a crash writer %d has %v items in %q (%v), want %d", g, len(q.Items), idx, err, each)
			}
			for i, it := range q.Items {
				if str(it, "SK") != fmt.Sprintf("%03d", i) {
					t.Fatalf("after a crash writer %d item %d is %q", g, i, str(it, "SK"))
				}
			}
		}
	}
}
