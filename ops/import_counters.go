package ops

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// recount makes the counters of every entity the file names exact, and
// derives from their changes (or counts) how many edges were new.
func (im *importer) recount(ctx context.Context) error {
	var targets []counterTarget
	for _, side := range []struct {
		end         schema.End
		keys, other map[string]*tally32
	}{{schema.FromEnd, im.fromKeys, im.toKeys}, {schema.ToEnd, im.toKeys, im.fromKeys}} {
		keys := make([]string, 0, len(side.keys))
		for k := range side.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t, _ := counterTargetOf(im.rel, side.end, k)
			// Into a relation that had no edge, an entity whose counter
			// does not exist (no link or unlink changed it meanwhile) has
			// exactly the edges the file gives it, unless the file
			// repeats one.
			tl := side.keys[k]
			t.known, t.trusted = int64(tl.rows), im.fresh && !tl.repeat
			// An item holding both sides' counters (an entity related to
			// its own kind) is fixed by two targets: never put whole.
			_, both := side.other[k]
			t.put = im.opt.Exclusive && !both
			targets = append(targets, t)
		}
	}
	im.rep.Counters = len(targets)
	if len(targets) == 0 {
		return nil
	}
	if im.opt.Counting != nil {
		im.opt.Counting()
	}
	// The side with a counter tells how many edges are new.
	end := schema.FromEnd
	if name, _ := im.rel.Counter(end); name == "" {
		end = schema.ToEnd
	}
	name, _ := im.rel.Counter(end)
	// Into a relation that had no edge, every edge counted is the file's,
	// so after an earlier run that corrected some counters (they no longer
	// change) the counts themselves say how many edges the runs made.
	var counted func(counterTarget, int64)
	var total atomic.Int64
	byCount := im.fresh && im.opt.CountedBefore && !im.opt.Unlink
	if byCount {
		counted = func(t counterTarget, n int64) {
			if t.end == end && t.name == name {
				total.Add(n)
			}
		}
	}
	var pmu sync.Mutex
	res, err := im.s.recount(ctx, targets, recountOptions{
		fix: true, workers: im.opt.Workers, settle: im.opt.IndexSettle, stats: im.stats, giveUp: im.opt.RetryFor, batch: im.opt.BatchFixes != nil && im.opt.BatchFixes(),
		exclusive: im.opt.Exclusive, counted: counted,
		progress: func(done int) {
			if im.opt.Progress != nil {
				pmu.Lock()
				im.opt.Progress(ImportProgress{Phase: "counters", Rows: im.written + im.rep.Skipped, Counters: done, Total: len(targets)})
				pmu.Unlock()
			}
		},
	})
	im.rep.Fixed = res
	if err != nil {
		return err
	}
	// Otherwise the counters changed by exactly the edges this import made
	// or removed (if they were exact before).
	changed := total.Load()
	for _, r := range res {
		if !byCount && r.Counter == name && r.Key != "" && im.sideHas(end, r.Key) {
			d := r.Actual - r.Stored
			if im.opt.Unlink {
				d = -d
			}
			changed += d
		}
	}
	im.rep.Created = int(min(max(changed, 0), int64(im.rep.Rows)))
	im.rep.Unchanged = im.rep.Rows - im.rep.Created
	return nil
}

// tally32 is what the file says about one entity's edges.
type tally32 struct {
	rows   int32 // rows naming it
	repeat bool  // one of them may repeat an edge the file gave already
}

// checkFresh finds out (or is told) whether the relation had any edge
// before the import: a Scan filtered on its type that stops at the first
// edge, and gives up (not fresh) after freshScanPages pages, so a big table
// of other data costs a few requests at most.
func (im *importer) checkFresh(ctx context.Context) error {
	switch im.opt.Fresh {
	case FreshYes:
		im.fresh = true
		return nil
	case FreshNo:
		return nil
	}
	if _, ok := im.s.api.(scanAPI); !ok || im.s.explaining() {
		return nil
	}
	ex, err := expression.NewBuilder().
		WithFilter(im.s.itemsOf(rowfile.Target{Relation: im.rel})).
		WithProjection(expression.NamesList(im.s.pkName())).Build()
	if err != nil {
		return fmt.Errorf("build scan: %w", err)
	}
	in := &dynamodb.ScanInput{
		TableName: aws.String(im.s.schema.Table.Name), ConsistentRead: aws.Bool(true),
		FilterExpression: ex.Filter(), ProjectionExpression: ex.Projection(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}
	scanner := im.s.api.(scanAPI)
	for range freshScanPages {
		out, err := im.s.scanPage(ctx, scanner, in)
		im.stats.add(reqScan)
		if err != nil {
			return fmt.Errorf("import %s: look for existing edges: %w", im.rel.Name, err)
		}
		if len(out.Items) > 0 {
			break
		}
		if len(out.LastEvaluatedKey) == 0 {
			im.fresh = true
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if im.opt.FreshChecked != nil {
		im.opt.FreshChecked(im.fresh)
	}
	return nil
}

// freshScanPages bounds the look for existing edges (1 MB pages).
const freshScanPages = 8

// bloom is a Bloom filter of edge keys: a repeated edge is always reported,
// a new one rarely (about 0.05% with 16 bits a row and 11 probes), in
// memory fixed by the row count (2 MB a million rows). A false report only
// sends an entity to a Select COUNT Query: a course with 400 students in
// the file is sent with probability 1-(1-0.0005)^400, about 18%.
type bloom struct{ bits []uint64 }

const (
	bloomBits   = 16
	bloomProbes = 11
)

func newBloom(rows int) *bloom { return &bloom{bits: make([]uint64, (rows*bloomBits+63)/64)} }

// addMaybeSeen adds key and reports whether it may have been added before.
func (b *bloom) addMaybeSeen(key string) bool {
	h := fnv.New64a()
	h.Write([]byte(key))
	x := h.Sum64()
	h1, h2 := uint32(x), uint32(x>>32)|1
	n := uint64(len(b.bits) * 64)
	seen := true
	for i := range uint32(bloomProbes) {
		bit := uint64(h1+i*h2) % n
		w, m := bit/64, uint64(1)<<(bit%64)
		if b.bits[w]&m == 0 {
			seen = false
			b.bits[w] |= m
		}
	}
	return seen
}

func (im *importer) sideHas(end schema.End, key string) bool {
	if end == schema.FromEnd {
		_, ok := im.fromKeys[key]
		return ok
	}
	_, ok := im.toKeys[key]
	return ok
}
