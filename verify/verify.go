// Package verify runs every access pattern of a schema against a scratch
// table and checks it does what `adjl schema show` says: the right result,
// exactly the requests the pattern names (and never a Scan), and the
// capacity those requests consume. It seeds the table with generated data
// through ops, the code path the CLI uses, and deletes the table afterwards.
package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Result is one access pattern's run.
type Result struct {
	Pattern schema.Pattern
	// Want are the requests schema show names; Sent what was sent, in order
	// ("Query GSI1").
	Want []schema.Request
	Sent []string
	// WantCapacity is schema show's capacity; Read and Write what the
	// backend reported (Write: the table's units), IndexWrite the index
	// writes on top. HasCapacity is false when the backend reported none.
	WantCapacity schema.Capacity
	Read, Write  float64
	IndexWrite   float64
	HasCapacity  bool
	Problems     []string
	Elapsed      time.Duration
}

// OK reports whether the pattern did what schema show says.
func (r Result) OK() bool { return len(r.Problems) == 0 }

// Report is a whole verify run.
type Report struct {
	Table   string // the scratch table
	Seeded  int    // items written before the patterns ran
	Results []Result
	// Cleanup is why the scratch table could not be deleted ("" when it was).
	Cleanup string
}

// Failed counts the patterns with problems.
func (r *Report) Failed() int {
	n := 0
	for _, res := range r.Results {
		if !res.OK() {
			n++
		}
	}
	return n
}

// Options tune a run.
type Options struct {
	// Table names the scratch table; the default is the schema's table name
	// with "-verify-" and a random suffix.
	Table string
	// SkipCapacity reports the consumed capacity without comparing it:
	// reference servers such as moto compute it only roughly.
	SkipCapacity bool
}

// ScratchName is a scratch table name for s: unique, and recognisably
// verify's if a failed cleanup leaves it behind.
func ScratchName(s *schema.Schema) string {
	var b [4]byte
	rand.Read(b[:])
	name := s.Table.Name
	if len(name) > 200 {
		name = name[:200]
	}
	return name + "-verify-" + hex.EncodeToString(b[:])
}

// scratchSchema is s on the scratch table: same entities, relations and
// index (the projection decides what a read sends), billed on demand, and
// with no settings - deletion protection would stop the cleanup, and TTL
// or backups say nothing about access patterns.
func scratchSchema(s *schema.Schema, table string) *schema.Schema {
	c := *s
	c.Table = s.Table
	c.Table.Name = table
	c.Table.Billing, c.Table.ReadUnits, c.Table.WriteUnits = schema.BillingOnDemand, 0, 0
	c.Table.Settings = schema.Settings{}
	return &c
}

// Run creates the scratch table on api, seeds it, runs every pattern of s
// and deletes the table again, also when a step fails. The error is for a
// run that could not happen (the table could not be created or seeded);
// patterns that misbehave are Results with Problems.
func Run(ctx context.Context, api ops.API, s *schema.Schema, opt Options) (*Report, error) {
	table := opt.Table
	if table == "" {
		table = ScratchName(s)
	}
	sc := scratchSchema(s, table)
	rec := &recorder{API: api}
	// Capacity is asked for on every request (the callback itself is not needed).
	st := ops.New(rec, sc, ops.Options{Capacity: func(string, []types.ConsumedCapacity) {}})
	rep := &Report{Table: table}
	if _, err := st.CreateTable(ctx, true); err != nil {
		return rep, fmt.Errorf("create scratch table %s: %w", table, err)
	}
	defer func() {
		// The caller's context may be what ended the run: clean up regardless.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := st.DeleteTable(cctx, false); err != nil {
			rep.Cleanup = err.Error()
		}
	}()
	w := &world{s: sc, st: st}
	n, err := w.seed(ctx)
	rep.Seeded = n
	if err != nil {
		return rep, fmt.Errorf("seed scratch table %s: %w", table, err)
	}
	for _, p := range sc.AccessPatterns() {
		rep.Results = append(rep.Results, w.run(ctx, rec, p, !opt.SkipCapacity))
	}
	return rep, nil
}

// run runs one pattern with recording on and judges what it did.
func (w *world) run(ctx context.Context, rec *recorder, p schema.Pattern, checkCapacity bool) Result {
	rec.take()
	rec.record(true)
	start := time.Now()
	problems := w.do(ctx, p)
	elapsed := time.Since(start)
	rec.record(false)
	res := judge(p, w.s.Requests(p), rec.take(), problems, checkCapacity)
	res.Elapsed = elapsed
	return res
}

// judge compares what a pattern sent and consumed with what schema show
// says (want), adding to the problems its result already had.
func judge(p schema.Pattern, want []schema.Request, sentReqs []sent, problems []string, checkCapacity bool) Result {
	res := Result{Pattern: p, Want: want, WantCapacity: schema.CapacityOf(want)}
	for _, sr := range sentReqs {
		name := sr.op
		if sr.index != "" {
			name += " " + sr.index
		}
		res.Sent = append(res.Sent, name)
		if sr.op == "Scan" {
			problems = append(problems, "sent a Scan")
		}
		for _, cc := range sr.capacity {
			res.HasCapacity = true
			res.addCapacity(sr.op, cc)
		}
	}
	if !slices.Equal(expand(want), sortedCopy(res.Sent)) {
		problems = append(problems, fmt.Sprintf("sent %s; schema show says %s", orNothing(res.Sent), schema.RequestsText(want)))
	}
	switch {
	case !checkCapacity:
	case !res.HasCapacity && len(sentReqs) > 0:
		problems = append(problems, "the backend reported no consumed capacity")
	case res.HasCapacity && (res.Read != res.WantCapacity.ReadUnits || res.Write != res.WantCapacity.WriteUnits):
		problems = append(problems, fmt.Sprintf("consumed %s; schema show says %s", res.Consumed(), res.WantCapacity))
	}
	res.Problems = problems
	return res
}

// addCapacity adds one reported ConsumedCapacity: reads count whole (table
// or index), writes split into the table's units and the index writes.
func (r *Result) addCapacity(op string, cc types.ConsumedCapacity) {
	total := deref(cc.CapacityUnits)
	switch op {
	case "GetItem", "Query", "BatchGetItem", "Scan":
		r.Read += total
		return
	}
	var index float64
	for _, g := range cc.GlobalSecondaryIndexes {
		index += deref(g.CapacityUnits)
	}
	table := total - index
	if cc.Table != nil && cc.Table.CapacityUnits != nil {
		table = *cc.Table.CapacityUnits
	}
	r.Write += table
	r.IndexWrite += index
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// expand lists requests one per request sent, sorted (shards run in parallel).
func expand(reqs []schema.Request) []string {
	var out []string
	for _, r := range reqs {
		name := r.Operation
		if r.Index != "" {
			name += " " + r.Index
		}
		for range max(r.Count, 1) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// Consumed is the capacity the pattern consumed, as verify prints it:
// "0.5 RCU", "6 WCU + 4 on the index".
func (r Result) Consumed() string {
	var parts []string
	if r.Read > 0 {
		parts = append(parts, strconv.FormatFloat(r.Read, 'f', -1, 64)+" RCU")
	}
	if r.Write > 0 {
		w := strconv.FormatFloat(r.Write, 'f', -1, 64) + " WCU"
		if r.IndexWrite > 0 {
			w += " + " + strconv.FormatFloat(r.IndexWrite, 'f', -1, 64) + " on the index"
		}
		parts = append(parts, w)
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
