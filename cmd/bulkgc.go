package cmd

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Bulk commands (import, export, counters) sending to a server allocate a
// few short-lived objects per row. With Go's default GOGC=100 and a small
// live heap the collector runs every few megabytes: profiled against
// `adjl local serve` on two shared cores, its marking took 12.6% of an
// import's CPU and its allocation slow paths more, and that CPU is the
// server's too. While the live heap stays under bulkLiveCeiling these
// commands let the heap grow to five times what is live, bounded by
// bulkMemoryLimit, twice the ceiling: the heap may then always grow to at
// least twice what is live, as with the default, so the limit never makes
// the collector run more often than the default would. Past the ceiling
// (millions of entities to recount) the defaults come back.
//
// With the embedded engine in this process on its data file, the process
// runs under engineMemoryLimit already, and these commands only raise
// GOGC: the collector's goal is then five times what is live or what the
// limit leaves the heap, whichever is less, rather than twice what is live.
// No ceiling is needed: that goal is never above the one the limit alone
// gives, and once twice what is live passes what the limit leaves (about
// half the limit live) both settings give the same goal, so the collector
// never runs more often than with the default. The limit stays soft, as
// before: a live heap that needs more goes past it.
// bench/results/2026-12-01-bulk-gc.md has the figures.
const (
	bulkGCPercent   = 400
	bulkLiveCeiling = 64 << 20
	bulkMemoryLimit = 2 * bulkLiveCeiling
	bulkLivePoll    = 100 * time.Millisecond
)

// tuneGCForBulk raises the collector's target for a bulk command whose
// backend is open, and returns what puts the previous settings back. GOGC
// or GOMEMLIMIT in the environment win; the in-memory engine in process,
// which has no memory limit, keeps the defaults.
func (a *app) tuneGCForBulk() (restore func()) {
	if a.be == nil || envValue(a.getenv, "GOGC") != "" || envValue(a.getenv, "GOMEMLIMIT") != "" {
		return func() {}
	}
	if a.be.exclusive {
		if !a.be.memoryLimited {
			return func() {}
		}
		old := debug.SetGCPercent(bulkGCPercent)
		return func() { debug.SetGCPercent(old) }
	}
	return raiseGC(bulkGCPercent, bulkMemoryLimit, bulkLiveCeiling, bulkLivePoll)
}

// raiseGC sets GOGC to percent and the memory limit to limit until restore
// is called or, checked every poll, the live heap passes ceiling.
func raiseGC(percent int, limit, ceiling int64, poll time.Duration) (restore func()) {
	oldPercent := debug.SetGCPercent(percent)
	oldLimit := debug.SetMemoryLimit(limit)
	var once sync.Once
	back := func() {
		once.Do(func() {
			debug.SetGCPercent(oldPercent)
			debug.SetMemoryLimit(oldLimit)
		})
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > uint64(ceiling) {
				back()
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		back()
	}
}
