package local

import (
	"bytes"
	"time"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// sweepInterval is how often expired items and idempotency tokens are removed.
// DynamoDB itself only promises deletion within days; reads still return
// expired items until they are swept, as on AWS.
const sweepInterval = 30 * time.Second

// sweepBatch bounds the deletions of one sweep transaction, so a sweep never
// holds the writer lock for long.
const sweepBatch = 1000

// sweeper periodically deletes expired items and idempotency tokens until
// Close.
func (e *Engine) sweeper() {
	defer e.sweeping.Done()
	tick := time.NewTicker(sweepInterval)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
			e.sweep()
		}
	}
}

// sweep runs one pass over every table with TTL enabled.
func (e *Engine) sweep() {
	now := e.now()
	expireTokens(e.db, now)
	e.mu.RLock()
	var ts []*table
	for _, t := range e.tables {
		if t.stored.TTL.TimeToLiveStatus == "ENABLED" {
			ts = append(ts, t)
		}
	}
	e.mu.RUnlock()
	for _, t := range ts {
		for {
			select {
			case <-e.stop:
				return
			default:
			}
			n, err := e.sweepTable(t, now)
			if err != nil || n < sweepBatch {
				break
			}
		}
	}
}

// sweepTable deletes up to sweepBatch expired items of t. It looks in a
// read transaction first, so an idle data file is never written (or synced).
func (e *Engine) sweepTable(t *table, now time.Time) (int, error) {
	name := t.stored.TTL.AttributeName
	nowSec := attr.Int(now.Unix())
	var keys [][]byte
	err := e.db.View(func(tx kv.Tx) error {
		b := tx.Bucket(t.bucket)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil && len(keys) < sweepBatch; k, v = c.Next() {
			it, err := attr.DecodeItem(v)
			if err != nil {
				return err
			}
			if expired(it[name], nowSec) {
				keys = append(keys, bytes.Clone(k))
			}
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	n := 0
	err = e.update(func(w *writer) error {
		n = 0
		if e.lookup(t.name) != t {
			return nil // deleted or changed meanwhile; the next sweep sees it
		}
		for _, k := range keys {
			old, err := getItem(w.tx, t, k)
			if err != nil {
				return err
			}
			if old == nil || !expired(old[name], nowSec) {
				continue // changed since the look
			}
			if err := w.del(t, primaryKey{enc: k}, old); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// expired reports whether a TTL attribute value lies in the past. Only N
// values count; DynamoDB ignores other types and values more than five years
// in the past.
func expired(v attr.Value, now attr.Value) bool {
	if v.Kind != attr.N {
		return false
	}
	if attr.Compare(v, now) > 0 {
		return false
	}
	fiveYears := attr.Int(time.Now().AddDate(-5, 0, 0).Unix())
	return attr.Compare(v, fiveYears) >= 0
}
