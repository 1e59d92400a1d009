package local

import (
	"bytes"
	"time"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

func init() {
	operations["DescribeTimeToLive"] = (*Engine).describeTimeToLive
	operations["UpdateTimeToLive"] = (*Engine).updateTimeToLive
}

// sweepInterval is how often expired items and idempotency tokens are removed.
// DynamoDB itself only promises deletion within days; reads still return
// expired items until they are swept, as on AWS.
const sweepInterval = 30 * time.Second

// sweepBatch bounds the deletions of one sweep transaction, so a sweep never
// holds the writer lock for long.
const sweepBatch = 1000

func (e *Engine) describeTimeToLive(body []byte) ([]byte, error) {
	t, err := e.namedTable(body)
	if err != nil {
		return nil, err
	}
	return encodeResponse(struct{ TimeToLiveDescription ttlDesc }{t.stored.TTL})
}

type ttlSpec struct {
	Enabled       *bool
	AttributeName string
}

func (e *Engine) updateTimeToLive(body []byte) ([]byte, error) {
	var in struct {
		TableName               string
		TimeToLiveSpecification *ttlSpec
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil || spec.Enabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	if spec.AttributeName == "" {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	}
	_, err := e.alterTable(in.TableName, func(_ kv.Tx, _ *table, st *storedTable) error {
		enabled := st.TTL.TimeToLiveStatus == "ENABLED"
		switch {
		case *spec.Enabled && enabled:
			return validationf("TimeToLive is already enabled")
		case !*spec.Enabled && !enabled:
			return validationf("TimeToLive is already disabled")
		case !*spec.Enabled && spec.AttributeName != st.TTL.AttributeName:
			return validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", st.TTL.AttributeName)
		}
		if *spec.Enabled {
			st.TTL = ttlDesc{AttributeName: spec.AttributeName, TimeToLiveStatus: "ENABLED"}
		} else {
			st.TTL = ttlDesc{TimeToLiveStatus: "DISABLED"}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return encodeResponse(struct{ TimeToLiveSpecification ttlSpec }{*spec})
}

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
