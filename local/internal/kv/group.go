package kv

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Group commits the writes of concurrent callers together. Each call to Do
// queues its write function; one caller at a time (the leader) runs
// everything queued so far in a single transaction — one log record and one
// fsync for all of them — while later arrivals queue for the next round.
// The leader hands on leadership as soon as its round is written, before
// waiting for the fsync, so the next round's work overlaps it; every call
// still returns only once durable. A lone writer commits at once, so there
// is no added latency. While other requests are being served (Busy), a new
// leader yields once before it takes the queue (and the log's syncer before
// it notes what to sync, see walLog.syncTo), so writers that are already
// runnable join this round rather than the next.
//
// A write function must not write before it has decided to succeed: an
// error returned before any write fails that call alone; an error after a
// write aborts the round, which is then re-run one call per transaction.
//
// W is what one round's write functions share inside its transaction (the
// engine's item writer: index updates, count deltas).
type Group[W any] struct {
	db    DB
	round Round[W]
	busy  func() bool

	mu     sync.Mutex
	queue  []*job[W]
	leader bool // a round is being run

	rounds, jobs atomic.Int64 // how much was shared: see Stats
}

// Round says how a Group's rounds begin and end.
type Round[W any] struct {
	// Begin makes the state a round's write functions share, inside its
	// transaction.
	Begin func(tx Tx) W
	// Writes counts the writes made through w so far, to tell a write
	// function that failed cleanly from one that failed after writing.
	Writes func(w W) int
	// Finish runs after the round's write functions, before the commit.
	Finish func(w W) error
}

// NewGroup returns a group committer over db. busy reports whether other
// requests than the caller's are being served (nil: never).
func NewGroup[W any](db DB, round Round[W], busy func() bool) *Group[W] {
	if busy == nil {
		busy = func() bool { return false }
	}
	return &Group[W]{db: db, round: round, busy: busy}
}

// GroupStats counts a Group's commits.
type GroupStats struct {
	Rounds int64 // transactions committed
	Jobs   int64 // write functions run in them
}

// Stats returns how many rounds and write functions the group has run.
func (g *Group[W]) Stats() GroupStats {
	return GroupStats{Rounds: g.rounds.Load(), Jobs: g.jobs.Load()}
}

type job[W any] struct {
	fn   func(w W) error
	err  error
	wake chan bool // true: become leader; false: done, err is set
}

var errRoundAborted = errors.New("group commit round aborted")

// Do runs fn in a write transaction shared with concurrent callers and
// returns once the transaction is durable.
func (g *Group[W]) Do(fn func(w W) error) error {
	j := &job[W]{fn: fn, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, j)
	if g.leader {
		g.mu.Unlock()
		if lead := <-j.wake; !lead {
			return j.err
		}
		g.mu.Lock()
	} else {
		g.leader = true
		if g.busy() {
			// Other requests may be about to queue: let those that are
			// runnable run first, so that this round (one transaction, one
			// log record) carries them too. A lone writer does not yield.
			g.mu.Unlock()
			runtime.Gosched()
			g.mu.Lock()
		}
	}
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()

	durable, panicked := g.runRoundSafely(batch)

	// The next round may start while this one's commit reaches the disk.
	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].wake <- true // hand leadership to the oldest waiter
	} else {
		g.leader = false
	}
	g.mu.Unlock()
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
		panic(panicked) // the leader's own call reports the bug
	}
	return j.err
}

// runRoundSafely is runRound that survives a panic (a bug) in one write
// function: the round's calls fail with an internal error and the group
// goes on, instead of every later writer waiting for ever.
func (g *Group[W]) runRoundSafely(batch []*job[W]) (durable func() error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("a request committed with this one failed: %v", p)
			for _, o := range batch {
				o.err = err
			}
			durable, panicked = noWait, p
		}
	}()
	return g.runRound(batch), nil
}

// runRound commits batch in one transaction, or one by one if a write
// function failed after writing, and returns a function that waits until
// what it committed is durable.
func (g *Group[W]) runRound(batch []*job[W]) (durable func() error) {
	g.rounds.Add(1)
	g.jobs.Add(int64(len(batch)))
	durable, err := g.db.Commit(func(tx Tx) error {
		w := g.round.Begin(tx)
		for _, j := range batch {
			before := g.round.Writes(w)
			j.err = j.fn(w)
			if j.err != nil && g.round.Writes(w) != before {
				return errRoundAborted
			}
		}
		return g.round.Finish(w)
	})
	if err == nil {
		return durable
	}
	if len(batch) == 1 && err != errRoundAborted {
		batch[0].err = err
		return noWait
	}
	for _, j := range batch {
		j.err = g.db.Update(func(tx Tx) error {
			w := g.round.Begin(tx)
			if err := j.fn(w); err != nil {
				return err
			}
			return g.round.Finish(w)
		})
	}
	return noWait
}
