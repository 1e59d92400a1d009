package testkit

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var level = flag.Int("testkit.level", 1, "a flag for the test")

func TestSetFlagDefaultLastsForTheTest(t *testing.T) {
	t.Run("inner", func(t *testing.T) {
		SetFlagDefault(t, "testkit.level", "7")
		if *level != 7 {
			t.Fatalf("level %d during the test, want 7", *level)
		}
		SetFlagDefault(t, "testkit.nosuch", "1") // no such flag: nothing happens
	})
	if *level != 1 {
		t.Fatalf("level %d after the test, want 1 again", *level)
	}
}

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestWaitOrDump(t *testing.T) {
	r := &recorder{TB: t}
	WaitOrDump(r, time.Second, "quick", func() {})
	if r.msg != "" {
		t.Fatalf("a wait that returned failed: %q", r.msg)
	}
	release := make(chan struct{})
	defer close(release)
	WaitOrDump(r, 10*time.Millisecond, "stuck here", func() { <-release })
	if !strings.HasPrefix(r.msg, "stuck here\n") || !strings.Contains(r.msg, "goroutine") {
		t.Fatalf("a hang reported %q, want the message and the stacks", r.msg)
	}
}
