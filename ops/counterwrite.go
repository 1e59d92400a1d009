package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
		if l.CountsChanges() {
			it[schema.Changes(f.t.name)] = nextChanges(f.st.parts[0])
		}
		if l.Stamps() {
			it[f.t.rel.ShardStamp()] = &types.AttributeValueMemberN{Value: strconv.Itoa(shardsOf(f.t.rel))}
		}
		if l.WritesIndexKeys() {
			it[l.IndexPK], it[l.IndexSK] = str(f.t.key), str(f.t.key)
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	for i := 0; i < len(reqs); i += batchSize {
		if err := s.writeAll(ctx, reqs[i:min(i+batchSize, len(reqs))], opt.giveUp, opt.stats, ""); err != nil {
			return fmt.Errorf("fix counters: %w", err)
		}
	}
	for _, f := range fixes {
		done(f, f.fixed())
	}
	return nil
}

// nextChanges is what a write of counter part p sets its changes
// attribute to: one more than it held, or 1 when it held no whole number.
func nextChanges(p counterPart) types.AttributeValue {
	var n int64
	if p.changes != nil {
		if v, _, problem := storedNumber(p.changes); problem == "" {
			n = v
		}
	}
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n+1, 10)}
}

// pendingFix is a counter as recounted: its state as read and its count.
type pendingFix struct {
	t      counterTarget
	st     counterState
	actual int64
	res    int // its place in the group, and so of its CounterResult
}

// result is f as found: its counter as read and its count.
func (f pendingFix) result() CounterResult {
	return CounterResult{Relation: f.t.rel.Name, Key: f.t.key, Counter: f.t.name, Stored: f.st.total, Actual: f.actual,
		StoredValue: f.st.value, StoredProblem: f.st.problem}
}

// fixed is f's result once its count is written.
func (f pendingFix) fixed() CounterResult {
	r := f.result()
	r.Fixed = true
	return r
}

// differs reports whether f's counter needs its count written.
func (f pendingFix) differs() bool { return f.actual != f.st.total || f.st.bad }

// fixActions are the transaction actions that set f's counter to its count
// if nothing changed since it was read: the update of its first part, and
// for a counter spread over shards a check of every other part, or its
// removal where it is no whole number. The expressions are written out
// here, not with the expression builder: a recount sends one fix per
// counter, and the builder cost more CPU than the rest of the fix.
func (s *Store) fixActions(f pendingFix) []types.TransactWriteItem {
	table := aws.String(s.schema.Table.Name)
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
	names := map[string]string{"#c": f.t.name}
	values := map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.FormatInt(value, 10)}}
	set := []string{"#c = :n"}
	// The counter item as a link's update leaves it (see sideUpdate): it
	// records the relation's shard count, and a side item is a proper
	// entity item, with the layout's index keys and type where it has them.
	l := s.layout
	if l.Stamps() {
		names["#s"] = f.t.rel.ShardStamp()
		values[":s"] = &types.AttributeValueMemberN{Value: strconv.Itoa(shardsOf(f.t.rel))}
		set = append(set, "#s = :s")
	}
	if f.t.shards <= 1 && l.WritesIndexKeys() {
		names["#ipk"], names["#isk"] = l.IndexPK, l.IndexSK
		values[":k"] = str(f.t.key)
		set = append(set, "#ipk = :k", "#isk = :k")
	}
	if f.t.shards <= 1 && l.Type != "" {
		names["#t"] = l.Type
		values[":t"] = str(f.t.entity)
		set = append(set, "#t = if_not_exists(#t, :t)")
	}
	// The write is a change of the counter like a link's: it moves the
	// changes attribute it conditions on one up (set, not added to, so
	// one that is no number is replaced rather than refused).
	changes := s.layout.CountsChanges()
	if changes {
		set = append(set, "#g = :g")
		values[":g"] = nextChanges(first)
	}
	cond := s.counterUnchanged(f.t.name, first, names, values)
	acts := []types.TransactWriteItem{{Update: &types.Update{
		TableName: table, Key: s.keyOf(first.pk, first.sk),
		UpdateExpression: aws.String("SET " + strings.Join(set, ", ")), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}}}
	for _, p := range f.st.parts[1:] {
		names := map[string]string{}
		vals := map[string]types.AttributeValue{}
		cond := s.counterUnchanged(f.t.name, p, names, vals)
		// A part that is no whole number is not in the total the
		// difference was taken from: it is removed, or the sum would stay
		// wrong however often it is repaired. A changes attribute that is
		// no number is set again, or links to the part stay refused.
		remove := p.raw != nil && badNumber(p.raw)
		var update []string
		if changes && (remove || changesProblem(f.t.name, p.changes) != "") {
			update = append(update, "SET #g = :g")
			vals[":g"] = nextChanges(p)
		}
		if remove {
			update = append(update, "REMOVE #c")
		}
		if len(update) > 0 {
			acts = append(acts, types.TransactWriteItem{Update: &types.Update{
				TableName: table, Key: s.keyOf(p.pk, p.sk), UpdateExpression: aws.String(strings.Join(update, " ")),
				ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: emptyAsNil(vals),
			}})
			continue
		}
		acts = append(acts, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: table, Key: s.keyOf(p.pk, p.sk), ConditionExpression: aws.String(cond),
			ExpressionAttributeNames: names, ExpressionAttributeValues: emptyAsNil(vals),
		}})
	}
	return acts
}

