package cmd

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// currentGC reads GOGC and the memory limit without changing them.
func currentGC() (percent int, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

func TestBulkGCSettings(t *testing.T) {
	percent, limit := currentGC()
	for _, c := range []struct {
		name  string
		be    *backend
		env   map[string]string
		tuned bool
		// percentOnly: GOGC is raised and the limit left as it is
		percentOnly bool
	}{
		{"a server at a URL, or AWS", &backend{}, nil, true, false},
		{"the engine in process on a data file keeps its limit", &backend{exclusive: true, memoryLimited: true}, nil, true, true},
		{"the in-memory engine in process, with no limit, keeps the defaults", &backend{exclusive: true}, nil, false, false},
		{"GOGC in the environment wins", &backend{}, map[string]string{"GOGC": "200"}, false, false},
		{"GOGC in the environment wins over the engine's", &backend{exclusive: true, memoryLimited: true}, map[string]string{"GOGC": "200"}, false, false},
		{"GOMEMLIMIT in the environment wins", &backend{}, map[string]string{"GOMEMLIMIT": "1GiB"}, false, false},
		{"an empty GOGC is no setting (as for Go)", &backend{}, map[string]string{"GOGC": ""}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &app{be: c.be, getenv: func(k string) (string, bool) {
				v, ok := c.env[k]
				return v, ok
			}}
			restore := a.tuneGCForBulk()
			gotPercent, gotLimit := currentGC()
			restore()
			if c.percentOnly && (gotPercent != bulkGCPercent || gotLimit != limit) {
				t.Errorf("during the command: GOGC %d, limit %d; want %d and the process's %d", gotPercent, gotLimit, bulkGCPercent, limit)
			}
			if c.tuned && !c.percentOnly && (gotPercent != bulkGCPercent || gotLimit != bulkMemoryLimit) {
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

// TestBulkGCOnTheEngineInProcess: the engine in process on its data file
// marks its backend as running under engineMemoryLimit exactly when it set
// that limit, and a bulk command on that backend then raises GOGC alone;
// with GOMEMLIMIT in the environment, or on the in-memory engine of a data
// file not created yet, neither happens.
func TestBulkGCOnTheEngineInProcess(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	t.Setenv("GOGC", "") // no setting, whatever runs the tests
	percent, limit := currentGC()
	for _, c := range []struct {
		name, data, gomemlimit string
		limited                bool
	}{
		{"a data file", s.data, "", true},
		{"a data file, GOMEMLIMIT in the environment", s.data, "200MiB", false},
		{"no data file yet: the in-memory engine", filepath.Join(s.dir, "none.db"), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.gomemlimit)
			var set []int64
			a := newApp(NewIOStreams(strings.NewReader(""), io.Discard, io.Discard), nil)
			a.setMemoryLimit = func(n int64) int64 { set = append(set, n); return 0 }
			be, err := a.openLocal(context.Background(), c.data)
			if err != nil {
				t.Fatal(err)
			}
			defer be.close()
			if be.memoryLimited != c.limited || (len(set) > 0) != c.limited {
				t.Errorf("backend marked limited %v, limits set %v; want limited %v", be.memoryLimited, set, c.limited)
			}
			a.be = be
			restore := a.tuneGCForBulk()
			gotPercent, gotLimit := currentGC()
			restore()
			wantPercent := percent
			if c.limited {
				wantPercent = bulkGCPercent
			}
			if gotPercent != wantPercent || gotLimit != limit {
				t.Errorf("during the command: GOGC %d, limit %d; want %d, %d", gotPercent, gotLimit, wantPercent, limit)
			}
		})
	}
}

// Past the live-heap ceiling the defaults come back by themselves, so the
// memory limit never holds a heap that needs more.
func TestRaiseGCGivesUpPastTheLiveCeiling(t *testing.T) {
	percent, limit := currentGC()
	restore := raiseGC(bulkGCPercent, bulkMemoryLimit, 1<<20, time.Millisecond)
	defer restore()
	if p, _ := currentGC(); p != bulkGCPercent {
		t.Fatalf("GOGC %d after raiseGC, want %d", p, bulkGCPercent)
	}
	live := make([][]byte, 0, 16)
	for range 16 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC() // makes the live heap known
		if p, l := currentGC(); p == percent && l == limit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with %d MiB live, GOGC and the limit stayed raised", len(live))
		}
		time.Sleep(5 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}
