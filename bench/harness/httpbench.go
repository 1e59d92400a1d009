package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// benchHTTP measures the HTTP workloads once per client mode (-client). The
// first mode's ratios are the targets' verdicts; the others' are printed as
// informational figures, so the report shows every mode's numbers.
func benchHTTP(ctx context.Context, cfg *config, bin string, binOK bool, rep *report, stderr io.Writer) {
	for i, mode := range cfg.clientModes {
		if ctx.Err() != nil {
			return
		}
		benchHTTPMode(ctx, cfg, mode, i == 0, bin, binOK, rep, stderr)
	}
}

// clientLabel names a client mode in the report.
func clientLabel(mode string) string {
	if mode == clientRaw {
		return "raw net/http client (pre-built JSON)"
	}
	return "aws-sdk-go-v2 client"
}

// benchHTTPMode starts every target, measures both HTTP workloads on each in
// turn (never two at once: they share two cores with the load generator)
// with the given client mode and adds the adjl/reference ratios to the
// report: as checks when primary, else as informational figures.
func benchHTTPMode(ctx context.Context, cfg *config, mode string, primary bool, bin string, binOK bool, rep *report, stderr io.Writer) {
	sec := fmt.Sprintf("HTTP workloads, %s (successful req/s, latency p50/p99)", clientLabel(mode))
	// Servers start in parallel (moto alone takes seconds to import); they
	// sit idle until their turn.
	names := strings.Split(cfg.targets, ",")
	type startResult struct {
		t   *target
		err error
	}
	results := make([]startResult, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		progress(stderr, "starting %s (%s client)", names[i], mode)
		wg.Go(func() {
			t, err := startTarget(ctx, cfg, names[i], bin, binOK)
			results[i] = startResult{t, err}
		})
	}
	wg.Wait()
	started := map[string]*target{}
	reasons := map[string]string{}
	for i, name := range names {
		t, err := results[i].t, results[i].err
		if err != nil {
			reasons[name] = err.Error()
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s not measured (%s client): %v", name, mode, err))
			continue
		}
		started[name] = t
		defer t.Stop()
		if primary {
			rep.Header = append(rep.Header, fmt.Sprintf("target %-8s %s", name, t.Detail))
		}
	}

	// Set up every target, then measure in rounds, target after target, so
	// that a change in the machine's load hits every target alike; each
	// figure is the round with the median rate.
	var order []*serverBench
	for _, name := range names {
		t := started[name]
		if t == nil || ctx.Err() != nil {
			continue
		}
		progress(stderr, "setting up %s (tables, %d seed items)", t.Name, hotEdges+cfg.otherEdges)
		b, err := newServerBench(ctx, t, mode, cfg.clients, cfg.otherEdges)
		if err != nil {
			reasons[t.Name] = err.Error()
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		defer b.Close()
		order = append(order, b)
	}
	rounds := map[[2]string][]runStats{} // (workload, target) -> per round
	for r := range cfg.rounds {
		for _, b := range order {
			if ctx.Err() != nil {
				break
			}
			progress(stderr, "round %d/%d: measuring %s (%s client)", r+1, cfg.rounds, b.t.Name, mode)
			for _, run := range b.round(ctx, r, cfg.warm, cfg.run) {
				k := [2]string{run.Workload, run.Target}
				rounds[k] = append(rounds[k], run.Stats)
			}
		}
	}
	for _, b := range order {
		if err := b.t.Stop(); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("stopping %s: %v", b.t.Name, err))
		}
	}

	perSec := map[string]map[string]float64{}       // workload -> target -> req/s
	cpuPer := map[string]map[string]time.Duration{} // workload -> target -> server CPU per request
	for _, wl := range []string{wlPut, wlQuery} {
		perSec[wl] = map[string]float64{}
		cpuPer[wl] = map[string]time.Duration{}
		for _, b := range order {
			runs := rounds[[2]string{wl, b.t.Name}]
			if len(runs) == 0 {
				continue
			}
			s, rates, errs := medianRun(runs)
			detail := fmt.Sprintf("p50 %s  p99 %s  %d requests in %s  harness CPU %.0f%%",
				fmtDur(s.P50), fmtDur(s.P99), s.Requests, s.Elapsed.Round(time.Millisecond),
				100*s.ClientCPU.Seconds()/s.Elapsed.Seconds())
			total, clientErrs := 0, 0
			for _, r := range runs {
				total += r.Requests
				clientErrs += r.ClientErrors
			}
			// Rates count successes only. A target failing more than 0.1% of
			// its requests is not doing the work and gets no ratio at all;
			// the client's own transport failures are allowed up to 1%.
			serverErrs := errs - clientErrs
			usable := s.Requests > 0 && serverErrs*1000 <= total && clientErrs*100 <= total
			if s.ServerCPU > 0 {
				detail += fmt.Sprintf("  server CPU %.0f%% = %s/req", 100*s.ServerCPU.Seconds()/s.Elapsed.Seconds(), fmtDur(s.CPUPerRequest()))
				if usable {
					cpuPer[wl][b.t.Name] = s.CPUPerRequest()
				}
			}
			if len(runs) > 1 {
				detail += "  rounds: " + rates
			}
			if errs > 0 {
				detail += fmt.Sprintf("  %d ERRORS (%d client-side)", errs, clientErrs)
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s on %s, %s client: %d of %d requests failed (all rounds; %d of them the client's own \"use of closed network connection\", cf. aws/aws-sdk-go-v2#1825); first error: %v",
					wl, b.t.Name, mode, errs, total, clientErrs, firstErr(runs)))
				if !usable && reasons[b.t.Name] == "" {
					reasons[b.t.Name] = fmt.Sprintf("%s failed %d of %d requests", wl, errs, total)
				}
			}
			rep.Figures = append(rep.Figures, figure{Section: sec, Name: wl + " · " + b.t.Name,
				Value: fmtNum(s.PerSec(), "req/s"), Detail: detail})
			if usable {
				perSec[wl][b.t.Name] = s.PerSec()
			}
		}
	}

	// Server CPU per request: the efficiency behind the rates, much less
	// sensitive to other work on the machine than req/s. Informational.
	effSec := fmt.Sprintf("Server CPU per request, %s client (informational: reference CPU/req over adjl CPU/req)", mode)
	for _, wl := range []string{wlPut, wlQuery} {
		a := cpuPer[wl]["adjl"]
		for _, ref := range []string{"moto", "dynalite"} {
			if r := cpuPer[wl][ref]; a > 0 && r > 0 {
				rep.Figures = append(rep.Figures, figure{Section: effSec, Name: fmt.Sprintf("%s adjl vs %s", wl, ref),
					Value: fmtNum(r.Seconds()/a.Seconds(), "x"), Detail: fmt.Sprintf("%s vs %s of server CPU per request", fmtDur(a), fmtDur(r))})
			}
		}
	}

	for _, wl := range []string{wlPut, wlQuery} {
		for _, ref := range []struct {
			name string
			want float64
		}{{"moto", 10}, {"dynalite", 3}} {
			name := fmt.Sprintf("%s adjl/%s", wl, ref.name)
			a, r := perSec[wl]["adjl"], perSec[wl][ref.name]
			if !primary {
				if a > 0 && r > 0 {
					rep.Figures = append(rep.Figures, figure{Section: fmt.Sprintf("Ratios with the %s (informational; the targets are judged on the %s client)", clientLabel(mode), cfg.clientModes[0]),
						Name: name, Value: fmtNum(a/r, "x"), Detail: fmt.Sprintf("target ≥ %.0fx  (%s vs %s req/s)", ref.want, thousands(a), thousands(r))})
				}
				continue
			}
			switch {
			case a == 0:
				rep.Checks = append(rep.Checks, skipped(areaEngine, name, fmt.Sprintf("≥ %.2fx", ref.want), "adjl not measured: "+orUnknown(reasons["adjl"])))
			case r == 0:
				rep.Checks = append(rep.Checks, skipped(areaEngine, name, fmt.Sprintf("≥ %.2fx", ref.want), ref.name+" not measured: "+orUnknown(reasons[ref.name])))
			default:
				c := atLeast(areaEngine, name, a/r, ref.want, "x")
				c.Note = fmt.Sprintf("(%s vs %s req/s, %s client)", thousands(a), thousands(r), mode)
				rep.Checks = append(rep.Checks, c)
			}
		}
	}
}

