package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Counters are made exact by recounting: read the stored counter (strongly
// consistent), count the edges it counts (Select COUNT Queries, the lists'
// own key conditions), and where they differ write the count with a
// condition that the counter still holds what was read. A link or unlink
// that commits in between changes the counter in its own transaction, so the
// condition fails and that counter is read and counted again. Fixes are
// sent as TransactWriteItems of up to 100 actions (one request instead of
// 100); a counter spread over shards is fixed in one of them, the count's
// difference added to shard 0 with every other shard (and the side item)
// checked unchanged, because only the sum has a meaning.

// counterTarget is one counter of one key.
type counterTarget struct {
	rel    *schema.Relation
	end    schema.End
	key    string
	name   string
	shards int
	entity string // the type a side item created by a fix gets
	// trusted: while the counter reads 0, known is its count, without a
	// Query (an import into a relation that had no edge, see Import).
	trusted bool
	known   int64
	// put: no other writer can write the item meanwhile, and no other
	// counter of the same run is on it, so a fix may write the whole item
	// as read with a BatchWriteItem Put (see recountOptions.exclusive).
	put bool
}

// counterTargetOf is the counter rel keeps at end on key; ok is false when
// that side keeps none.
func counterTargetOf(rel *schema.Relation, end schema.End, key string) (counterTarget, bool) {
	name, shards := rel.Counter(end)
	if name == "" {
		return counterTarget{}, false
	}
	entity := rel.From.Entity.Name
	if end == schema.ToEnd {
		entity = rel.To.Entity.Name
	}
	return counterTarget{rel: rel, end: end, key: key, name: name, shards: shards, entity: entity}, true
}

// parts are the items that hold the counter: the side item, or every shard
// item and then the side item (which may still hold a value from before the
// counter was sharded; reads add it in, see withCounters).
func (t counterTarget) parts() [][2]string {
	if t.shards <= 1 {
		return [][2]string{{t.key, t.key}}
	}
	out := make([][2]string, 0, t.shards+1)
	for k := range t.shards {
		out = append(out, [2]string{t.key, schema.CounterSK(t.name, k)})
	}
	return append(out, [2]string{t.key, t.key})
}

// counterPart is what one item holds of a counter.
type counterPart struct {
	pk, sk string
	raw    types.AttributeValue // nil: the item or attribute is absent
}

// counterState is a counter as read: its parts and their sum.
type counterState struct {
	parts []counterPart
	total int64
	bad   bool // a part is not an integer number: always rewritten
}

func stateOf(t counterTarget, items map[[2]string]Item) counterState {
	var st counterState
	for _, k := range t.parts() {
		p := counterPart{pk: k[0], sk: k[1]}
		if v, ok := items[k][t.name]; ok {
			p.raw = v
			n, isN := v.(*types.AttributeValueMemberN)
			var i int64
			var err error
			if isN {
				i, err = strconv.ParseInt(n.Value, 10, 64)
			}
			if !isN || err != nil {
				st.bad = true
			}
			st.total += i
		}
		st.parts = append(st.parts, p)
	}
	return st
}

// CounterResult is one counter whose stored value differed from its edges.
type CounterResult struct {
	Relation string
	Key      string
	Counter  string
	Stored   int64 // the sum of its items as read; 0 when absent
	Actual   int64 // the edges counted
	Fixed    bool
}

// counterStats counts the requests of a bulk operation, for its report;
// a nil *counterStats counts nothing.
type counterStats struct{ n [len(reqNames)]atomic.Int64 }

// reqKind is an operation counterStats counts.
type reqKind int

const (
	reqQuery reqKind = iota
	reqBatchGet
	reqTransact
	reqScan
	reqBatchWrite
	reqUpdate
)

var reqNames = [...]string{"Query", "BatchGetItem", "TransactWriteItems", "Scan", "BatchWriteItem", "UpdateItem"}

func (c *counterStats) add(k reqKind) {
	if c != nil {
		c.n[k].Add(1)
	}
}

func (c *counterStats) get(k reqKind) int64 { return c.n[k].Load() }

// snapshot is the requests sent, by operation.
func (c *counterStats) snapshot() map[string]int64 {
	out := map[string]int64{}
	for k, name := range reqNames {
		if v := c.n[k].Load(); v > 0 {
			out[name] = v
		}
	}
	return out
}

// recountOptions tune recount.
type recountOptions struct {
	fix     bool
	workers int
	// settle, when positive, makes every index (reverse) count be repeated
	// after this long until two counts agree: DynamoDB updates a global
	// index asynchronously, so a count taken right after a write may miss it.
	settle   time.Duration
	stats    *counterStats
	progress func(done int)
	giveUp   time.Duration
	// batch sends up to 100 fixes in one TransactWriteItems instead of an
	// UpdateItem each: far fewer requests and commits (the embedded engine
	// syncs each commit to disk), but twice the write capacity on DynamoDB
	// and a copy of every table per transaction on moto.
	batch bool
	// exclusive: nobody else writes the table meanwhile (the caller knows
	// or was told). Counter items are then read whole, and an unsharded
	// counter of a target marked put is written by putting its item back
	// with the count, 25 to a BatchWriteItem, without a condition: nothing
	// can have changed the item since it was read.
	exclusive bool
}

// recountGroup bounds the counters read with one BatchGetItem and fixed
// with one TransactWriteItems. Without transactions a group's fixes are
// sent one after the other, so groups are smaller and more run at once.
const (
	recountGroup       = 100
	recountGroupSingle = 20
)

// recount reads, counts and (with fix) corrects the given counters, in
// groups of recountGroup (recountGroupSingle without opt.batch or
// opt.exclusive),
// opt.workers groups at once. It returns the
// counters that differed, in target order.
func (s *Store) recount(ctx context.Context, targets []counterTarget, opt recountOptions) ([]CounterResult, error) {
	if opt.workers <= 0 {
		opt.workers = s.opt.Parallel
	}
	size := recountGroup
	if !opt.batch && !opt.exclusive {
		size = recountGroupSingle
	}
	var mu sync.Mutex
	byGroup := make([][]CounterResult, (len(targets)+size-1)/size)
	var done atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.workers)
	for i := 0; i < len(targets); i += size {
		group := targets[i:min(i+size, len(targets))]
		g.Go(func() error {
			res, err := s.recountGroup(gctx, group, opt)
			mu.Lock()
			byGroup[i/size] = res
			mu.Unlock()
			if opt.progress != nil {
				opt.progress(int(done.Add(int64(len(group)))))
			}
			return err
		})
	}
	err := g.Wait()
	var out []CounterResult
	for _, r := range byGroup {
		out = append(out, r...)
	}
	return out, err
}

