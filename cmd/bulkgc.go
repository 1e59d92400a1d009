package cmd

import "runtime/debug"

// Bulk commands (import, export, counters) allocate a few short-lived
// objects per row and keep little: with Go's default GOGC=100 the collector
// runs every few megabytes and takes a quarter of an import's CPU, which on
// a machine shared with the server it writes to is the import's speed.
// Letting the heap grow to five times what is live, up to bulkMemoryLimit,
// costs some tens of megabytes and removes most of that work. The embedded
// engine in this process keeps its defaults: its heap is what is live there,
// and its speed is its commits'.
const (
	bulkGCPercent   = 400
	bulkMemoryLimit = 512 << 20
)

// tuneGCForBulk sets the collector for a bulk command and returns what puts
// the previous settings back. GOGC or GOMEMLIMIT in the environment win.
func (a *app) tuneGCForBulk() (restore func()) {
	_, gogc := a.getenv("GOGC")
	_, limit := a.getenv("GOMEMLIMIT")
	if a.set.Endpoint == "local" || gogc || limit {
		return func() {}
	}
	percent := debug.SetGCPercent(bulkGCPercent)
	bytes := debug.SetMemoryLimit(bulkMemoryLimit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(bytes)
	}
}
