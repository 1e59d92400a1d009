package ops

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// How an import works (see also README "Loading data"):
//
//   - Edges are written with BatchWriteItem, 25 to a request, by Workers
//     callers at once. A row is routed to a caller by a hash of its key, and
//     each caller sends its requests one after the other, so two rows of the
//     same edge are written in file order and the last one wins, with no
//     memory of what was seen. UnprocessedItems, throttling and server
//     errors are sent again with exponential backoff and full jitter until
//     done, or until RetryFor passes without progress (the error then says
//     which: throttled is exit 7).
//   - A row is the edge: its Put replaces the edge item, so attributes the
//     row leaves empty are removed, and importing the same file again
//     changes nothing. --unlink Deletes the listed edges; an absent one
//     changes nothing.
//   - Counters are recounted once every edge is written: for every entity
//     the file names on a side that keeps a counter, the counter is read,
//     its edges counted, and the count written if different, with a
//     condition that the counter is unchanged since read (recount, in
//     counterfix.go). An edge that already existed is therefore counted
//     once, an unlinked absent one not at all, and the result is exact
//     whatever the counters held before, whether the import ran once or was
//     killed and run again. Into a relation that had no edge before (see
//     checkFresh), a counter that does not exist yet is written from the
//     file's own tally, without the Query, unless the file may repeat one
//     of its edges.
//   - Rows are numbered in chunks of ChunkRows; ChunksDone reports how many
//     chunks from the start are entirely written, so an interrupted import
//     can skip them (SkipChunks). Chunks are only skipped as a prefix, so
//     every later row is written again in order and the last-wins rule
//     holds across a resume too.

// RowSource yields the rows of an import, one at a time, and io.EOF at the end.
type RowSource func() (rowfile.Row, error)

// ImportOptions tune Import.
type ImportOptions struct {
	Unlink bool // delete the listed edges (relations only)
	// Workers is the number of concurrent writers (default 8).
	Workers int
	// ChunkRows is the size of a resume chunk (default 1000 rows).
	ChunkRows int
	// SkipChunks: chunks [0, SkipChunks) were written by an earlier run.
	SkipChunks int
	// ChunksDone, when set, is called whenever the number of chunks written
	// from the start grows (from one goroutine at a time).
	ChunksDone func(n int)
	// Progress, when set, is called after every request that wrote rows
	// and after every counter group (from one goroutine at a time).
	Progress func(ImportProgress)
	// RetryFor is how long a request may be retried without progress
	// before the import fails (default 2 minutes).
	RetryFor time.Duration
	// IndexSettle: see recountOptions.settle (AWS, whose index lags).
	IndexSettle time.Duration
	// BatchFixes, when set, says as the counters are written whether
	// recountOptions.batch holds (it may depend on answers seen so far).
	BatchFixes func() bool
	// Exclusive says that nobody else writes the table while the import
	// runs: the embedded engine in this process (it holds the data file),
	// or the user's word. Counters are then written by putting their items
	// back (see recountOptions.exclusive), 25 to a request.
	Exclusive bool
	// Fresh says whether the relation had no edge before the import began:
	// FreshUnknown makes Import look (and report it to FreshChecked, so a
	// resumed run can be told, since its first run's edges are there now).
	Fresh        Freshness
	FreshChecked func(fresh bool)
	// Counting, when set, is called once before the first counter is
	// read, so that a later run of the import can be told CountedBefore.
	Counting func()
	// CountedBefore says an earlier run of this import began on the
	// counters, so those it corrected no longer change. Into a relation
	// that had no edge (Fresh), every edge counted is then the file's, and
	// Created comes from the counts themselves rather than their changes.
	CountedBefore bool
	// ExpectedRows sizes the filter that spots repeated edges (0: 1M).
	ExpectedRows int
}

// Freshness is whether a relation had edges before an import.
type Freshness int

// Freshness values.
const (
	FreshUnknown Freshness = iota
	FreshYes
	FreshNo
)

// ImportProgress is how far an import has come.
type ImportProgress struct {
	Phase    string // "write" or "counters"
	Rows     int    // rows written (or skipped as done) so far
	Counters int    // counters checked so far
	Total    int    // counters to check
}

