package ops

import "testing"

// TestLinkRemovesAttributesOfAnExistingEdge: Remove drops attributes in
// the UpdateItem a repeated link sends, counting nothing; a repeat is
// unchanged, and a new edge is written without them.
func TestLinkRemovesAttributesOfAnExistingEdge(t *testing.T) {
	sc := school()
	st, _ := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	link := func(attrs map[string]any, remove ...string) Outcome {
		t.Helper()
		out, _, err := st.LinkWith(ctx, rel, "a91", "math204", attrs, LinkOptions{Remove: remove})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	eq(t, "new edge", link(map[string]any{"grade": "A"}, "enrolledOn"), Created)
	eq(t, "remove grade", link(nil, "grade"), Updated)
	edge, _, err := st.Check(ctx, rel, "a91", "math204", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := edge["grade"]; ok {
		t.Errorf("grade is still on the edge: %s", itemString(edge))
	}
	eq(t, "remove again", link(nil, "grade"), Unchanged)
	eq(t, "set one, remove another", link(map[string]any{"grade": "B"}, "enrolledOn"), Updated)
	it, err := st.GetEntity(ctx, "CRS#math204", true)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "counted once", nOf(it, "studentCount"), "1")
}

func TestPutEntityRemoving(t *testing.T) {
	sc := school()
	st, _ := recordedStore(t, sc, Options{})
	stu := sc.Entity("student")
	out, err := st.PutEntity(ctx, stu, "a91", map[string]any{"name": "Ana"})
	eq(t, "create", out, Created)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = st.PutEntityRemoving(ctx, stu, "a91", nil, []string{"name"})
	eq(t, "remove name", out, Updated)
	it, _ := st.GetEntity(ctx, "STU#a91", true)
	if _, ok := it["name"]; ok {
		t.Errorf("name is still there: %s", itemString(it))
	}
	out, _ = st.PutEntityRemoving(ctx, stu, "a91", nil, []string{"name"})
	eq(t, "remove again", out, Unchanged)
}
