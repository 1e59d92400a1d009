package local

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Group commit. Every item write goes through Engine.update, which queues the
// request's write function; one caller at a time (the leader) runs everything
// queued so far in a single transaction — one fsync for all of them — while
// later arrivals queue for the next round. The leader hands on leadership as
// soon as its round is written, before waiting for the fsync, so the next
// round's work overlaps it; every request still returns only once durable.
// A lone writer commits at once, so there is no added latency; concurrent
// writers (import workers, server clients) share fsyncs instead of waiting
// for one each. While other requests are being served, a new leader yields
// once before it takes the queue (and the log's syncer before it notes what
// to sync, see walLog.syncTo), so writers that are already runnable join
// this round rather than the next.
//
// A write function must not write before it has decided to succeed: an error
// returned before any write fails that request alone; an error after a write
// aborts the round, which is then re-run one request per transaction.

type commitJob struct {
	fn   func(w *writer) error
	err  error
	wake chan bool // true: become leader; false: done, err is set
}

type committer struct {
	mu    sync.Mutex
	queue []*commitJob
	busy  bool

	rounds, jobs atomic.Int64 // for tests: how much was shared
}

var errRoundAborted = errors.New("group commit round aborted")

// update runs fn in a write transaction shared with concurrent callers.
func (e *Engine) update(fn func(w *writer) error) error {
	c := &e.commits
	j := &commitJob{fn: fn, wake: make(chan bool, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, j)
	if c.busy {
		c.mu.Unlock()
		if lead := <-j.wake; !lead {
			return j.err
		}
		c.mu.Lock()
	} else {
		c.busy = true
		if e.othersServed() {
			// Other requests may be about to queue: let those that are
			// runnable run first, so that this round (one transaction, one
			// log record) carries them too. A lone writer does not yield.
			c.mu.Unlock()
			runtime.Gosched()
			c.mu.Lock()
		}
	}
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()

	durable, panicked := e.runRoundSafely(batch)

	// The next round may start while this one's commit reaches the disk.
	c.mu.Lock()
	if len(c.queue) > 0 {
		c.queue[0].wake <- true // hand leadership to the oldest waiter
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	if err := durable(); err != nil {
		for _, o := range batch {
			if o.err == nil {
				o.err = err
			}
		}
	}
	for _, o := range batch {
		if o != j {
			o.wake <- false
		}
	}
	if panicked != nil {
		panic(panicked) // the leader's own request reports the bug
	}
	return j.err
}

// runRoundSafely is runRound that survives a panic (a bug) in one request's
// function: the round's requests fail with an internal error and the
// committer goes on, instead of every later writer waiting for ever.
func (e *Engine) runRoundSafely(batch []*commitJob) (durable func() error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("a request committed with this one failed: %v", p)
			for _, o := range batch {
				o.err = err
			}
			durable, panicked = noWait, p
		}
	}()
	return e.runRound(batch), nil
}

// runRound commits batch in one transaction, or one by one if a request
// failed after writing, and returns a function that waits until what it
// committed is durable.
func (e *Engine) runRound(batch []*commitJob) (durable func() error) {
	e.commits.rounds.Add(1)
	e.commits.jobs.Add(int64(len(batch)))
	durable, err := e.db.Commit(func(tx kvTx) error {
		w := newWriter(e, tx)
		for _, j := range batch {
			before := w.writes
			j.err = j.fn(w)
			if j.err != nil && w.writes != before {
				return errRoundAborted
			}
		}
		return w.flush()
	})
	if err == nil {
		return durable
	}
	if len(batch) == 1 && err != errRoundAborted {
		batch[0].err = err
		return noWait
	}
	for _, j := range batch {
		j.err = e.db.Update(func(tx kvTx) error {
			w := newWriter(e, tx)
			if err := j.fn(w); err != nil {
				return err
			}
			return w.flush()
		})
	}
	return noWait
}
