package main

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// budget bounds one measured run: it stops at whichever comes first.
type budget struct {
	Requests int
	Duration time.Duration
}

// runStats is what one (workload, target) run measured.
type runStats struct {
	Requests int // requests that completed, including failed ones
	Errors   int // failed requests, of which:
	// ClientErrors failed in the client's connection handling, not in the
	// server (see isClientTransportError).
	ClientErrors int
	FirstErr     error
	Elapsed      time.Duration
	P50, P99     time.Duration
	// ClientCPU is the CPU time this process used during the run: the load
	// generator's share of the two cores (and the server's too when the
	// engine runs in process).
	ClientCPU time.Duration
	// ServerCPU is the CPU time the server's processes used during the run
	// (0 when the server runs inside the harness).
	ServerCPU time.Duration
}

// CPUPerRequest is the server's CPU time per successful request.
func (s runStats) CPUPerRequest() time.Duration {
	ok := s.Requests - s.Errors
	if ok <= 0 || s.ServerCPU <= 0 {
		return 0
	}
	return s.ServerCPU / time.Duration(ok)
}

// PerSec is the throughput of successful requests.
func (s runStats) PerSec() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests-s.Errors) / s.Elapsed.Seconds()
}

// runConcurrent calls op from `clients` goroutines with increasing sequence
// numbers until the budget is spent. Each goroutine keeps its own latency
// samples so that measuring does not add contention between clients.
func runConcurrent(ctx context.Context, clients int, b budget, op func(ctx context.Context, client, seq int) error) runStats {
	var next atomic.Int64
	var mu sync.Mutex
	var st runStats
	var all []time.Duration
	deadline := time.Now().Add(b.Duration)
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(30*time.Second))
	defer cancel()
	cpu0 := selfCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1024)
			errs, clientErrs := 0, 0
			var first error
			for {
				seq := int(next.Add(1) - 1)
				if seq >= b.Requests || time.Now().After(deadline) || ctx.Err() != nil {
					break
				}
				t0 := time.Now()
				err := op(ctx, c, seq)
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs++
					if isClientTransportError(err) {
						clientErrs++
					}
					if first == nil {
						first = err
					}
				}
			}
			mu.Lock()
			all = append(all, lat...)
			st.Errors += errs
			st.ClientErrors += clientErrs
			if st.FirstErr == nil {
				st.FirstErr = first
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	st.Elapsed = time.Since(start)
	st.ClientCPU = selfCPU() - cpu0
	st.Requests = len(all)
	st.P50, st.P99 = percentile(all, 50), percentile(all, 99)
	return st
}

// percentile returns the p-th percentile (nearest rank) of d, sorting it.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(float64(len(d))*p/100+0.5) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// selfCPU is the user+system CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// isClientTransportError reports the aws-sdk-go-v2 / net/http failure in
// which the client's own connection is closed under a response it is still
// reading ("deserialization failed … use of closed network connection",
// aws/aws-sdk-go-v2#1825 and #2737). It reproduces against a static
// net/http handler, so it says nothing about the server; the SDK's default
// retryer retries it.
func isClientTransportError(err error) bool {
	return strings.Contains(err.Error(), "use of closed network connection")
}

// medianRound picks, of rounds measured alike, the one with the median rate
// (the upper one of an even count), and gives every round's rate in order.
func medianRound[R interface{ PerSec() float64 }](rounds []R) (R, []string) {
	sorted := slices.Clone(rounds)
	slices.SortFunc(sorted, func(a, b R) int { return cmp.Compare(a.PerSec(), b.PerSec()) })
	rates := make([]string, len(rounds))
	for i, r := range rounds {
		rates[i] = thousands(r.PerSec())
	}
	return sorted[len(sorted)/2], rates
}