// recountGroup handles up to recountGroup counters: one read of their
// items, one count each, one transaction of fixes.
func (s *Store) recountGroup(ctx context.Context, group []counterTarget, opt recountOptions) ([]CounterResult, error) {
	items, err := s.readCounterItems(ctx, group, opt)
	if err != nil {
		return nil, err
	}
	var out []CounterResult
	var fixes []pendingFix
	for _, t := range group {
		st := stateOf(t, items)
		actual := t.known
		if !t.trusted || st.total != 0 || st.bad {
			var err error
			if actual, err = s.settledCount(ctx, t, opt); err != nil {
				return out, err
			}
		}
		if actual == st.total && !st.bad {
			continue
		}
		out = append(out, CounterResult{Relation: t.rel.Name, Key: t.key, Counter: t.name, Stored: st.total, Actual: actual})
		fixes = append(fixes, pendingFix{t: t, st: st, actual: actual, res: len(out) - 1})
	}
	if !opt.fix || len(fixes) == 0 || s.explaining() {
		return out, nil
	}
	done := func(f pendingFix, r CounterResult) { out[f.res] = r }
	if opt.exclusive {
		var puts []pendingFix
		fixes, puts = splitPuts(fixes)
		if err := s.putCounters(ctx, puts, items, opt, done); err != nil {
			return out, err
		}
	}
	err = s.applyFixes(ctx, fixes, opt, done)
	return out, err
}