func startTarget(ctx context.Context, cfg *config, name, bin string, binOK bool) (*target, error) {
	switch name {
	case "moto":
		return startMoto(ctx, cfg.outDir)
	case "dynalite":
		return startDynalite(ctx, filepath.Join(cfg.root, "bench"), cfg.outDir)
	case "adjl":
		serve := binOK && hasServe(bin)
		switch {
		case cfg.adjlMode == "serve" || (cfg.adjlMode == "auto" && serve):
			if !serve {
				return nil, fmt.Errorf("%s has no `local serve --in-memory --addr` command", bin)
			}
			return startAdjlServe(ctx, bin, cfg.outDir, "adjl-serve.log")
		case cfg.adjlMode == "inproc" || cfg.adjlMode == "auto":
			return startAdjlInProcess(ctx)
		}
		return nil, fmt.Errorf("unknown -adjl mode %q", cfg.adjlMode)
	}
	return nil, fmt.Errorf("unknown target %q", name)
}

func orUnknown(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
}

// medianRun picks the round with the median rate and lists every round's
// rate; errs counts failed requests over all rounds.
func medianRun(runs []runStats) (runStats, string, int) {
	med, rates := medianRound(runs)
	errs := 0
	for _, r := range runs {
		errs += r.Errors
	}
	return med, strings.Join(rates, ", "), errs
}

func firstErr(runs []runStats) error {
	for _, r := range runs {
		if r.FirstErr != nil {
			return r.FirstErr
		}
	}
	return nil
}
