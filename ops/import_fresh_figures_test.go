package ops

import (
	"testing"
)

// correctedCounters are the counters an import reports it corrected.
func correctedCounters(rep *ImportReport) []CounterResult {
	var out []CounterResult
	for _, r := range rep.Fixed {
		if r.Fixed {
			out = append(out, r)
		}
	}
	return out
}

// TestImportIntoFreshRelationKeepsTheFiguresOfCountersAlreadyThere: when a
// counter the file decides is there after all (a resumed run whose first
// run wrote it, a link that committed after the look for edges), the import
// reports it as read: a counter that already held its count is not
// "corrected", and an edge someone else linked first is not "new".
func TestImportIntoFreshRelationKeepsTheFiguresOfCountersAlreadyThere(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	file := func() RowSource {
		return rows(
			edgeRow("STU#a1", "CRS#c1", nil),
			edgeRow("STU#a1", "CRS#c2", nil),
			edgeRow("STU#a2", "CRS#c2", nil),
		)
	}

	t.Run("resumed after its counters were written", func(t *testing.T) {
		st, _ := engineStore(t, sc, nil)
		// The first run wrote every edge and counter, then was killed
		// before its journal was removed.
		if _, err := st.Import(ctx, rel, nil, file(), ImportOptions{Fresh: FreshYes}); err != nil {
			t.Fatal(err)
		}
		// --resume: the journal says fresh and every chunk done.
		rep, err := st.Import(ctx, rel, nil, file(), ImportOptions{Fresh: FreshYes, SkipChunks: 1})
		if err != nil {
			t.Fatal(err)
		}
		wantSchoolCounters(t, "", st, map[string]string{"STU#a1": "2", "STU#a2": "1", "CRS#c1": "1", "CRS#c2": "2"})
		if c := correctedCounters(rep); len(c) != 0 {
			t.Errorf("corrected %d counters that already held their counts: %+v", len(c), c)
		}
		// Told that the first run got as far as the counters, it counts
		// the edges both runs made as new: the counters it wrote did.
		rep, err = st.Import(ctx, rel, nil, file(), ImportOptions{Fresh: FreshYes, SkipChunks: 1, CountedBefore: true})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "created after counting before", rep.Created, 3)
		eq(t, "unchanged after counting before", rep.Unchanged, 0)
	})

	t.Run("an edge linked after the look for edges", func(t *testing.T) {
		st, _ := engineStore(t, sc, nil)
		// Someone links one of the file's edges after the import found
		// the relation empty and before it counts.
		if _, _, err := st.Link(ctx, rel, "STU#a1", "CRS#c1", nil); err != nil {
			t.Fatal(err)
		}
		rep, err := st.Import(ctx, rel, nil, file(), ImportOptions{Fresh: FreshYes})
		if err != nil {
			t.Fatal(err)
		}
		wantSchoolCounters(t, "", st, map[string]string{"STU#a1": "2", "STU#a2": "1", "CRS#c1": "1", "CRS#c2": "2"})
		eq(t, "created", rep.Created, 2)
		eq(t, "unchanged", rep.Unchanged, 1)
	})
}