// splitPuts separates the fixes that may be written with a Put.
func splitPuts(fixes []pendingFix) (rest, puts []pendingFix) {
	for _, f := range fixes {
		if f.t.put && f.t.shards <= 1 {
			puts = append(puts, f)
		} else {
			rest = append(rest, f)
		}
	}
	return rest, puts
}

// putCounters writes fixes by putting each counter's item (as read, whole,
// or new) back with the count and what a fix's update sets (fixActions):
// the shard stamp, the index keys and, where it has none, the type.
func (s *Store) putCounters(ctx context.Context, fixes []pendingFix, items map[[2]string]Item, opt recountOptions, done func(pendingFix, CounterResult)) error {
	l := s.layout
	reqs := make([]types.WriteRequest, 0, len(fixes))
	for _, f := range fixes {
		it := maps.Clone(items[[2]string{f.t.key, f.t.key}])
		if it == nil {
			it = s.keyOf(f.t.key, f.t.key)
		}
		if _, ok := it[l.Type]; !ok && l.Type != "" {
			it[l.Type] = str(f.t.entity)
		}
		it[f.t.name] = &types.AttributeValueMemberN{Value: strconv.FormatInt(f.actual, 10)}
		if l.Stamps() {
			it[f.t.rel.ShardStamp()] = &types.AttributeValueMemberN{Value: strconv.Itoa(shardsOf(f.t.rel))}
		}
		if l.WritesIndexKeys() {
			it[l.IndexPK], it[l.IndexSK] = str(f.t.key), str(f.t.key)
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	for i := 0; i < len(reqs); i += batchSize {
		if err := s.writeAll(ctx, reqs[i:min(i+batchSize, len(reqs))], opt); err != nil {
			return fmt.Errorf("fix counters: %w", err)
		}
	}
	for _, f := range fixes {
		done(f, CounterResult{Relation: f.t.rel.Name, Key: f.t.key, Counter: f.t.name, Stored: f.st.total, Actual: f.actual, Fixed: true})
	}
	return nil
}

// writeAll sends one BatchWriteItem of reqs, sending UnprocessedItems again
// with backoff until none is left.
func (s *Store) writeAll(ctx context.Context, reqs []types.WriteRequest, opt recountOptions) error {
	table := s.schema.Table.Name
	r := newBackoff(opt.giveUp)
	for len(reqs) > 0 {
		out, err := s.batchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		opt.stats.add(reqBatchWrite)
		if err != nil {
			if !retryable(err) {
				return err
			}
			if werr := r.wait(ctx, err); werr != nil {
				return werr
			}
			continue
		}
		left := out.UnprocessedItems[table]
		if len(left) < len(reqs) {
			r.progressed()
		}
		reqs = left
		if len(reqs) > 0 {
			if err := r.wait(ctx, &ThrottledError{Err: fmt.Errorf("BatchWriteItem kept returning %d unprocessed items", len(reqs))}); err != nil {
				return err
			}
		}
	}
	return nil
}

// settledCount counts the edges of t; reverse counts are repeated as
// opt.settle asks.
func (s *Store) settledCount(ctx context.Context, t counterTarget, opt recountOptions) (int64, error) {
	n, err := s.edgeCount(ctx, t.rel, t.end, t.key, opt.stats)
	if err != nil || opt.settle <= 0 || t.end == schema.FromEnd {
		return n, err
	}
	for range 10 {
		if err := sleepCtx(ctx, opt.settle); err != nil {
			return 0, err
		}
		again, err := s.edgeCount(ctx, t.rel, t.end, t.key, opt.stats)
		if err != nil || again == n {
			return again, err
		}
		n = again
	}
	return n, nil
}

// readCounterItems reads every item holding a part of the targets'
// counters with strongly consistent BatchGetItems of at most 100 keys.
func (s *Store) readCounterItems(ctx context.Context, targets []counterTarget, opt recountOptions) (map[[2]string]Item, error) {
	var keys [][2]string
	seen := map[[2]string]bool{}
	names := []string{}
	for _, t := range targets {
		for _, k := range t.parts() {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if !slices.Contains(names, t.name) {
			names = append(names, t.name)
		}
	}
	var ex expression.Expression
	if !opt.exclusive { // exclusive: whole items, to be put back
		proj := expression.NamesList(expression.NameNoDotSplit(s.layout.PK), expression.NameNoDotSplit(s.layout.SK))
		for _, n := range names {
			proj = proj.AddNames(expression.NameNoDotSplit(n))
		}
		var err error
		if ex, err = expression.NewBuilder().WithProjection(proj).Build(); err != nil {
			return nil, fmt.Errorf("build counter read: %w", err)
		}
	}
	items := make(map[[2]string]Item, len(keys))
	for i := 0; i < len(keys); i += 100 {
		var req []map[string]types.AttributeValue
		for _, k := range keys[i:min(i+100, len(keys))] {
			req = append(req, s.keyOf(k[0], k[1]))
		}
		if err := s.batchGetAll(ctx, req, ex, items, opt); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// batchGetAll reads keys, retrying UnprocessedKeys with backoff.
func (s *Store) batchGetAll(ctx context.Context, keys []map[string]types.AttributeValue, ex expression.Expression, into map[[2]string]Item, opt recountOptions) error {
	table := s.schema.Table.Name
	r := newBackoff(opt.giveUp)
	for len(keys) > 0 {
		out, err := s.batchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
			Keys: keys, ConsistentRead: aws.Bool(true),
			ProjectionExpression: ex.Projection(), ExpressionAttributeNames: ex.Names(),
		}}})
		opt.stats.add(reqBatchGet)
		if err != nil {
			if retryable(err) {
				if werr := r.wait(ctx, err); werr != nil {
					return fmt.Errorf("read counters: %w", werr)
				}
				continue
			}
			return fmt.Errorf("read counters: %w", err)
		}
		for _, it := range out.Responses[table] {
			into[[2]string{sOf(it, s.layout.PK), sOf(it, s.layout.SK)}] = it
		}
		left := out.UnprocessedKeys[table].Keys
		if len(left) < len(keys) {
			r.progressed()
		}
		keys = left
		if len(keys) > 0 {
			if err := r.wait(ctx, &ThrottledError{Err: errors.New("BatchGetItem kept returning UnprocessedKeys")}); err != nil {
				return fmt.Errorf("read counters: %w", err)
			}
		}
	}
	return nil
}

// pendingFix is a counter to write: its state as read and its count.
type pendingFix struct {
	t      counterTarget
	st     counterState
	actual int64
	res    int // index of its CounterResult
}

// fixActions are the transaction actions that set f's counter to its count
// if nothing changed since it was read.
func (s *Store) fixActions(f pendingFix) ([]types.TransactWriteItem, error) {
	table := aws.String(s.schema.Table.Name)
	name := expression.NameNoDotSplit(f.t.name)
	unchanged := func(p counterPart) expression.ConditionBuilder {
		if p.raw == nil {
			return expression.AttributeNotExists(name)
		}
		return expression.Equal(name, expression.Value(p.raw))
	}
	var acts []types.TransactWriteItem
	// The part written: the side item, or shard 0 by the difference.
	first := f.st.parts[0]
	value := f.actual
	if f.t.shards > 1 {
		value = f.actual - f.st.total
		if n, ok := first.raw.(*types.AttributeValueMemberN); ok {
			if v, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
				value += v
			}
		}
	}
	upd := expression.Set(name, expression.Value(&types.AttributeValueMemberN{Value: strconv.FormatInt(value, 10)}))
	// The counter item as a link's update leaves it (see sideUpdate): it
	// records the relation's shard count, and a side item is a proper
	// entity item, with the layout's index keys and type where it has them.
	l := s.layout
	if l.Stamps() {
		upd = upd.Set(expression.NameNoDotSplit(f.t.rel.ShardStamp()), expression.Value(shardsOf(f.t.rel)))
	}
	if f.t.shards <= 1 && l.WritesIndexKeys() {
		upd = upd.Set(expression.NameNoDotSplit(l.IndexPK), expression.Value(f.t.key)).
			Set(expression.NameNoDotSplit(l.IndexSK), expression.Value(f.t.key))
	}
	if f.t.shards <= 1 && l.Type != "" {
		upd = upd.Set(expression.Name(l.Type), expression.IfNotExists(expression.Name(l.Type), expression.Value(f.t.entity)))
	}
	ex, err := expression.NewBuilder().WithUpdate(upd).WithCondition(unchanged(first)).Build()
	if err != nil {
		return nil, fmt.Errorf("build counter fix: %w", err)
	}
	acts = append(acts, types.TransactWriteItem{Update: &types.Update{
		TableName: table, Key: s.keyOf(first.pk, first.sk),
		UpdateExpression: ex.Update(), ConditionExpression: ex.Condition(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}})
	for _, p := range f.st.parts[1:] {
		ex, err := expression.NewBuilder().WithCondition(unchanged(p)).Build()
		if err != nil {
			return nil, fmt.Errorf("build counter check: %w", err)
		}
		acts = append(acts, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: table, Key: s.keyOf(p.pk, p.sk), ConditionExpression: ex.Condition(),
			ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
		}})
	}
	return acts, nil
}