// ImportReport says what Import did.
type ImportReport struct {
	Name    string // relation or entity
	Unlink  bool
	Rows    int // rows read
	Skipped int // rows in chunks an earlier run had written (resume)
	Written int // Puts (or Deletes, or entity updates) sent and acknowledged
	// Created and Unchanged split the edges of the file by whether they were
	// new (for --unlink: Deleted and absent); -1 when the relation keeps no
	// counter to tell them apart by. They are derived from the counters'
	// changes, so they are exact when the counters were before the import
	// (see ImportOptions.CountedBefore for a rerun of one that began on
	// them).
	Created, Unchanged int
	Updated            int // entity imports: items whose attributes changed
	Counters           int // counters recounted
	Fixed              []CounterResult
	Requests           map[string]int64 // sent, answered or not
	// WriteTime and CounterTime are how long the two phases took.
	WriteTime, CounterTime time.Duration
}

// SentWrites reports whether the import sent a write, acknowledged or not:
// one whose answer was lost may have been applied, leaving edges whose
// counters only a rerun recounts.
func (r *ImportReport) SentWrites() bool {
	return r.Requests["BatchWriteItem"] > 0 || r.Requests["UpdateItem"] > 0
}

// Import writes the rows of src into rel (edges) or ent (entity items);
// exactly one of them is set. The rows must have been validated already
// (rowfile gives only valid rows).
func (s *Store) Import(ctx context.Context, rel *schema.Relation, ent *schema.Entity, src RowSource, opt ImportOptions) (*ImportReport, error) {
	if opt.Workers <= 0 {
		opt.Workers = 8
	}
	if opt.ChunkRows <= 0 {
		opt.ChunkRows = 1000
	}
	im := &importer{s: s, rel: rel, ent: ent, opt: opt, stats: &counterStats{}}
	im.rep = &ImportReport{Unlink: opt.Unlink, Created: -1, Unchanged: -1}
	defer func() { im.rep.Requests = im.stats.snapshot() }() // a failed run's too
	if rel != nil {
		im.rep.Name = rel.Name
		if err := s.checkRecordedShards(ctx, rel); err != nil {
			return im.rep, err
		}
		im.fromKeys, im.toKeys = map[string]*tally32{}, map[string]*tally32{}
		im.typeValue = str(rel.Name)
		if rel.Sort != nil && rel.Sort.DefaultNow {
			im.sortDefault = rel.Sort.NowValue(s.now())
		}
		if !opt.Unlink {
			if err := im.checkFresh(ctx); err != nil {
				return im.rep, err
			}
			rows := opt.ExpectedRows
			if rows <= 0 {
				rows = 1_000_000
			}
			im.seen = newBloom(max(rows, 1024))
		}
	} else {
		im.rep.Name, im.rep.Created = ent.Name, 0
	}
	im.chunks = newChunkTracker(opt.SkipChunks, opt.ChunksDone)
	start := time.Now()
	err := im.write(ctx, src)
	im.rep.WriteTime = time.Since(start)
	if err != nil {
		return im.rep, err
	}
	if rel != nil {
		start = time.Now()
		err := im.recount(ctx)
		im.rep.CounterTime = time.Since(start)
		if err != nil {
			return im.rep, err
		}
	} else {
		im.rep.Unchanged = im.rep.Written - im.rep.Created - im.rep.Updated
	}
	return im.rep, nil
}

// importer is one run of Import.
type importer struct {
	s                *Store
	rel              *schema.Relation
	ent              *schema.Entity
	opt              ImportOptions
	rep              *ImportReport
	stats            *counterStats
	chunks           *chunkTracker
	fromKeys, toKeys map[string]*tally32  // entities whose counters are recounted
	fresh            bool                 // the relation had no edge before
	typeValue        types.AttributeValue // the type of every edge: the relation's name
	sortDefault      string               // the sort value of rows without one (default: now)
	seen             *bloom               // edges of the file so far, to spot repeats

	mu      sync.Mutex // guards rep's counts and progress calls
	written int
}

