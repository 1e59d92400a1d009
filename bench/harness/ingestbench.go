package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// ingestTarget is the engine's floor for in-process bulk ingest on 2 cores.
const (
	ingestTarget      = 50_000
	ingestRatioTarget = 0.5
)

// benchIngest measures BatchWriteItem ingest through the engine's in-process
// client against the raw-bbolt baseline, on a data file (fsync per commit, as
// the default backend) and in memory (no fsync, as `local serve --in-memory`).
func benchIngest(ctx context.Context, cfg *config, rep *report, stderr io.Writer) {
	const sec = "In-process ingest (BatchWriteItem of edge items, table with GSI1, batches of 25)"
	// A data file commits with fsync, one per batch for the raw baseline: a
	// fifth of the items keeps that run to seconds on an ordinary disk, and
	// is still enough for the engine to checkpoint its log in the background
	// once before the final checkpoint, which the timing includes.
	for _, m := range []struct {
		label    string
		inMemory bool
		items    int
	}{{"data file", false, max(cfg.ingestItems/5, ingestBatch)}, {"in-memory", true, cfg.ingestItems}} {
		if ctx.Err() != nil {
			return
		}
		rateName := fmt.Sprintf("ingest items/s (%s)", m.label)
		ratioName := fmt.Sprintf("ingest engine/raw bbolt (%s)", m.label)
		if !engineLinked {
			rep.Checks = append(rep.Checks,
				skipped(areaEngine, rateName, "≥ 50,000 items/s", "harness built with -tags nolocal"),
				skipped(areaEngine, ratioName, "≥ 0.50x", "harness built with -tags nolocal"))
			continue
		}
		var rawErr error
		// Rounds alternate engine and baseline, so that a change in the
		// disk's or the host's speed (fsync latency here varied 2× within an
		// hour) hits both; each figure is the median round, as for HTTP.
		var engs, raws []ingestResult
		for r := range cfg.rounds {
			dir, err := os.MkdirTemp("", "adjl-bench-ingest-")
			if err != nil {
				rep.Notes = append(rep.Notes, "ingest: "+err.Error())
				return
			}
			progress(stderr, "ingest %s, round %d/%d: engine, %d items", m.label, r+1, cfg.rounds, m.items)
			res, err := engineIngest(ctx, dir, m.inMemory, m.items, cfg.ingestWorker)
			if err != nil {
				os.RemoveAll(dir)
				engs = nil
				rep.Checks = append(rep.Checks,
					skipped(areaEngine, rateName, "≥ 50,000 items/s", "engine ingest failed: "+err.Error()),
					skipped(areaEngine, ratioName, "≥ 0.50x", "engine ingest failed"))
				break
			}
			engs = append(engs, res)
			if res.ScanNote != "" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("engine bug seen after ingest (%s, round %d): %s", m.label, r+1, res.ScanNote))
			}
			progress(stderr, "ingest %s, round %d/%d: raw bbolt, %d items", m.label, r+1, cfg.rounds, m.items)
			if res, err = rawBboltIngest(ctx, dir, m.items, m.inMemory); err != nil {
				rawErr = err
			} else {
				raws = append(raws, res)
			}
			os.RemoveAll(dir)
		}
		if len(engs) == 0 {
			continue
		}
		eng, engRounds := medianIngest(engs)
		rep.Figures = append(rep.Figures, figure{Section: sec, Name: "engine · " + m.label,
			Value:  fmtNum(eng.PerSec(), "items/s"),
			Detail: fmt.Sprintf("%d items in %s, %d workers, via local.Engine.HTTPClient%s", eng.Items, eng.Elapsed.Round(1e6), cfg.ingestWorker, engRounds)})
		rep.Checks = append(rep.Checks, atLeast(areaEngine, rateName, eng.PerSec(), ingestTarget, "items/s"))
		if len(raws) == 0 {
			rep.Checks = append(rep.Checks, skipped(areaEngine, ratioName, "≥ 0.50x", "raw bbolt baseline failed: "+rawErr.Error()))
			continue
		}
		raw, rawRounds := medianIngest(raws)
		rep.Figures = append(rep.Figures, figure{Section: sec, Name: "raw bbolt · " + m.label,
			Value:  fmtNum(raw.PerSec(), "items/s"),
			Detail: fmt.Sprintf("%d items in %s, same keys, item bytes and batches, 1 writer%s", raw.Items, raw.Elapsed.Round(1e6), rawRounds)})
		rep.Checks = append(rep.Checks, atLeast(areaEngine, ratioName, eng.PerSec()/raw.PerSec(), ingestRatioTarget, "x"))
	}
}

// medianIngest returns the round with the median rate and, when there was
// more than one, every round's rate for the report.
func medianIngest(rounds []ingestResult) (ingestResult, string) {
	med, rates := medianRound(rounds)
	if len(rounds) == 1 {
		return med, ""
	}
	return med, "; rounds: " + strings.Join(rates, " / ") + " (median)"
}