// fixAttempts bounds how often one counter is read, counted and written
// again while other writers keep changing it.
const fixAttempts = 8

// applyFixes writes the fixes, with opt.batch in transactions of at most
// 100 actions (no item twice in one), else one request each. A fix whose
// condition failed (another writer changed the counter) is read, counted
// and tried again on its own.
func (s *Store) applyFixes(ctx context.Context, fixes []pendingFix, opt recountOptions, done func(pendingFix, CounterResult)) error {
	var again []pendingFix
	if !opt.batch {
		for _, f := range fixes {
			acts, err := s.fixActions(f)
			if err != nil {
				return err
			}
			failed, err := s.sendFix(ctx, acts, opt)
			if err != nil {
				return err
			}
			if failed {
				again = append(again, f)
				continue
			}
			done(f, CounterResult{Relation: f.t.rel.Name, Key: f.t.key, Counter: f.t.name, Stored: f.st.total, Actual: f.actual, Fixed: true})
		}
		fixes = nil
	}
	for len(fixes) > 0 {
		var acts []types.TransactWriteItem
		var owner []int
		used := map[[2]string]bool{}
		n := 0
		for ; n < len(fixes); n++ {
			fa, err := s.fixActions(fixes[n])
			if err != nil {
				return err
			}
			collides := false
			for _, p := range fixes[n].st.parts {
				collides = collides || used[[2]string{p.pk, p.sk}]
			}
			if len(acts)+len(fa) > 100 || collides {
				break
			}
			for _, p := range fixes[n].st.parts {
				used[[2]string{p.pk, p.sk}] = true
			}
			acts = append(acts, fa...)
			for range fa {
				owner = append(owner, n)
			}
		}
		failed, err := s.sendFixes(ctx, acts, owner, opt)
		if err != nil {
			return err
		}
		for i, f := range fixes[:n] {
			if slices.Contains(failed, i) {
				again = append(again, f)
				continue
			}
			done(f, CounterResult{Relation: f.t.rel.Name, Key: f.t.key, Counter: f.t.name, Stored: f.st.total, Actual: f.actual, Fixed: true})
		}
		fixes = fixes[n:]
	}
	for _, f := range again {
		r, err := s.fixOne(ctx, f, opt)
		if err != nil {
			return err
		}
		done(f, r)
	}
	return nil
}