// job is one row on its way to a writer.
type job struct {
	row   rowfile.Row
	key   string // from + "\x00" + to, or the entity's key: routes the row and spots repeats
	chunk int
}

// write streams src to the writers.
func (im *importer) write(ctx context.Context, src RowSource) error {
	g, gctx := errgroup.WithContext(ctx)
	queues := make([]chan job, im.opt.Workers)
	for i := range queues {
		queues[i] = make(chan job, 256)
		q := queues[i]
		g.Go(func() error {
			if im.ent != nil {
				return im.entityWriter(gctx, q)
			}
			return im.edgeWriter(gctx, q)
		})
	}
	g.Go(func() error {
		defer func() {
			for _, q := range queues {
				close(q)
			}
		}()
		return im.dispatch(gctx, src, queues)
	})
	err := g.Wait()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		im.chunks.finish()
	}
	return err
}

// dispatch reads rows and hands each to the writer its key hashes to.
func (im *importer) dispatch(ctx context.Context, src RowSource, queues []chan job) error {
	for n := 0; ; n++ {
		row, err := src()
		if errors.Is(err, io.EOF) {
			im.chunks.seal(n / im.opt.ChunkRows)
			return nil
		}
		if err != nil {
			return err
		}
		im.rep.Rows++
		chunk := n / im.opt.ChunkRows
		im.chunks.seal(chunk)
		j, err := im.job(row, chunk)
		if err != nil {
			return err
		}
		if chunk < im.opt.SkipChunks {
			im.rep.Skipped++
			continue
		}
		im.chunks.add(chunk)
		h := fnv.New32a()
		h.Write([]byte(j.key))
		select {
		case queues[h.Sum32()%uint32(len(queues))] <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// job notes a row's entities for the recount; the write itself is built
// by the writer the row goes to, so that work runs on every writer at once.
func (im *importer) job(row rowfile.Row, chunk int) (job, error) {
	if im.ent != nil {
		return job{row: row, key: row.ID, chunk: chunk}, nil
	}
	rel := im.rel
	// From and To name the edge as well as its keys do.
	j := job{row: row, key: row.From + "\x00" + row.To, chunk: chunk}
	repeat := im.seen != nil && im.seen.addMaybeSeen(j.key)
	for _, side := range []struct {
		end  schema.End
		key  string
		keys map[string]*tally32
	}{{schema.FromEnd, row.From, im.fromKeys}, {schema.ToEnd, row.To, im.toKeys}} {
		if _, ok := counterTargetOf(rel, side.end, side.key); !ok {
			continue
		}
		t := side.keys[side.key]
		if t == nil {
			t = &tally32{}
			side.keys[side.key] = t
		}
		t.rows++
		t.repeat = t.repeat || repeat
	}
	return j, nil
}

// writeRequest is the Put (or, with --unlink, the Delete) of an edge row.
func (im *importer) writeRequest(row rowfile.Row) (types.WriteRequest, error) {
	l := im.s.layout
	k := l.EdgeKeys(im.rel, row.From, row.To)
	if im.opt.Unlink {
		return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: im.s.keyOf(k.PK, k.SK)}}, nil
	}
	// The edge as a link writes it: the layout's keys, its type attribute
	// (if it has one) and shard stamp (see layout.go).
	item := im.s.keyItem(k)
	if l.Type != "" {
		item[l.Type] = im.typeValue
	}
	if im.rel.Shards > 1 && l.Stamps() {
		item[im.rel.ShardStamp()] = &types.AttributeValueMemberN{Value: strconv.Itoa(im.rel.Shards)}
	}
	for _, a := range row.Attrs { // rowfile gives declared attributes only
		av, err := marshalValue(a.Name, a.Value)
		if err != nil {
			return types.WriteRequest{}, fmt.Errorf("line %d: %w", row.Line, err)
		}
		item[a.Name] = av
	}
	if im.rel.Sort != nil {
		if err := im.orderItem(row, k, item); err != nil {
			return types.WriteRequest{}, fmt.Errorf("line %d: %w", row.Line, err)
		}
	}
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}, nil
}

