package ops

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// VerifyOptions tune VerifyCounters.
type VerifyOptions struct {
	Relation *schema.Relation // nil: the counters of every relation
	Repair   bool             // write the counts of the counters that differ
	Segments int              // parallel Scan segments (default 4)
	Workers  int              // concurrent recounts (default Options.Parallel)
	// IndexSettle: see recountOptions.settle.
	IndexSettle time.Duration
	// BatchFixes, when set, says as the counters are written whether
	// recountOptions.batch holds (it may depend on answers seen so far).
	BatchFixes func() bool
	// Progress, when set, is called after every Scan page and recount group.
	Progress func(VerifyProgress)
}

// VerifyProgress is how far a verify has come.
type VerifyProgress struct {
	Phase    string // "scan" or "recount"
	Items    int64  // items scanned
	Checked  int    // suspect counters recounted
	Suspects int
}

// VerifyReport says what VerifyCounters found.
type VerifyReport struct {
	Items    int64 // items scanned
	Edges    int64 // edges of the relations checked
	Counters int   // counters compared (stored, or owed by an edge)
	// Wrong are the counters whose stored value differs from their edges,
	// as recounted after the Scan (Fixed with Repair).
	Wrong    []CounterResult
	Requests map[string]int64
}

// counterSide is a counter a relation keeps on the items of one prefix.
type counterSide struct {
	rel    *schema.Relation
	end    schema.End
	prefix string
	name   string
	shards int
}

// VerifyCounters compares every stored counter with the edges it counts.
// Finding every counter, and every key owed one, needs the whole table: one
// parallel Scan (projected to keys, type, counters and their changes
// attributes) tallies edges per key and sums stored counters, and marks a
// counter whose changes attribute holds no number. The Scan is not a snapshot while
// others write, so each counter it finds wrong is recounted the way import
// does (read, Select COUNT, read again) before it is reported, and with
// Repair written with a condition that it is unchanged since read. A wrong
// counter whose edges change while the Scan passes can look exact to it,
// and is left for the next run.
func (s *Store) VerifyCounters(ctx context.Context, opt VerifyOptions) (*VerifyReport, error) {
	if opt.Segments <= 0 {
		opt.Segments = 4
	}
	rep := &VerifyReport{}
	stats := &counterStats{}
	var sides []counterSide
	for _, r := range s.schema.Relations {
		if opt.Relation != nil && r.Name != opt.Relation.Name {
			continue
		}
		if err := s.checkRecordedShards(ctx, r); err != nil {
			return rep, err
		}
		for _, end := range []schema.End{schema.FromEnd, schema.ToEnd} {
			name, shards := r.Counter(end)
			if name == "" {
				continue
			}
			sd := r.From
			if end == schema.ToEnd {
				sd = r.To
			}
			sides = append(sides, counterSide{rel: r, end: end, prefix: sd.Prefix, name: name, shards: shards})
		}
	}
	if len(sides) == 0 {
		rep.Requests = stats.snapshot()
		return rep, nil
	}
	l := s.layout
	t := &tallies{layout: l, byKey: map[[2]string]*tally{}, sides: sides}
	names := []expression.NameBuilder{expression.NameNoDotSplit(l.PK), expression.NameNoDotSplit(l.SK)}
	if l.Type != "" {
		names = append(names, expression.Name(l.Type))
	}
	for _, sd := range sides {
		names = append(names, expression.NameNoDotSplit(sd.name))
		if l.CountsChanges() {
			names = append(names, expression.NameNoDotSplit(schema.Changes(sd.name)))
		}
	}
	ex, err := expression.NewBuilder().WithProjection(expression.NamesList(names[0], names[1:]...)).Build()
	if err != nil {
		return rep, err
	}
	in := &dynamodb.ScanInput{
		TableName: aws.String(s.schema.Table.Name), ConsistentRead: aws.Bool(true),
		ProjectionExpression: ex.Projection(), ExpressionAttributeNames: ex.Names(),
	}
	var items atomic.Int64
	var pmu sync.Mutex
	err = s.scanSegments(ctx, in, opt.Segments, stats, func(page []Item) error {
		t.add(page)
		n := items.Add(int64(len(page)))
		if opt.Progress != nil {
			pmu.Lock()
			opt.Progress(VerifyProgress{Phase: "scan", Items: n})
			pmu.Unlock()
		}
		return nil
	})
	rep.Items, rep.Edges, rep.Counters = items.Load(), t.edges, len(t.byKey)
	if err != nil {
		return rep, err
	}
	var suspects []counterTarget
	for _, k := range sortedTallyKeys(t.byKey) {
		tl := t.byKey[k]
		if tl.stored != tl.actual || tl.bad {
			suspects = append(suspects, tl.target)
		}
	}
	rep.Wrong, err = s.recount(ctx, suspects, recountOptions{
		fix: opt.Repair, workers: opt.Workers, settle: opt.IndexSettle, stats: stats, batch: opt.BatchFixes != nil && opt.BatchFixes(),
		progress: func(done int) {
			if opt.Progress != nil {
				pmu.Lock()
				opt.Progress(VerifyProgress{Phase: "recount", Items: rep.Items, Checked: done, Suspects: len(suspects)})
				pmu.Unlock()
			}
		},
	})
	rep.Requests = stats.snapshot()
	return rep, err
}

