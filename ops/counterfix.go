package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Counters are made exact by recounting: read the stored counter (strongly
// consistent), count the edges it counts (Select COUNT Queries, the lists'
// own key conditions), and where they differ write the count with a
// condition that the counter still holds what was read; where they agree
// (and in verify, always) read the counter again. A link or unlink that
// commits in between changes the counter and adds 1 to its changes
// attribute (schema.ChangesPrefix) in its own transaction, so the
// condition fails or the second read differs, even where links and unlinks
// cancelled out on the counter, and that counter is read and counted
// again. What this cannot see: writers that leave the changes attribute
// alone (the inverted layout keeps none), and edges written without their
// counters (another import) meanwhile; README, "With other writers at the
// same time". Fixes are
// sent as TransactWriteItems of up to 100 actions (one request instead of
// 100); a counter spread over shards is fixed in one of them, the count's
// difference added to shard 0 with every other shard (and the side item)
// checked unchanged, because only the sum has a meaning; a part that is no
// whole number is removed in the same transaction, as the difference was
// taken without it.

// counterTarget is one counter of one key.
type counterTarget struct {
	rel    *schema.Relation
	end    schema.End
	key    string
	name   string
	shards int
	entity string // the type a side item created by a fix gets
	// trusted: while no part of the counter exists, known is its count,
	// without a Query (an import into a relation that had no edge, see
	// Import). A counter at 0 is not enough: a link of one of the file's
	// edges before the import wrote it, and its unlink after, leave 0 and
	// one edge fewer than the file gives; every link and unlink leaves the
	// attribute behind.
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
	// changes is the part's changes attribute (schema.ChangesPrefix), nil
	// where it is absent or the layout keeps none.
	changes types.AttributeValue
}

// counterState is a counter as read: its parts and their sum.
type counterState struct {
	parts  []counterPart
	total  int64 // the sum of the parts that are whole numbers
	bad    bool  // a part, or its changes attribute, is no count: always rewritten
	absent bool  // no part holds the counter
	// value and problem, when bad: see CounterResult.
	value, problem string
}

func stateOf(t counterTarget, items map[[2]string]Item) counterState {
	st := counterState{absent: true}
	var texts, problems []string
	for _, k := range t.parts() {
		p := counterPart{pk: k[0], sk: k[1], changes: items[k][schema.Changes(t.name)]}
		if v, ok := items[k][t.name]; ok {
			p.raw, st.absent = v, false
			n, text, problem := storedNumber(v)
			if problem == "" {
				st.total += n
			} else {
				st.bad = true
				if !slices.Contains(problems, problem) {
					problems = append(problems, problem)
				}
			}
			texts = append(texts, text)
		}
		if problem := changesProblem(t.name, p.changes); problem != "" {
			// Links refuse to add to it until a fix sets it again.
			st.bad = true
			if !slices.Contains(problems, problem) {
				problems = append(problems, problem)
			}
		}
		st.parts = append(st.parts, p)
	}
	if st.bad {
		st.value, st.problem = strings.Join(texts, " + "), strings.Join(problems, "; ")
		if st.value == "" {
			st.value = strconv.FormatInt(st.total, 10)
		}
	}
	return st
}

// changesProblem says what is wrong with v, counter's changes attribute
// (schema.ChangesPrefix) as stored, when it holds something other than a
// number: a hand edit, which every link and unlink of the counter refuses
// to add to (CounterNotNumberError). "" when it is absent or a number.
func changesProblem(counter string, v types.AttributeValue) string {
	if _, isNum := v.(*types.AttributeValueMemberN); v == nil || isNum {
		return ""
	}
	_, text, problem := storedNumber(v)
	return fmt.Sprintf("%s holds %s, %s", schema.Changes(counter), text, problem)
}

// storedNumber is a stored counter part: its count n when it is a whole
// number that fits an int64 (problem ""), else as text and what makes it no
// counter.
func storedNumber(v types.AttributeValue) (n int64, text, problem string) {
	switch x := v.(type) {
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(x.Value, 10, 64)
		switch {
		case err == nil:
			return n, x.Value, ""
		case errors.Is(err, strconv.ErrRange):
			return 0, x.Value, "out of range"
		}
		return 0, x.Value, "not a whole number"
	case *types.AttributeValueMemberS:
		return 0, x.Value, "a string, not a number"
	case *types.AttributeValueMemberBOOL:
		return 0, strconv.FormatBool(x.Value), "a boolean, not a number"
	}
	kind, ok := typeNames[avType(v)]
	if !ok {
		kind = avType(v)
	}
	return 0, valueText(v), "a " + kind + ", not a number"
}

// typeNames name the attribute types a counter part can hold besides
// numbers, strings and booleans, as messages say them.
var typeNames = map[string]string{
	"SS": "string set", "NS": "number set", "BS": "binary set",
	"L": "list", "M": "map", "B": "binary value", "NULL": "null value",
}

// valueText is v as JSON (numbers as stored, sets as arrays, binary as
// base64), cut to 40 characters: enough to recognise a hand edit in a
// message.
func valueText(v types.AttributeValue) string {
	plain, err := PlainValue(v)
	if err != nil {
		return avType(v)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain); err != nil {
		return avType(v)
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if utf8.RuneCountInString(text) <= 40 {
		return text
	}
	cut := 0
	for range 37 {
		_, n := utf8.DecodeRuneInString(text[cut:])
		cut += n
	}
	return text[:cut] + "..."
}

// CounterResult is one counter whose stored value differed from its edges.
type CounterResult struct {
	Relation string
	Key      string
	Counter  string
	Stored   int64 // the sum of its items' whole numbers as first read; 0 when absent
	Actual   int64 // the edges counted
	Fixed    bool  // it now holds Actual (by this run's write, or another's)
	// StoredValue is set when a part of the counter is not a whole number,
	// or its changes attribute no number: the parts as stored, as text
	// ("x", "10.5", "3 + x" over shards), and StoredProblem says what is
	// wrong with them ("not a whole number").
	StoredValue, StoredProblem string
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
	// counted, when set, is told every target's count as first taken,
	// whether or not it differs from the stored value (from several
	// goroutines at once).
	counted func(t counterTarget, actual int64)
	giveUp  time.Duration
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
// items, one count each, one transaction of fixes, and one more read of
// the counters it does not write. A count is taken as a counter's edges
// only when the counter held the same value before and after it: a fix
// writes on that condition, and a counter that needs no fix (without fix,
// every counter) is read again after its count (see confirmCounts).
func (s *Store) recountGroup(ctx context.Context, group []counterTarget, opt recountOptions) ([]CounterResult, error) {
	results := make([]*CounterResult, len(group))
	collect := func() []CounterResult {
		var out []CounterResult
		for _, r := range results {
			if r != nil {
				out = append(out, *r)
			}
		}
		return out
	}
	items, err := s.readCounterItems(ctx, group, opt, "")
	if err != nil {
		return nil, err
	}
	var fixes, counted []pendingFix
	for i, t := range group {
		f := pendingFix{t: t, st: stateOf(t, items), actual: t.known, res: i}
		if !t.trusted || !f.st.absent {
			if f.actual, err = s.settledCount(ctx, t, opt); err != nil {
				return collect(), err
			}
		}
		if opt.counted != nil {
			opt.counted(t, f.actual)
		}
		if !opt.fix || !f.differs() {
			counted = append(counted, f)
			continue
		}
		r := f.result()
		results[i] = &r
		fixes = append(fixes, f)
	}
	if err := s.confirmCounts(ctx, counted, opt, results); err != nil {
		return collect(), err
	}
	if !opt.fix || len(fixes) == 0 || s.explaining() {
		return collect(), nil
	}
	done := func(f pendingFix, r CounterResult) { results[f.res] = &r }
	if opt.exclusive {
		var puts []pendingFix
		fixes, puts = splitPuts(fixes)
		if err := s.putCounters(ctx, puts, items, opt, done); err != nil {
			return collect(), err
		}
	}
	err = s.applyFixes(ctx, fixes, opt, done)
	return collect(), err
}

// confirmCounts reads the counters of counted once more: one that still
// holds what was read before its count is as counted, and goes into
// results if it differs; one that moved was changed by another writer
// while it was counted, so that count proves nothing (a counter one short
// whose entity lost an edge meanwhile reads as exact) and it is recounted
// on its own. Nobody else writes in exclusive mode: nothing to confirm.
func (s *Store) confirmCounts(ctx context.Context, counted []pendingFix, opt recountOptions, results []*CounterResult) error {
	var again map[[2]string]Item
	if len(counted) > 0 && !opt.exclusive {
		targets := make([]counterTarget, len(counted))
		for i, f := range counted {
			targets[i] = f.t
		}
		var err error
		again, err = s.readCounterItems(ctx, targets, opt, "the counters not written, again: none may have moved while it was counted")
		if err != nil {
			return err
		}
	}
	for _, f := range counted {
		if opt.exclusive || s.explaining() || sameState(f.st, stateOf(f.t, again)) {
			if f.differs() {
				r := f.result()
				results[f.res] = &r
			}
			continue
		}
		r, wrote, err := s.recountOne(ctx, f, opt)
		if err != nil {
			return err
		}
		if wrote || !opt.fix && (r.Actual != r.Stored || r.StoredValue != "") {
			results[f.res] = &r
		}
	}
	return nil
}

// sameState reports whether every part of a counter holds what it held,
// and recorded as many changes: links and unlinks that cancelled out on
// the counter still moved its changes attribute.
func sameState(a, b counterState) bool {
	if len(a.parts) != len(b.parts) {
		return false
	}
	for i, p := range a.parts {
		q := b.parts[i]
		if !sameOrAbsent(p.raw, q.raw) || !sameOrAbsent(p.changes, q.changes) {
			return false
		}
	}
	return true
}

// sameOrAbsent reports whether a and b are both absent or equal values.
func sameOrAbsent(a, b types.AttributeValue) bool {
	return (a == nil) == (b == nil) && (a == nil || sameValue(a, b))
}
