package cmd

import (
	"runtime/debug"
	"testing"
)

// currentGC reads the collector's settings without changing them.
func currentGC() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1) // a negative limit reads it
}

func TestBulkGCSettings(t *testing.T) {
	percent, limit := currentGC()
	for _, c := range []struct {
		name     string
		endpoint string
		env      map[string]string
		tuned    bool
	}{
		{"a server at a URL", "http://127.0.0.1:8000", nil, true},
		{"AWS", "aws", nil, true},
		{"the embedded engine in this process keeps the defaults", "local", nil, false},
		{"GOGC in the environment wins", "aws", map[string]string{"GOGC": "200"}, false},
		{"GOMEMLIMIT in the environment wins", "aws", map[string]string{"GOMEMLIMIT": "1GiB"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &app{set: &settings{Endpoint: c.endpoint}, getenv: func(k string) (string, bool) {
				v, ok := c.env[k]
				return v, ok
			}}
			restore := a.tuneGCForBulk()
			gotPercent, gotLimit := currentGC()
			restore()
			if c.tuned && (gotPercent != bulkGCPercent || gotLimit != bulkMemoryLimit) {
				t.Errorf("during the command: GOGC %d, limit %d; want %d, %d", gotPercent, gotLimit, bulkGCPercent, bulkMemoryLimit)
			}
			if !c.tuned && (gotPercent != percent || gotLimit != limit) {
				t.Errorf("during the command: GOGC %d, limit %d; want the process's %d, %d", gotPercent, gotLimit, percent, limit)
			}
			if p, l := currentGC(); p != percent || l != limit {
				t.Errorf("after the command: GOGC %d, limit %d; want them back at %d, %d", p, l, percent, limit)
			}
		})
	}
}
