package ops

import (
	"fmt"
	"io"
	"testing"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
)

// benchEdges is edge i of a school-shaped data set: student i/20 takes 20
// distinct courses of 500.
func benchEdges(n int) RowSource {
	i := 0
	return func() (rowfile.Row, error) {
		if i == n {
			return rowfile.Row{}, io.EOF
		}
		s := i / 20
		row := rowfile.Row{Line: i + 2, From: fmt.Sprintf("STU#s%06d", s), To: fmt.Sprintf("CRS#c%03d", (s*37+(i%20)*131)%500),
			Attrs: []rowfile.Attr{{Name: "grade", Value: "A"}}}
		i++
		return row, nil
	}
}

// BenchmarkImportEdges imports 20,000 edges (1,000 students, 500 courses)
// into a fresh in-memory engine per iteration, counters included (written
// 100 to a transaction, as on the embedded engine), and reports edges/s and
// requests per edge.
func BenchmarkImportEdges(b *testing.B) {
	const n = 20_000
	var reqs int64
	for b.Loop() {
		b.StopTimer()
		sc := school()
		st, _ := engineStore(b, sc, nil)
		b.StartTimer()
		rep, err := st.Import(ctx, sc.Relations[0], nil, benchEdges(n), ImportOptions{BatchFixes: always, ExpectedRows: n})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Created != n {
			b.Fatalf("created %d of %d", rep.Created, n)
		}
		reqs = 0
		for _, v := range rep.Requests {
			reqs += v
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(float64(reqs)/n, "requests/edge")
}

// BenchmarkVerifyCounters verifies the counters of 20,000 edges.
func BenchmarkVerifyCounters(b *testing.B) {
	const n = 20_000
	sc := school()
	st, _ := engineStore(b, sc, nil)
	if _, err := st.Import(ctx, sc.Relations[0], nil, benchEdges(n), ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	var reqs int64
	for b.Loop() {
		rep, err := st.VerifyCounters(ctx, VerifyOptions{})
		if err != nil || len(rep.Wrong) != 0 || rep.Edges != n {
			b.Fatalf("%v %d wrong, %d edges", err, len(rep.Wrong), rep.Edges)
		}
		reqs = 0
		for _, v := range rep.Requests {
			reqs += v
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(float64(reqs), "requests")
}

// BenchmarkCounterFixActions builds the actions of one counter fix, as a
// recount does once per counter that differs.
func BenchmarkCounterFixActions(b *testing.B) {
	sc := school()
	st, _ := engineStore(b, sc, nil)
	t, _ := counterTargetOf(sc.Relations[0], schema.FromEnd, "STU#a91")
	f := pendingFix{t: t, st: counterState{parts: []counterPart{{pk: "STU#a91", sk: "STU#a91"}}}, actual: 20}
	for b.Loop() {
		if acts := st.fixActions(f); len(acts) != 1 {
			b.Fatalf("%d actions", len(acts))
		}
	}
}
