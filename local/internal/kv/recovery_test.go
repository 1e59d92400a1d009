package kv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// walPut puts k=v in bucket (created if needed) in one transaction.
func walPut(kv *File, bucket, k, v string) error {
	return kv.Update(func(tx Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(k), []byte(v))
	})
}

// mustPut is walPut that fails the test at once on an error.
func mustPut(t testing.TB, kv *File, bucket, k, v string) {
	t.Helper()
	if err := walPut(kv, bucket, k, v); err != nil {
		t.Fatal(err)
	}
}

// walGet reads bucket/k: the value, "<nil>" or "<no bucket>".
func walGet(t *testing.T, kv *File, bucket, k string) string {
	t.Helper()
	var out string
	err := kv.View(func(tx Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			out = "<no bucket>"
			return nil
		}
		v := b.Get([]byte(k))
		if v == nil {
			out = "<nil>"
		} else {
			out = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWALStaleLogNotReplayed: the bbolt file records the newest log epoch
// it holds, so a log left live by a crash after its checkpoint (here the
// older log, whose records the newer one overwrote) is not replayed over
// newer state — whatever order the logs were retired in.
func TestWALStaleLogNotReplayed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	mustPut(t, kv, "b", "k", "base")
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	// The file has k=new from epochs 20 and 21; epoch 20's log is still live.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket([]byte("b")).Put([]byte("k"), []byte("new")); err != nil {
			return err
		}
		return setAppliedEpoch(tx, 21)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range []struct {
		epoch uint64
		v     string
	}{{22, ""}, {20, "old"}} {
		l, _, err := openLog(fmt.Sprintf("%s-wal%d", path, i))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.writeHeader(st.epoch); err != nil {
			t.Fatal(err)
		}
		if st.v != "" {
			if _, err := l.write(appendOp(nil, opPut, []byte("b"), []byte("k"), []byte(st.v))); err != nil {
				t.Fatal(err)
			}
			if err := l.syncTo(l.written.Load(), false); err != nil {
				t.Fatal(err)
			}
		}
		l.f.Close()
	}
	kv = openTestWAL(t, path, 1<<20)
	if got := walGet(t, kv, "b", "k"); got != "new" {
		t.Errorf("k=%q after reopen, want new: a log the file already had was replayed", got)
	}
	// And what is written next survives a crash: the active log took an
	// epoch newer than the file's.
	mustPut(t, kv, "b", "k", "newer")
	kv.Crash()
	kv = openTestWAL(t, path, 1<<20)
	defer kv.Close()
	if got := walGet(t, kv, "b", "k"); got != "newer" {
		t.Errorf("k=%q after a crash, want newer", got)
	}
}

// TestWALFailedCheckpointKeepsLog: when a background checkpoint fails, the
// frozen overlay never reaches the data file and its log is not retired;
// Close must then report the failure and leave every acknowledged record in
// the logs (not cut them back to logKeepBytes), and a reopen recovers them.
func TestWALFailedCheckpointKeepsLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	const limit = 5 << 20
	kv := openTestFile(t, path, Options{CheckpointBytes: limit, flushFault: errors.New("injected checkpoint failure")})
	val := bytes.Repeat([]byte("x"), 256<<10)
	n := 0
	for kv.frozen == nil && n < 100 {
		mustPut(t, kv, "b", fmt.Sprintf("k%03d", n), string(val))
		n++
	}
	kv.waitFlush()
	kv.mu.RLock()
	broken := kv.broken
	kv.mu.RUnlock()
	if broken == nil {
		t.Fatal("expected the background checkpoint to fail")
	}
	t.Logf("flush failed: %v; %d acknowledged puts", broken, n)
	if err := kv.Close(); err == nil {
		t.Errorf("Close returned nil although the checkpoint failed")
	}
	// Count the acknowledged records still in the logs.
	found := 0
	for i := 0; i < 2; i++ {
		l, recs, err := openLog(fmt.Sprintf("%s-wal%d", path, i))
		if err != nil {
			t.Fatal(err)
		}
		for len(recs) > 0 {
			m := int(uint32(recs[0]) | uint32(recs[1])<<8 | uint32(recs[2])<<16 | uint32(recs[3])<<24)
			eachOp(recs[8:8+m], func(o logOp) {
				if o.op == opPut && len(o.key) > 0 {
					found++
				}
			})
			recs = recs[8+m:]
		}
		l.f.Close()
	}
	if found != n {
		t.Errorf("logs hold %d of %d acknowledged puts after Close", found, n)
	}
	kv = openTestWAL(t, path, limit)
	defer kv.Close()
	for i := 0; i < n; i++ {
		if got := walGet(t, kv, "b", fmt.Sprintf("k%03d", i)); got != string(val) {
			t.Fatalf("k%03d lost after reopen (%d bytes)", i, len(got))
		}
	}
}

// TestWALCommitStandsWhenCheckpointFails: a write whose record is in the
// log is committed even if the checkpoint it then starts fails (here the
// spare log's header cannot be written): it succeeds, is visible and
// survives a reopen, while every later write is refused until the reopen.
func TestWALCommitStandsWhenCheckpointFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 64)
	// 64 bytes: this first put may already start a checkpoint
	mustPut(t, kv, "b", "a", "1")
	kv.waitFlush()
	kv.spare.f.Close() // the next freeze's header write fails
	if err := walPut(kv, "b", "k", strings64()); err != nil {
		t.Fatalf("a committed write reported %v", err)
	}
	if got := walGet(t, kv, "b", "k"); got != strings64() {
		t.Errorf("committed write not visible: k=%q", got)
	}
	if err := walPut(kv, "b", "later", "x"); err == nil || !strings.Contains(err.Error(), "reopen the data file") {
		t.Errorf("write after the failed checkpoint: %v", err)
	}
	if err := kv.Close(); err == nil {
		t.Error("Close after a failed checkpoint returned nil")
	}
	kv = openTestWAL(t, path, 1<<20)
	defer kv.Close()
	if got := walGet(t, kv, "b", "k"); got != strings64() {
		t.Errorf("committed write lost after reopen: k=%q", got)
	}
}

