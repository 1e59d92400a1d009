package ops

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// source reads one partition page by page. Only the edges of the plan's
// relation are buffered; the entity item, when met, is kept by the merger.
type source struct {
	in   *dynamodb.QueryInput // template: no Limit, no ExclusiveStartKey
	esk  Item                 // ExclusiveStartKey of the next request
	more bool                 // pages remain to be read
	buf  []Item
	last map[string]string // keys of the last item returned, from the cursor
	// lastItem is the last item returned on this page; its keys are only
	// extracted when a cursor is built.
	lastItem Item
	done     bool            // the cursor said every item was already returned
	ch       chan pageResult // prefetch mode: pages read ahead by a goroutine
}

type pageResult struct {
	items []Item
	next  Item
	err   error
}

// merger merges the sources in the plan's order. With one source it is
// just a paged reader; with N it is a k-way merge whose memory is bounded by
// one page (plus one read ahead) per source.
type merger struct {
	s      *Store
	p      *plan
	srcs   []*source
	limit  int32 // Limit of each Query
	entity Item
	// floor is the last item the previous page returned (the greatest of the
	// shards' positions). Edges written since then behind it, in a shard
	// that had not reached it, are skipped: pages stay in order, as with one
	// partition.
	floor Item
	sem   chan struct{} // bounds concurrent Queries
	wg    sync.WaitGroup
}

func (s *Store) newMerger(p *plan, c cursor, limit int32) *merger {
	m := &merger{s: s, p: p, limit: limit, sem: make(chan struct{}, s.opt.Parallel)}
	for i, in := range p.inputs {
		src := &source{in: in, more: true}
		switch {
		case len(p.inputs) == 1:
			src.last = c.K
		case i < len(c.S):
			src.last, src.done = c.S[i].K, c.S[i].D
		}
		src.esk = p.startKey(src.last)
		if src.esk != nil && (m.floor == nil || p.less(m.floor, src.esk)) {
			m.floor = src.esk
		}
		if src.done {
			src.more = false
		}
		m.srcs = append(m.srcs, src)
	}
	return m
}

// fetch reads one page of src starting at esk.
func (m *merger) fetch(ctx context.Context, src *source, esk Item) pageResult {
	in := *src.in
	in.Limit = aws.Int32(m.limit)
	in.ExclusiveStartKey = esk
	m.sem <- struct{}{}
	out, err := m.s.query(ctx, &in)
	<-m.sem
	if err != nil {
		return pageResult{err: err}
	}
	if m.p.onRead != nil {
		m.p.onRead(out.ScannedCount, out.Count)
	}
	return pageResult{items: out.Items, next: out.LastEvaluatedKey}
}

// take files a page: edges into the buffer, the entity aside. A reverse
// page holding an edge written under another shard count is refused.
func (m *merger) take(ctx context.Context, src *source, r pageResult) error {
	if m.p.dir == Reverse {
		if err := m.s.checkEdgeStamps(ctx, m.p.rel, r.items); err != nil {
			return err
		}
	}
	if err := m.p.checkOrderedKeys(m.s.schema.Table.Name, r.items); err != nil {
		return err
	}
	for _, it := range r.items {
		switch {
		case m.p.isEdge(it):
			if m.floor != nil && !m.p.less(m.floor, it) {
				continue
			}
			src.buf = append(src.buf, it)
		case m.p.withEntity && m.p.isEntity(it):
			m.entity = it
		}
	}
	src.esk = r.next
	src.more = len(r.next) > 0
	return nil
}

// prefetch starts one goroutine per source that reads pages ahead (one page
// in flight, one waiting), for streaming. stop cancels and waits for them.
func (m *merger) prefetch(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	for _, src := range m.srcs {
		if !src.more {
			continue
		}
		src.ch = make(chan pageResult, 1)
		m.wg.Add(1)
		go func(src *source, esk Item) {
			defer m.wg.Done()
			defer close(src.ch)
			for {
				r := m.fetch(ctx, src, esk)
				select {
				case src.ch <- r:
				case <-ctx.Done():
					return
				}
				if r.err != nil || len(r.next) == 0 {
					return
				}
				esk = r.next
			}
		}(src, src.esk)
	}
	return func() { cancel(); m.wg.Wait() }
}

// fillAll reads the first page of every source, in parallel (bounded by
// the semaphore); under Explain in order, so the requests print in order.
func (m *merger) fillAll(ctx context.Context) error {
	if m.s.explaining() || len(m.srcs) == 1 {
		for _, src := range m.srcs {
			if err := m.fill(ctx, src); err != nil {
				return err
			}
		}
		return nil
	}
	results := make([]pageResult, len(m.srcs))
	var wg sync.WaitGroup
	for i, src := range m.srcs {
		if !src.more {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = m.fetch(ctx, src, src.esk)
		}()
	}
	wg.Wait()
	for i, src := range m.srcs {
		if !src.more {
			continue
		}
		if results[i].err != nil {
			return results[i].err
		}
		if err := m.take(ctx, src, results[i]); err != nil {
			return err
		}
	}
	return nil
}

// fill reads pages of src until it has a buffered edge or is exhausted
// (pages may hold only filtered-out items).
func (m *merger) fill(ctx context.Context, src *source) error {
	for len(src.buf) == 0 && src.more {
		var r pageResult
		if src.ch != nil {
			var ok bool
			r, ok = <-src.ch
			if !ok {
				src.more = false
				return ctx.Err()
			}
		} else {
			r = m.fetch(ctx, src, src.esk)
		}
		if r.err != nil {
			return r.err
		}
		if err := m.take(ctx, src, r); err != nil {
			return err
		}
	}
	return nil
}

// head returns the index of the source holding the next item, -1 when every
// source is exhausted.
func (m *merger) head(ctx context.Context) (int, error) {
	best := -1
	for i, src := range m.srcs {
		if err := m.fill(ctx, src); err != nil {
			return -1, err
		}
		if len(src.buf) == 0 {
			continue
		}
		if best < 0 || m.p.less(src.buf[0], m.srcs[best].buf[0]) {
			best = i
		}
	}
	return best, nil
}

// pop removes and returns the head item of source i, remembering it as the
// source's last returned item.
func (m *merger) pop(i int) Item {
	src := m.srcs[i]
	it := src.buf[0]
	src.buf[0] = nil
	src.buf = src.buf[1:]
	src.lastItem = it
	return it
}

// cursor is the position after the items popped so far.
func (m *merger) cursor() string {
	c := cursor{Q: m.p.ident}
	last := func(src *source) map[string]string {
		if src.lastItem != nil {
			return m.p.keysOf(src.lastItem)
		}
		return src.last
	}
	if len(m.srcs) == 1 {
		c.K = last(m.srcs[0])
		return encodeCursor(c)
	}
	for _, src := range m.srcs {
		// A finished shard keeps its last key too: it is part of the floor.
		c.S = append(c.S, shardCursor{K: last(src), D: src.done || (len(src.buf) == 0 && !src.more)})
	}
	return encodeCursor(c)
}