// batchSize is BatchWriteItem's limit.
const batchSize = 25

// edgeWriter sends its rows 25 to a request, one request at a time; a row
// whose edge is already in the request being filled starts the next one
// (BatchWriteItem refuses a key twice, and order must hold).
func (im *importer) edgeWriter(ctx context.Context, q <-chan job) error {
	batch := make([]job, 0, batchSize)
	reqs := make([]types.WriteRequest, 0, batchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := im.sendBatch(ctx, batch, reqs)
		// A new slice for the next request: Explain may keep this one.
		batch, reqs = batch[:0], make([]types.WriteRequest, 0, batchSize)
		return err
	}
	for j := range q {
		req, err := im.writeRequest(j.row)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(batch, func(b job) bool { return b.key == j.key }) {
			if err := flush(); err != nil {
				return err
			}
		}
		batch, reqs = append(batch, j), append(reqs, req)
		if len(batch) == batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// sendBatch writes one batch, sending UnprocessedItems again until none is
// left, then marks its rows written.
func (im *importer) sendBatch(ctx context.Context, batch []job, reqs []types.WriteRequest) error {
	if err := im.s.writeAll(ctx, reqs, im.opt.RetryFor, im.stats, "write batch"); err != nil {
		return fmt.Errorf("import %s: %w", im.rep.Name, err)
	}
	im.rowsDone(batch, 0, 0)
	return nil
}

// entityWriter writes entity rows one UpdateItem each: SET the row's
// attributes, REMOVE the declared ones it leaves empty, never touching
// counters (they are not attributes of the row).
func (im *importer) entityWriter(ctx context.Context, q <-chan job) error {
	for j := range q {
		out, err := im.putEntityRow(ctx, j.row)
		if err != nil {
			return err
		}
		created, updated := 0, 0
		switch out {
		case Created:
			created = 1
		case Updated:
			updated = 1
		}
		im.rowsDone([]job{j}, created, updated)
	}
	return nil
}

func (im *importer) putEntityRow(ctx context.Context, row rowfile.Row) (Outcome, error) {
	e := im.ent
	key := row.ID
	names, values, err := im.s.marshalAttrs(row.AttrMap())
	if err != nil {
		return "", fmt.Errorf("line %d: %w", row.Line, err)
	}
	// The entity item as put writes it, with the declared attributes the
	// row leaves out removed.
	var removed []string
	for _, a := range e.Attributes {
		if _, ok := values[a.Name]; !ok {
			removed = append(removed, a.Name)
		}
	}
	upd, want, sets := im.s.entityUpdate(e, key, names, values, removed)
	if sets+len(removed) == 0 {
		// Nothing to write but the key (inverted layout, no attributes).
		out, err := im.s.putBareEntity(ctx, key)
		im.stats.add(reqUpdate)
		return out, err
	}
	in, err := im.s.entityUpdateInput(key, upd)
	if err != nil {
		return "", err
	}
	r := newBackoff(im.opt.RetryFor)
	for {
		out, err := im.s.updateItem(ctx, in)
		im.stats.add(reqUpdate)
		if err == nil {
			if im.s.explaining() {
				return "", nil
			}
			return putOutcome(out.Attributes, want, removed), nil
		}
		if !retryable(err) {
			return "", fmt.Errorf("import %s: put %s (line %d): %w", e.Name, key, row.Line, err)
		}
		if werr := r.wait(ctx, err); werr != nil {
			return "", fmt.Errorf("import %s: put %s (line %d): %w", e.Name, key, row.Line, werr)
		}
	}
}

// rowsDone counts written rows and their chunks.
func (im *importer) rowsDone(batch []job, created, updated int) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.rep.Written += len(batch)
	if im.ent != nil {
		im.rep.Created += created
		im.rep.Updated += updated
	}
	im.written += len(batch)
	for _, j := range batch {
		im.chunks.done(j.chunk)
	}
	if im.opt.Progress != nil {
		im.opt.Progress(ImportProgress{Phase: "write", Rows: im.written + im.rep.Skipped})
	}
}