// sendFixes sends one transaction of fixes; it returns the fixes (indexes
// into the batch) whose conditions failed, all others being written, or
// retries the whole transaction after a conflict or throttling.
func (s *Store) sendFixes(ctx context.Context, acts []types.TransactWriteItem, owner []int, opt recountOptions) ([]int, error) {
	r := newBackoff(opt.giveUp)
	for {
		_, err := s.transact(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		opt.stats.add(reqTransact)
		if err == nil {
			return nil, nil
		}
		var tce *types.TransactionCanceledException
		if errors.As(err, &tce) {
			var failed []int
			for i, reason := range tce.CancellationReasons {
				if aws.ToString(reason.Code) == "ConditionalCheckFailed" && i < len(owner) && !slices.Contains(failed, owner[i]) {
					failed = append(failed, owner[i])
				}
			}
			if len(failed) > 0 {
				// The others were not written either: send them again.
				var keep []types.TransactWriteItem
				var keepOwner []int
				for i, a := range acts {
					if !slices.Contains(failed, owner[i]) {
						keep = append(keep, a)
						keepOwner = append(keepOwner, owner[i])
					}
				}
				if len(keep) > 0 {
					more, err := s.sendFixes(ctx, keep, keepOwner, opt)
					if err != nil {
						return nil, err
					}
					failed = append(failed, more...)
				}
				return failed, nil
			}
		}
		if !retryable(err) {
			return nil, fmt.Errorf("fix counters: %w", err)
		}
		if werr := r.wait(ctx, err); werr != nil {
			return nil, fmt.Errorf("fix counters: %w", werr)
		}
	}
}

// sendFix sends the actions of one fix: a lone Update as an UpdateItem, a
// sharded counter's update and checks as one transaction. failed reports a
// condition that did not hold.
func (s *Store) sendFix(ctx context.Context, acts []types.TransactWriteItem, opt recountOptions) (bool, error) {
	if len(acts) != 1 || acts[0].Update == nil {
		failed, err := s.sendFixes(ctx, acts, make([]int, len(acts)), opt)
		return len(failed) > 0, err
	}
	u := acts[0].Update
	r := newBackoff(opt.giveUp)
	for {
		_, err := s.updateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
			ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
		})
		opt.stats.add(reqUpdate)
		switch {
		case err == nil:
			return false, nil
		case conditionFailed(err):
			return true, nil
		case !retryable(err):
			return false, fmt.Errorf("fix counter: %w", err)
		}
		if werr := r.wait(ctx, err); werr != nil {
			return false, fmt.Errorf("fix counter: %w", werr)
		}
	}
}

