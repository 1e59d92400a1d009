package kv

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adjl/adjl/local/internal/testkit"
)

// TestSyncToCoversItsRecord drives the log directly: concurrent
// writers append records (under a lock, as the store's write lock) and wait
// in syncTo; each returns only once durable covers its record, every fsync
// covers a record no earlier one did, and when the file fails under them
// every waiter returns (an error, or success for a record already durable)
// rather than hanging.
func TestSyncToCoversItsRecord(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail=", fail), func(t *testing.T) {
			l, _, err := openLog(filepath.Join(t.TempDir(), "wal"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.f.Close()
			var writeMu sync.Mutex
			var records, failures, late int64
			var wg sync.WaitGroup
			payload := appendOp(nil, opPut, []byte("x/t/i"), []byte("key"), []byte{})
			for g := range 8 {
				wg.Go(func() {
					for i := 0; i < 40; i++ {
						writeMu.Lock()
						if fail && g == 0 && i == 20 {
							l.f.Close() // the file fails under the others
						}
						lsn, err := l.write(payload)
						if err == nil {
							records++
						}
						writeMu.Unlock()
						if err != nil {
							return
						}
						err = l.syncTo(lsn, true)
						l.syncMu.Lock()
						durable := l.durable
						l.syncMu.Unlock()
						if err != nil {
							writeMu.Lock()
							failures++
							writeMu.Unlock()
							return
						}
						if durable < lsn {
							writeMu.Lock()
							late++
							writeMu.Unlock()
							t.Errorf("syncTo(%d) returned with durable %d", lsn, durable)
							return
						}
					}
				})
			}
			testkit.WaitOrDump(t, 20*time.Second, "syncTo waiters hung", wg.Wait)
			if n := l.syncs.Load(); n > records || n == 0 {
				t.Fatalf("%d fsyncs for %d records", n, records)
			}
			if !fail && (records != 320 || failures != 0) {
				t.Fatalf("%d records, %d failures", records, failures)
			}
			if fail && records >= 320 {
				t.Fatalf("%d records written to a closed file", records)
			}
			t.Logf("%d records, %d fsyncs, %d failed waits", records, l.syncs.Load(), failures)
		})
	}
}