// tally is one counter as the Scan saw it.
type tally struct {
	target         counterTarget
	stored, actual int64
	bad            bool
}

// tallies collects the Scan's pages (from several goroutines).
type tallies struct {
	mu     sync.Mutex
	layout schema.Layout
	byKey  map[[2]string]*tally // (key, counter name)
	sides  []counterSide
	edges  int64
}

func (t *tallies) get(key string, sd counterSide) *tally {
	k := [2]string{key, sd.name}
	tl := t.byKey[k]
	if tl == nil {
		tg, _ := counterTargetOf(sd.rel, sd.end, key)
		tl = &tally{target: tg}
		t.byKey[k] = tl
	}
	return tl
}

func (t *tallies) add(page []Item) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, it := range page {
		pk, sk := sOf(it, t.layout.PK), sOf(it, t.layout.SK)
		prefix := keyPrefix(pk)
		// An edge is told by its type where the layout writes one, and by
		// its key shape always.
		typ, typed := "", t.layout.Type != ""
		if typed {
			typ = sOf(it, t.layout.Type)
		}
		edge := false
		for _, sd := range t.sides {
			rel := sd.rel
			if (!typed || typ == rel.Name) && pk != sk && strings.HasPrefix(pk, rel.From.Prefix) && strings.HasPrefix(sk, rel.EdgeSKPrefix()) {
				edge = true
				key := pk
				if sd.end == schema.ToEnd {
					key = sk[len(rel.Edge):]
				}
				t.get(key, sd).actual++
			}
			if sd.prefix != prefix {
				continue
			}
			part := pk == sk
			if !part && sd.shards > 1 {
				// The counter's shard items, as a recount reads them.
				name, k, ok := schema.CounterShardOfSK(sk)
				part = ok && name == sd.name && k < sd.shards
			}
			if !part {
				continue
			}
			if changesProblem(sd.name, it[schema.Changes(sd.name)]) != "" {
				t.get(pk, sd).bad = true
			}
			v := it[sd.name]
			if v == nil {
				continue
			}
			tl := t.get(pk, sd)
			n, ok := v.(*types.AttributeValueMemberN)
			if !ok {
				tl.bad = true
				continue
			}
			i, err := strconv.ParseInt(n.Value, 10, 64)
			if err != nil {
				tl.bad = true
			}
			tl.stored += i
		}
		if edge {
			t.edges++
		}
	}
}

// keyPrefix is the type prefix of a key ("STU#" of "STU#a91").
func keyPrefix(key string) string {
	if i := strings.Index(key, schema.Delimiter); i > 0 {
		return key[:i+1]
	}
	return ""
}

func sortedTallyKeys(m map[[2]string]*tally) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return keys
}