func strings64() string { return string(bytes.Repeat([]byte("v"), 100)) }

// TestWALReadOnlyCommitWaits: a Commit that only reads must not answer
// before the records it read (written by an earlier commit whose fsync is
// still pending) are durable, like View.
func TestWALReadOnlyCommitWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	defer kv.Close()
	if _, err := kv.Commit(func(tx Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	}); err != nil {
		t.Fatal(err)
	} // durable() deliberately not called yet: the fsync is pending
	var saw []byte
	durable, err := kv.Commit(func(tx Tx) error {
		saw = bytes.Clone(tx.Bucket([]byte("b")).Get([]byte("k")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := durable(); err != nil {
		t.Fatal(err)
	}
	kv.log.syncMu.Lock()
	d, w := kv.log.durable, kv.log.written.Load()
	kv.log.syncMu.Unlock()
	if saw != nil && d < w {
		t.Errorf("read-only Commit saw %q and its durable() returned with log durable=%d < written=%d", saw, d, w)
	}
}

// TestWALRefusesWhatBboltRefuses: an empty bucket name accepted into the log
// would fail every checkpoint and every later open, so it is refused at once.
func TestWALRefusesWhatBboltRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	err := kv.Update(func(tx Tx) error {
		_, err := tx.CreateBucket(nil)
		return err
	})
	if err == nil {
		kv.Crash()
		db, berr := bolt.Open(path, 0o600, nil)
		if berr != nil {
			t.Fatal(berr)
		}
		_, oerr := openWAL(db, path, Options{})
		db.Close()
		if oerr != nil {
			t.Errorf("CreateBucket(nil) succeeded, and the file then fails to open: %v", oerr)
		}
		return
	}
	kv.Close()
}

// TestWALTornHeaderNoStaleRecords: a log whose header is torn loses its body
// too and takes a fresh epoch before new records, so replay can never run
// from new records into stale ones whose checksums would still pass.
func TestWALTornHeaderNoStaleRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	for _, v := range []string{"old", "older"} {
		mustPut(t, kv, "b", "k", v)
	}
	mustPut(t, kv, "b", "k", "new")
	active := kv.log.f.Name()
	if err := kv.Close(); err != nil { // power cut while Close writes the header
		t.Fatal(err)
	}
	f, err := os.OpenFile(active, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("torn header......"), 0)
	f.Close()
	kv = openTestWAL(t, path, 1<<20)
	if got := walGet(t, kv, "b", "k"); got != "new" {
		t.Fatalf("after a torn header k=%q, want new", got)
	}
	mustPut(t, kv, "b", "other", "x")
	kv.Crash()
	kv = openTestWAL(t, path, 1<<20)
	defer kv.Close()
	if got := walGet(t, kv, "b", "k"); got != "new" {
		t.Errorf("after a crash k=%q, want new: a stale record was replayed", got)
	}
	if got := walGet(t, kv, "b", "other"); got != "x" {
		t.Errorf("the write after the torn header was lost: other=%q", got)
	}
}

// TestEmptyValuesReplayFromTheLog: a log record whose put has a zero-length
// value (the last op of its payload, too), as the engine's index entries
// have, replays as a present key with an empty value, not as a missing key
// or a tombstone, on reopen after a crash, and checkpoints into bbolt as
// such.
func TestEmptyValuesReplayFromTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	put := func(k string, v []byte) {
		t.Helper()
		if err := kv.Update(func(tx Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("x/t/i"))
			if err != nil {
				return err
			}
			return b.Put([]byte(k), v)
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", []byte{})
	put("b", []byte("tk"))
	put("c", []byte{})
	if err := kv.Update(func(tx Tx) error { return tx.Bucket([]byte("x/t/i")).Delete([]byte("b")) }); err != nil {
		t.Fatal(err)
	}
	put("d", []byte{})
	read := func(kv *File) string {
		var sb strings.Builder
		kv.View(func(tx Tx) error {
			b := tx.Bucket([]byte("x/t/i"))
			for _, k := range []string{"a", "b", "c", "d"} {
				v := b.Get([]byte(k))
				fmt.Fprintf(&sb, "%s:%v:%d ", k, v != nil, len(v))
			}
			c := b.Cursor()
			for k, v := c.Last(); k != nil; k, v = c.Prev() {
				fmt.Fprintf(&sb, "%s=%q ", k, v)
			}
			return nil
		})
		return sb.String()
	}
	const want = `a:true:0 b:false:0 c:true:0 d:true:0 d="" c="" a="" `
	if got := read(kv); got != want {
		t.Fatalf("before the crash: %s, want %s", got, want)
	}
	kv.Crash()
	kv = openTestWAL(t, path, 1<<20)
	if got := read(kv); got != want {
		t.Fatalf("replayed: %s, want %s", got, want)
	}
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	kv = openTestWAL(t, path, 1<<20)
	defer kv.Close()
	if got := read(kv); got != want {
		t.Fatalf("from the data file: %s, want %s", got, want)
	}
}