// badNumber reports whether v, a stored counter part, is no whole number.
func badNumber(v types.AttributeValue) bool {
	_, _, problem := storedNumber(v)
	return problem != ""
}

// emptyAsNil is values, or nil when it holds none: DynamoDB refuses an
// empty ExpressionAttributeValues.
func emptyAsNil(values map[string]types.AttributeValue) map[string]types.AttributeValue {
	if len(values) == 0 {
		return nil
	}
	return values
}

// counterUnchanged is the condition that part p of counter still holds
// what was read, and (where the layout counts changes) has recorded no
// change since: a link and an unlink that cancel out on the counter leave
// its value as read, not its changes attribute. It names the counter #c
// and the changes attribute #g, and adds the values it compares with.
func (s *Store) counterUnchanged(counter string, p counterPart, names map[string]string, values map[string]types.AttributeValue) string {
	names["#c"] = counter
	cond := "attribute_not_exists(#c)"
	if p.raw != nil {
		values[":was"] = p.raw
		cond = "#c = :was"
	}
	if !s.layout.CountsChanges() {
		return cond
	}
	names["#g"] = schema.Changes(counter)
	if p.changes == nil {
		return cond + " AND attribute_not_exists(#g)"
	}
	values[":wasg"] = p.changes
	return cond + " AND #g = :wasg"
}

// fixAttempts bounds how often one counter is read, counted and written
// (or read again) while other writers keep changing it.
const fixAttempts = 8

// applyFixes writes the fixes, with opt.batch in transactions of at most
// 100 actions (no item twice in one), else one request each. A fix whose
// condition failed (another writer changed the counter) is read, counted
// and tried again on its own (recountOne).
func (s *Store) applyFixes(ctx context.Context, fixes []pendingFix, opt recountOptions, done func(pendingFix, CounterResult)) error {
	var again []pendingFix
	if !opt.batch {
		for _, f := range fixes {
			failed, err := s.sendFix(ctx, s.fixActions(f), opt)
			if err != nil {
				return err
			}
			if failed {
				again = append(again, f)
				continue
			}
			done(f, f.fixed())
		}
		fixes = nil
	}
	for len(fixes) > 0 {
		var acts []types.TransactWriteItem
		var owner []int
		used := map[[2]string]bool{}
		n := 0
		for ; n < len(fixes); n++ {
			fa := s.fixActions(fixes[n])
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
			done(f, f.fixed())
		}
		fixes = fixes[n:]
	}
	for _, f := range again {
		r, _, err := s.recountOne(ctx, f, opt)
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

// recountOne reads and counts one counter until a read and a count agree
// on it: the counter held the same value before the count and after it,
// which a second read checks, or with fix, where the two differ, the
// condition of the count's write. It gives up after fixAttempts, waiting
// a random while before each (growing from up to 20 ms), so it does not
// keep meeting the same writer in step. wrote says whether this run wrote
// the count.
func (s *Store) recountOne(ctx context.Context, f pendingFix, opt recountOptions) (res CounterResult, wrote bool, err error) {
	// Stored stays the value first read: a fix whose answer was lost after
	// it applied fails its condition when retried and then reads its own
	// count, and the import derives the edges it made from Actual - Stored.
	res = f.result()
	f.t.trusted = false // someone else writes it
	wait := newBackoff(0)
	for range fixAttempts {
		if err := wait.wait(ctx, nil); err != nil {
			return res, false, err
		}
		items, err := s.readCounterItems(ctx, []counterTarget{f.t}, opt, "")
		if err != nil {
			return res, false, err
		}
		f.st = stateOf(f.t, items)
		if f.actual, err = s.settledCount(ctx, f.t, opt); err != nil {
			return res, false, err
		}
		res.Actual = f.actual
		if !opt.fix || !f.differs() {
			again, err := s.readCounterItems(ctx, []counterTarget{f.t}, opt, "")
			if err != nil {
				return res, false, err
			}
			if !sameState(f.st, stateOf(f.t, again)) {
				continue // it moved while it was counted
			}
			if !opt.fix {
				// What verify reports: the counter as it held.
				res.Stored, res.StoredValue, res.StoredProblem = f.st.total, f.st.value, f.st.problem
				return res, false, nil
			}
			// Exact now, by someone else's writes or by our own attempt
			// whose answer was lost: either way no longer the value read.
			res.Fixed = res.Stored != res.Actual
			return res, false, nil
		}
		failed, err := s.sendFix(ctx, s.fixActions(f), opt)
		if err != nil {
			return res, false, err
		}
		if !failed {
			res.Fixed = true
			return res, true, nil
		}
	}
	return res, false, &ConflictError{Msg: fmt.Sprintf("counter %s of %s kept changing while it was recounted (%d attempts); run `adjl counters repair %s` when writes settle",
		f.t.name, f.t.key, fixAttempts, f.t.rel.Name)}
}
