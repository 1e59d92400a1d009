package ops

import "sync"

// chunkTracker knows which chunks are entirely written and reports the
// length of the written prefix as it grows.
type chunkTracker struct {
	mu      sync.Mutex
	pending map[int]int // rows dispatched and not yet written, by chunk
	sealed  int         // chunks below this have all their rows dispatched
	prefix  int         // chunks below this are written
	report  func(int)
}

func newChunkTracker(skip int, report func(int)) *chunkTracker {
	return &chunkTracker{pending: map[int]int{}, prefix: skip, sealed: skip, report: report}
}

func (c *chunkTracker) add(chunk int) {
	c.mu.Lock()
	c.pending[chunk]++
	c.mu.Unlock()
}

// seal says every row of the chunks below chunk has been dispatched.
func (c *chunkTracker) seal(chunk int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if chunk > c.sealed {
		c.sealed = chunk
		c.advance()
	}
}

func (c *chunkTracker) done(chunk int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[chunk]--; c.pending[chunk] == 0 {
		delete(c.pending, chunk)
	}
	c.advance()
}

// finish marks the last chunk written once every write is acknowledged.
func (c *chunkTracker) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealed++
	c.advance()
}

func (c *chunkTracker) advance() {
	old := c.prefix
	for c.prefix < c.sealed && c.pending[c.prefix] == 0 {
		c.prefix++
	}
	if c.prefix != old && c.report != nil {
		c.report(c.prefix)
	}
}
