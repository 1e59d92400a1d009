// Package testkit holds helpers that the tests of package local and of its
// internal packages share.
package testkit

import (
	"flag"
	"runtime"
	"testing"
	"time"
)

// SetFlagDefault sets flag name (rapid's, say) to value for the rest of t,
// unless the command line set it (an explicit -rapid.steps wins) or no such
// flag exists.
func SetFlagDefault(t testing.TB, name, value string) {
	f := flag.Lookup(name)
	explicit := false
	flag.Visit(func(v *flag.Flag) { explicit = explicit || v.Name == name })
	if f == nil || explicit {
		return
	}
	old := f.Value.String()
	f.Value.Set(value)
	t.Cleanup(func() { f.Value.Set(old) })
}

// WaitOrDump runs wait and fails the test, with every goroutine's stack, if
// it has not returned within d: a hang then shows where each one is stuck.
func WaitOrDump(t testing.TB, d time.Duration, what string, wait func()) {
	t.Helper()
	finished := make(chan struct{})
	go func() { wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("%s\n%s", what, buf[:runtime.Stack(buf, true)])
	}
}
