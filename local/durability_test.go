package local

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/adjl/adjl/local/internal/kv"
	"github.com/adjl/adjl/local/internal/testkit"
)

func TestPersistenceAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := clientFor(e)
	createGraphTable(t, c, "school")
	if _, err := c.TransactWriteItems(ctx, linkTx("STU#a", "CRS#m")); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("data file mode %v, want 0600", st.Mode().Perm())
	}

	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c = clientFor(e)
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :c"), ExpressionAttributeValues: map[string]av{":c": s("CRS#m")}})
	if err != nil || out.Count != 1 || str(out.Items[0], "GSI1SK") != "STU#a" {
		t.Fatalf("query after reopen: %v %#v", err, out)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil || *d.Table.ItemCount != 3 || *d.Table.GlobalSecondaryIndexes[0].ItemCount != 1 {
		t.Fatalf("counts after reopen: %v %v %v", err, *d.Table.ItemCount, *d.Table.GlobalSecondaryIndexes[0].ItemCount)
	}
}

func TestInMemoryNeedsNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	e, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if e.Path() != "" {
		t.Fatalf("in-memory engine reports file %q", e.Path())
	}
	c := clientFor(e)
	createGraphTable(t, c, "school")
	if _, err := c.TransactWriteItems(ctx, linkTx("STU#a", "CRS#m")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("in-memory engine wrote files: %v", entries)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// Two in-memory engines are independent and never wait for a lock.
	a, b := openMem(t), openMem(t)
	createGraphTable(t, clientFor(a), "school")
	createGraphTable(t, clientFor(b), "school")
}

func TestSecondEngineWaitsThenTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e1, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Open(path, Options{LockTimeout: 300 * time.Millisecond})
	var le *LockedError
	if !errors.As(err, &le) {
		e1.Close()
		t.Fatalf("second open: %v", err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Fatalf("gave up after %v, should wait for the lock", waited)
	}
	if !strings.Contains(err.Error(), "another adjl process holds the data file") ||
		!strings.Contains(err.Error(), "adjl local serve") || !strings.Contains(err.Error(), "--endpoint http://127.0.0.1:8000") {
		t.Fatalf("message: %v", err)
	}
	// A waiting opener gets the file once the holder closes.
	done := make(chan error, 1)
	go func() {
		e2, err := Open(path, Options{LockTimeout: 5 * time.Second})
		if err == nil {
			err = e2.Close()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	e1.Close()
	if err := <-done; err != nil {
		t.Fatalf("waiting opener: %v", err)
	}
}

// TestKillNineDurability runs a child copy of this test binary that writes
// and acknowledges items and is then SIGKILLed; every acknowledged write must
// be in the file afterwards.
func TestKillNineDurability(t *testing.T) {
	if os.Getenv("ADJL_KILL_CHILD") != "" {
		killChild()
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "data.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillNineDurability$")
	cmd.Env = append(os.Environ(), "ADJL_KILL_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read acknowledgements until enough writes are committed, then kill.
	buf := make([]byte, 1)
	acked := 0
	var line []byte
	for acked < 50 {
		if _, err := out.Read(buf); err != nil {
			cmd.Process.Kill()
			t.Fatalf("child output ended after %d acks: %v", acked, err)
		}
		if buf[0] == '\n' {
			if strings.HasPrefix(string(line), "ack ") {
				acked++
			}
			line = line[:0]
			continue
		}
		line = append(line, buf[0])
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	e, err := Open(path, Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer e.Close()
	c := clientFor(e)
	for i := 0; i < acked; i++ {
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"),
			Key: map[string]av{"PK": s(fmt.Sprintf("K%05d", i)), "SK": s("x")}, ConsistentRead: aws.Bool(true)})
		if err != nil || got.Item == nil {
			t.Fatalf("acknowledged write %d lost: %v", i, err)
		}
	}
}

func killChild() {
	path := os.Getenv("ADJL_KILL_CHILD")
	e, err := Open(path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	c := clientFor(e)
	if _, err := c.CreateTable(ctx, graphTableInput("school")); err != nil {
		fmt.Println("create:", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": s(fmt.Sprintf("K%05d", i)), "SK": s("x"), "GSI1PK": s("G"), "GSI1SK": s(fmt.Sprint(i))}})
		if err != nil {
			fmt.Println("put:", err)
			os.Exit(2)
		}
		fmt.Printf("ack %d\n", i)
	}
}

// TestFailingLogUnderConcurrentWriters: the log file fails while
// eight writers commit in shared rounds (the leader and the syncer
// yielding): every request returns — none hangs on a sync that will never
// come — the failure reaches requests rather than being lost, and every
// write acknowledged before it is there after reopening.
func TestFailingLogUnderConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e := openEngine(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	file := fileStore(e)
	var mu sync.Mutex
	acked := map[string]bool{}
	failed := 0
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; i < 30; i++ {
				if g == 0 && i == 10 {
					file.BreakLog() // later writes and fsyncs of the log fail
				}
				pk := fmt.Sprint(g, "/", i)
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ggg"),
					Item: map[string]av{"PK": s(pk), "SK": s("x"), "GSI1PK": s("all"), "GSI1SK": s(pk)}})
				mu.Lock()
				if err == nil {
					acked[pk] = true
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	testkit.WaitOrDump(t, 30*time.Second, "writers hung after the log failed", wg.Wait)
	if failed == 0 {
		t.Fatal("no write failed after the log file was closed")
	}
	if len(acked) < 10 {
		t.Fatalf("only %d writes acknowledged before the failure", len(acked))
	}
	crashEngine(e)
	e = openEngine(t, path, false)
	defer e.Close()
	q, err := clientFor(e).Query(ctx, &dynamodb.QueryInput{TableName: aws.String("ggg"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :a"), ExpressionAttributeValues: map[string]av{":a": s("all")}})
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, it := range q.Items {
		present[str(it, "PK")] = true
	}
	for pk := range acked {
		if !present[pk] {
			t.Errorf("acknowledged write %s lost", pk)
		}
	}
	t.Logf("%d acknowledged, %d failed, %d present after reopening", len(acked), failed, len(present))
}

// A new file's format record goes straight into the bbolt file, before any
// log is read or written; its buckets go through the log. A crash right
// after the first open leaves the record in place, and the next open has
// both.
func TestFormatAfterCrashOnCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	crashEngine(e)
	if f, err := kv.FileFormat(path); err != nil || f != kv.Format {
		t.Fatalf("format record in the bbolt file before replay: %d, %v (0: in the log only), want %d", f, err, kv.Format)
	}
	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f int
	missing := false
	e.db.View(func(tx kv.Tx) error {
		f = kv.ReadFormat(tx)
		for _, b := range [][]byte{metaBucket, statsBucket, tokensBucket} {
			missing = missing || tx.Bucket(b) == nil
		}
		return nil
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if f != kv.Format || missing {
		t.Fatalf("after a crash on creation: format %d, fixed buckets missing: %v", f, missing)
	}
	if f, err := kv.FileFormat(path); err != nil || f != kv.Format {
		t.Fatalf("after a clean close the bbolt file records format %d (%v)", f, err)
	}
}