// fixOne reads, counts and writes one counter until its condition holds,
// at most fixAttempts times.
func (s *Store) fixOne(ctx context.Context, f pendingFix, opt recountOptions) (CounterResult, error) {
	res := CounterResult{Relation: f.t.rel.Name, Key: f.t.key, Counter: f.t.name}
	f.t.trusted = false // its condition failed: someone else writes it
	for range fixAttempts {
		items, err := s.readCounterItems(ctx, []counterTarget{f.t}, opt)
		if err != nil {
			return res, err
		}
		f.st = stateOf(f.t, items)
		if f.actual, err = s.settledCount(ctx, f.t, opt); err != nil {
			return res, err
		}
		res.Stored, res.Actual = f.st.total, f.actual
		if f.actual == f.st.total && !f.st.bad {
			return res, nil // someone else's writes made it exact
		}
		acts, err := s.fixActions(f)
		if err != nil {
			return res, err
		}
		failed, err := s.sendFix(ctx, acts, opt)
		if err != nil {
			return res, err
		}
		if !failed {
			res.Fixed = true
			return res, nil
		}
	}
	return res, &ConflictError{Msg: fmt.Sprintf("counter %s of %s kept changing while it was recounted (%d attempts); run `adjl counters repair %s` when writes settle",
		f.t.name, f.t.key, fixAttempts, f.t.rel.Name)}
}
