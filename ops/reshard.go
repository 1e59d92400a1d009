package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"
)

// scanAPI is the one operation reshard and schema infer (Sample) need
// beyond API. It is deliberately not part of API: no read of adjl may Scan.
// Reshard is an admin migration, not a read: it must visit every edge of a
// relation, and no key condition can name edges whose keys nobody knows;
// schema infer reads a bounded sample of a table whose layout nobody has
// described yet. They are the only Scans adjl sends.
type scanAPI interface {
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

var _ scanAPI = (*dynamodb.Client)(nil)

// reshardPageSize is the Limit of each Scan page; progress is recorded
// after every page, so an interrupted reshard repeats at most one page.
const reshardPageSize = 250

// ReshardOptions tune Reshard.
type ReshardOptions struct {
	To     int  // the new shard count, 1..schema.MaxShards
	DryRun bool // scan and count only; write nothing
	// PageSize is the Limit of each Scan page (default 250).
	PageSize int32
	// Progress, when non-nil, is called after every Scan page.
	Progress func(ReshardProgress)
}

// ReshardProgress is how far a reshard has come.
type ReshardProgress struct {
	Phase   string // "count", "move" or "verify"
	Scanned int    // edges seen by the current Scan
	Moved   int    // edges rewritten in this run
}

// KeyCount is the reverse-read edge count of one to-key before and after.
type KeyCount struct {
	Key           string
	Before, After int
}

// ReshardReport says what Reshard found and did.
type ReshardReport struct {
	Relation string
	From, To int
	DryRun   bool
	Resumed  bool // continues a run that was interrupted
	Edges    int  // edges of the relation found by the counting Scan
	ToMove   int  // of those, edges not yet in the new layout
	Moved    int  // edges rewritten by this run
	Vanished int  // edges unlinked while the reshard ran
	// Before and After are the totals of Keys: every edge counted through
	// the reverse index, before the move (in the old layout and whatever a
	// previous run had moved already) and after it (in the new layout only).
	Before, After int
	Keys          []KeyCount // per to-key, in key order
}

// Reshard moves the edges of rel to a layout of opt.To shards: each edge
// whose GSI1PK is not the one the new layout gives it is rewritten with a
// conditional UpdateItem (the edge still exists and GSI1PK is still what was
// read). Progress is recorded in the metadata item after every Scan page, so
// an interrupted reshard resumes where it stopped; while it is recorded,
// every other command refuses the relation. Before the move every to-key's
// edges are counted through the index, after it they are counted again in
// the new layout only; only when both agree is the new shard count recorded.
// Running it again is harmless: edges already in place are left alone.
func (s *Store) Reshard(ctx context.Context, rel *schema.Relation, opt ReshardOptions) (*ReshardReport, error) {
	if rel == nil {
		return nil, &InputError{Msg: "reshard: no relation given"}
	}
	if s.layout.Inverted() {
		return nil, &InputError{Msg: fmt.Sprintf("reshard %s: the table's index layout is inverted, which has no shards (the index partition of an edge is its own sort key); reverse-index shards need layout: generic", rel.Name)}
	}
	if opt.To < 1 || opt.To > schema.MaxShards {
		return nil, &InputError{Msg: fmt.Sprintf("--to must be between 1 and %d, not %d (1 means unsharded)", schema.MaxShards, opt.To)}
	}
	if opt.PageSize <= 0 {
		opt.PageSize = reshardPageSize
	}
	scanner, ok := s.api.(scanAPI)
	if !ok && !s.explaining() {
		return nil, fmt.Errorf("reshard %s: the backend client cannot Scan", rel.Name)
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, true); err != nil {
		return nil, err
	}
	st, resuming := s.metaReshard[rel.Name]
	if resuming && st.To != opt.To {
		// Its edges are partly in a third layout; one unfinished target at a time.
		return nil, &InputError{Msg: fmt.Sprintf("a reshard of %s from %d to %d shards is unfinished; finish it first with `adjl reshard %s --to %d --yes`, then reshard again",
			rel.Name, st.From, st.To, rel.Name, st.To)}
	}
	rep := &ReshardReport{Relation: rel.Name, To: opt.To, DryRun: opt.DryRun, Resumed: resuming}
	r := &resharder{s: s, scan: scanner, rel: rel, opt: opt, rep: rep}

	// The layout the edges are in: the unfinished reshard's, the recorded
	// one, else (a table whose metadata item does not name the relation)
	// the one most edges say they are in, known after the count.
	from, recorded := s.metaShards[rel.Name]
	if resuming {
		from = st.From
	}
	// Record the reshard before any item gets the new count: until it
	// finishes, a command that meets an edge or counter item in the other
	// layout names the reshard in its error. When the layout is known now,
	// it is recorded before the count, whose Scan then restamps the
	// counter items early; else after it, and the move's Scan restamps them.
	record := func() error {
		if !resuming {
			st = reshardState{From: from, To: opt.To}
		}
		if err := s.ensureMeta(ctx); err != nil {
			return err
		}
		return s.saveReshard(ctx, rel.Name, st)
	}
	known := resuming || recorded
	if known && !opt.DryRun {
		if err := record(); err != nil {
			return rep, err
		}
		r.restampWhileCounting = true
	}

	// Count: every edge, by to-key, noting the layouts the edges are in.
	if err := r.scanEdges(ctx, "count", nil, r.countPage); err != nil {
		return rep, err
	}
	if !known {
		from = r.commonLayout(shardsOf(rel))
	}
	rep.From = from
	r.layouts = []int{from}
	for _, n := range append(slices.Sorted(maps.Keys(r.seen)), opt.To) {
		if !slices.Contains(r.layouts, n) {
			r.layouts = append(r.layouts, n)
		}
	}
	if !known && !opt.DryRun {
		if err := record(); err != nil {
			return rep, err
		}
	}

	before, err := r.countKeys(ctx, r.layouts)
	if err != nil {
		return rep, err
	}
	if opt.DryRun {
		r.fill(before, nil)
		return rep, nil
	}

	// Move, page by page, recording progress.
	err = r.scanEdges(ctx, "move", s.startKey(st), r.movePage, func(last Item) error {
		st.LastPK, st.LastSK = sOf(last, s.layout.PK), sOf(last, s.layout.SK)
		st.Moved += rep.Moved - r.savedMoved
		r.savedMoved = rep.Moved
		return s.saveReshard(ctx, rel.Name, st)
	})
	if err != nil {
		return rep, err
	}

	// Verify: the new layout alone must hold every edge the index shows.
	after, err := r.verify(ctx)
	r.fill(before, after)
	if err != nil {
		return rep, err
	}
	if err := s.finishReshard(ctx, rel.Name, opt.To); err != nil {
		return rep, err
	}
	return rep, nil
}

// resharder is one run of Reshard.
type resharder struct {
	s          *Store
	scan       scanAPI
	rel        *schema.Relation
	opt        ReshardOptions
	rep        *ReshardReport
	layouts    []int          // shard counts whose partitions may hold edges
	seen       map[int]int    // edges per layout they record, as the counting Scan found them
	tableCount map[string]int // edges per to-key, as the counting Scan found them
	expected   map[string]int // edges per partition of the new layout, likewise
	savedMoved int
	// restampWhileCounting makes the counting Scan record the new count on
	// counter items: only once the reshard is recorded.
	restampWhileCounting bool
	mu                   sync.Mutex // guards rep's counters while a page moves in parallel
}

// layout is rel with another shard count, for key derivation.
func (r *resharder) layout(shards int) *schema.Relation {
	l := *r.rel
	l.Shards = shards
	return &l
}

// isEdge tells the relation's edges from other items of the same type
// (there are none unless written by hand) by their key shape.
func (r *resharder) isEdge(it Item) bool {
	pk, sk := sOf(it, r.s.layout.PK), sOf(it, r.s.layout.SK)
	return pk != sk && strings.HasPrefix(pk, r.rel.From.Prefix) && strings.HasPrefix(sk, r.rel.EdgeSKPrefix()) &&
		sOf(it, r.s.layout.IndexSK) == pk
}

func (r *resharder) toKey(it Item) string { return sOf(it, r.s.layout.SK)[len(r.rel.Edge):] }

// target is the GSI1PK the new layout gives an edge.
func (r *resharder) target(it Item) string {
	l := r.layout(r.opt.To)
	return r.s.layout.ReversePartition(l, r.toKey(it), l.Shard(sOf(it, r.s.layout.PK)))
}

// scanEdges Scans the relation's edges from start, handing each page's edges
// and the other items recording the relation's shard count (counter items
// stamped by links) to each and then, if given, the page's LastEvaluatedKey
// to pageDone.
func (r *resharder) scanEdges(ctx context.Context, phase string, start Item, each func(ctx context.Context, edges, stamped []Item) error, pageDone ...func(Item) error) error {
	stamp := expression.NameNoDotSplit(r.rel.ShardStamp())
	ex, err := expression.NewBuilder().
		WithFilter(expression.NameNoDotSplit(r.s.layout.Type).Equal(expression.Value(r.rel.Name)).Or(expression.AttributeExists(stamp))).
		WithProjection(expression.NamesList(r.s.pkName(), expression.NameNoDotSplit(r.s.layout.SK),
			expression.NameNoDotSplit(r.s.layout.IndexPK), expression.NameNoDotSplit(r.s.layout.IndexSK), stamp)).Build()
	if err != nil {
		return fmt.Errorf("build scan: %w", err)
	}
	in := &dynamodb.ScanInput{
		TableName: aws.String(r.s.schema.Table.Name), ConsistentRead: aws.Bool(true), Limit: aws.Int32(r.opt.PageSize),
		FilterExpression: ex.Filter(), ProjectionExpression: ex.Projection(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
		ExclusiveStartKey: start,
	}
	scanned := 0
	for {
		page := *in // each request its own input: Explain and tests keep them
		out, err := r.s.scanPage(ctx, r.scan, &page)
		if err != nil {
			return fmt.Errorf("reshard %s: scan edges: %w", r.rel.Name, err)
		}
		var edges, stamped []Item
		for _, it := range out.Items {
			switch {
			case r.isEdge(it):
				edges = append(edges, it)
			case it[r.rel.ShardStamp()] != nil:
				stamped = append(stamped, it)
			}
		}
		scanned += len(edges)
		if err := each(ctx, edges, stamped); err != nil {
			return err
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		for _, done := range pageDone {
			if err := done(out.LastEvaluatedKey); err != nil {
				return err
			}
		}
		if r.opt.Progress != nil {
			r.opt.Progress(ReshardProgress{Phase: phase, Scanned: scanned, Moved: r.rep.Moved})
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if r.opt.Progress != nil {
		r.opt.Progress(ReshardProgress{Phase: phase, Scanned: scanned, Moved: r.rep.Moved})
	}
	return nil
}

// countPage tallies a page of edges by to-key and by new partition and,
// once the reshard is recorded, records the new shard count on the page's
// counter items: from then on a link under the old schema that touches them
// is refused by its own transaction.
func (r *resharder) countPage(ctx context.Context, edges, stamped []Item) error {
	if r.restampWhileCounting {
		if err := r.movePage(ctx, nil, stamped); err != nil {
			return err
		}
	}
	if r.tableCount == nil {
		r.tableCount, r.expected, r.seen = map[string]int{}, map[string]int{}, map[int]int{}
	}
	for _, it := range edges {
		if n, ok := r.layoutOf(it); ok {
			r.seen[n]++
		}
		want := r.target(it)
		r.tableCount[r.toKey(it)]++
		r.expected[want]++
		r.rep.Edges++
		if !r.inPlace(it) {
			r.rep.ToMove++
		}
	}
	return nil
}

// layoutOf is the shard count an edge was written with: its stamp, or 1 for
// an unstamped edge indexed under the to-key itself. Edges of a sharded
// layout written before edges were stamped give no answer.
func (r *resharder) layoutOf(it Item) (int, bool) {
	if n, ok := stampOf(it, r.rel.ShardStamp()); ok {
		return n, true
	}
	if sOf(it, r.s.layout.IndexPK) == r.toKey(it) {
		return 1, true
	}
	return 0, false
}

// commonLayout is the layout most edges were found in; def when none was.
func (r *resharder) commonLayout(def int) int {
	best, count := def, 0
	for _, n := range slices.Sorted(maps.Keys(r.seen)) {
		if r.seen[n] > count {
			best, count = n, r.seen[n]
		}
	}
	return best
}

// movePage moves a page of edges and restamps its counter items, at most
// Options.Parallel at once; the page's progress is recorded only once all of
// them are done.
func (r *resharder) movePage(ctx context.Context, edges, stamped []Item) error {
	g, ctx := errgroup.WithContext(ctx) // the first failure cancels the rest
	g.SetLimit(r.s.opt.Parallel)
	for _, it := range edges {
		g.Go(func() error { return r.moveEdge(ctx, it) })
	}
	for _, it := range stamped {
		g.Go(func() error { return r.restamp(ctx, it) })
	}
	return g.Wait()
}

// edgeStampUpdate records the new layout's shard count on an edge: only
// sharded relations stamp their edges.
func (r *resharder) edgeStampUpdate(upd expression.UpdateBuilder) expression.UpdateBuilder {
	stamp := expression.NameNoDotSplit(r.rel.ShardStamp())
	if r.opt.To > 1 {
		return upd.Set(stamp, expression.Value(r.opt.To))
	}
	return upd.Remove(stamp)
}

// inPlace reports whether an edge already has the new layout's GSI1PK and
// stamp.
func (r *resharder) inPlace(it Item) bool {
	if sOf(it, r.s.layout.IndexPK) != r.target(it) {
		return false
	}
	n, stamped := stampOf(it, r.rel.ShardStamp())
	if r.opt.To > 1 {
		return stamped && n == r.opt.To
	}
	return it[r.rel.ShardStamp()] == nil
}

// restamp records the new shard count on a counter item a link stamped.
func (r *resharder) restamp(ctx context.Context, it Item) error {
	if n, ok := stampOf(it, r.rel.ShardStamp()); ok && n == r.opt.To {
		return nil
	}
	pk, sk := sOf(it, r.s.layout.PK), sOf(it, r.s.layout.SK)
	ex, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.NameNoDotSplit(r.rel.ShardStamp()), expression.Value(r.opt.To))).
		WithCondition(expression.AttributeExists(r.s.pkName())).Build()
	if err != nil {
		return fmt.Errorf("build stamp update: %w", err)
	}
	_, err = r.s.updateItem(ctx, r.s.updateInput(pk, sk, ex))
	if err != nil && !conditionFailed(err) { // deleted since the Scan: nothing to restamp
		return fmt.Errorf("record %d shards on %s %s: %w", r.opt.To, pk, sk, err)
	}
	return nil
}

// moveEdge rewrites the GSI1PK (and shard stamp) of one edge if it is not
// in place yet.
func (r *resharder) moveEdge(ctx context.Context, it Item) error {
	old, want := sOf(it, r.s.layout.IndexPK), r.target(it)
	if r.inPlace(it) {
		return nil
	}
	pk, sk := sOf(it, r.s.layout.PK), sOf(it, r.s.layout.SK)
	cond := expression.AttributeExists(r.s.pkName()).
		And(expression.NameNoDotSplit(r.s.layout.IndexPK).Equal(expression.Value(old)))
	ex, err := expression.NewBuilder().
		WithUpdate(r.edgeStampUpdate(expression.Set(expression.NameNoDotSplit(r.s.layout.IndexPK), expression.Value(want)))).
		WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build edge move: %w", err)
	}
	_, err = r.s.updateItem(ctx, r.s.updateInput(pk, sk, ex))
	switch {
	case err == nil:
		r.mu.Lock()
		r.rep.Moved++
		r.mu.Unlock()
		return nil
	case !conditionFailed(err):
		return fmt.Errorf("move edge %s %s to %s: %w", pk, sk, want, err)
	}
	// The edge changed since the Scan read it: look at it now.
	out, gerr := r.s.getItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(r.s.schema.Table.Name), Key: r.s.keyOf(pk, sk), ConsistentRead: aws.Bool(true),
	})
	switch {
	case gerr != nil:
		return fmt.Errorf("re-read edge %s %s: %w", pk, sk, gerr)
	case len(out.Item) == 0:
		r.mu.Lock()
		r.rep.Vanished++
		r.mu.Unlock()
		return nil
	case sOf(out.Item, r.s.layout.IndexPK) == want:
		return nil
	}
	return &ConflictError{Msg: fmt.Sprintf("edge %s %s was rewritten by someone else during the reshard (GSI1PK is now %s); stop other writers and rerun `adjl reshard %s --to %d --yes`",
		pk, sk, sOf(out.Item, r.s.layout.IndexPK), r.rel.Name, r.opt.To), Err: err}
}

// fill puts the per-key counts into the report, in key order.
func (r *resharder) fill(before, after map[string]int) {
	for _, k := range slices.Sorted(maps.Keys(r.tableCount)) {
		kc := KeyCount{Key: k, Before: before[k], After: after[k]}
		r.rep.Keys = append(r.rep.Keys, kc)
		r.rep.Before += kc.Before
		r.rep.After += kc.After
	}
}
