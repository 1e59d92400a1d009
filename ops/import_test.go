package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// rows is a RowSource over fixed rows.
func rows(rs ...rowfile.Row) RowSource {
	i := 0
	return func() (rowfile.Row, error) {
		if i == len(rs) {
			return rowfile.Row{}, io.EOF
		}
		i++
		return rs[i-1], nil
	}
}

func edgeRow(from, to string, attrs map[string]any) rowfile.Row {
	return rowfile.Row{From: from, To: to, Attrs: rowAttrs(attrs)}
}

// rowAttrs is m as a Row's Attrs, by name (nil when empty, as rowfile gives
// a row without values).
func rowAttrs(m map[string]any) []rowfile.Attr {
	var out []rowfile.Attr
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, rowfile.Attr{Name: name, Value: m[name]})
	}
	return out
}

// counter reads a counter the way `adjl get` shows it ("" when absent).
// wantSchoolCounters checks the enrollment counter of each student
// (courseCount) and course (studentCount) key; label prefixes each check.
func wantSchoolCounters(t *testing.T, label string, st *Store, want map[string]string) {
	t.Helper()
	for key, n := range want {
		name := "courseCount"
		if strings.HasPrefix(key, "CRS#") {
			name = "studentCount"
		}
		eq(t, label+key, counter(t, st, key, name), n)
	}
}

func counter(t *testing.T, st *Store, key, name string) string {
	t.Helper()
	it, err := st.GetEntity(ctx, key, true)
	if errors.Is(err, ErrItemNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return nOf(it, name)
}

// defaultKey is an item key in the default layout, which these tests' schemas use.
func defaultKey(pk, sk string) Item {
	return Item{schema.DefaultPK: str(pk), schema.DefaultSK: str(sk)}
}

func getItem(t *testing.T, api API, table, pk, sk string) Item {
	t.Helper()
	out, err := api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: defaultKey(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func setAttr(t *testing.T, api API, table, pk, sk, name string, v types.AttributeValue) {
	t.Helper()
	_, err := api.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: defaultKey(pk, sk),
		UpdateExpression: aws.String("SET #n = :v"), ExpressionAttributeNames: map[string]string{"#n": name},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": v}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestImportEdgesMakesCountersExact(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "B", "tags": []string{"x"}})))
	// A counter that drifted before the import is made exact too.
	setAttr(t, api, "school", "CRS#bio1", "CRS#bio1", "studentCount", num("99"))
	rep, err := st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a91", "CRS#math204", map[string]any{"grade": "A"}), // exists: replaced, counted once
		edgeRow("STU#a91", "CRS#bio1", map[string]any{"grade": "C"}),
		edgeRow("STU#b02", "CRS#bio1", nil),
		edgeRow("STU#a91", "CRS#bio1", map[string]any{"grade": "B+"}), // a repeat: the last row wins
	), ImportOptions{ChunkRows: 2, BatchFixes: always})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "rows", rep.Rows, 4)
	eq(t, "written", rep.Written, 4)
	eq(t, "created", rep.Created, 2)
	eq(t, "unchanged", rep.Unchanged, 2)
	eq(t, "a91 courses", counter(t, st, "STU#a91", "courseCount"), "2")
	eq(t, "b02 courses", counter(t, st, "STU#b02", "courseCount"), "1")
	eq(t, "math204 students", counter(t, st, "CRS#math204", "studentCount"), "1")
	eq(t, "bio1 students", counter(t, st, "CRS#bio1", "studentCount"), "2")
	edge := getItem(t, api, "school", "STU#a91", "ENROLL#CRS#math204")
	eq(t, "replaced edge", itemString(edge), `GSI1PK="CRS#math204" GSI1SK="STU#a91" PK="STU#a91" SK="ENROLL#CRS#math204" grade="A" type="enrollment"`)
	eq(t, "last row wins", avString(getItem(t, api, "school", "STU#a91", "ENROLL#CRS#bio1")["grade"]), `"B+"`)
	// The side item created by a counter fix is a proper entity item, with
	// the relation's shard count recorded as a link records it.
	eq(t, "side item", itemString(getItem(t, api, "school", "STU#b02", "STU#b02")),
		`ADJL#changes#courseCount=1 ADJL#shards#enrollment=1 GSI1PK="STU#b02" GSI1SK="STU#b02" PK="STU#b02" SK="STU#b02" courseCount=1 type="student"`)

	// Importing the same rows again changes nothing.
	before := dumpTable(t, api, "school")
	rep, err = st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a91", "CRS#math204", map[string]any{"grade": "A"}),
		edgeRow("STU#a91", "CRS#bio1", map[string]any{"grade": "C"}),
		edgeRow("STU#b02", "CRS#bio1", nil),
		edgeRow("STU#a91", "CRS#bio1", map[string]any{"grade": "B+"}),
	), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "again: created", rep.Created, 0)
	eq(t, "again: fixed", len(rep.Fixed), 0)
	eq(t, "again: table", dumpTable(t, api, "school"), before)
}

func TestImportUnlinkRemovesListedEdges(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	for _, c := range []string{"c1", "c2", "c3"} {
		must[Outcome](t)(first(st.Link(ctx, rel, "a91", c, nil)))
	}
	rep, err := st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a91", "CRS#c1", nil),
		edgeRow("STU#a91", "CRS#c9", nil), // absent: changes nothing
	), ImportOptions{Unlink: true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "deleted", rep.Created, 1)
	eq(t, "absent", rep.Unchanged, 1)
	eq(t, "a91 courses", counter(t, st, "STU#a91", "courseCount"), "2")
	eq(t, "c1 students", counter(t, st, "CRS#c1", "studentCount"), "0")
	eq(t, "c9 untouched", len(getItem(t, api, "school", "CRS#c9", "CRS#c9")), 0)
	if len(getItem(t, api, "school", "STU#a91", "ENROLL#CRS#c1")) != 0 {
		t.Error("edge c1 still there")
	}
}

func TestImportShardedRelationCountsAndVerifies(t *testing.T) {
	sc := socialCounterShards(4, 8)
	rel := sc.Relations[0]
	st, _ := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "f000", "bob", nil)))
	var rs []rowfile.Row
	for i := range 300 {
		rs = append(rs, edgeRow(fmt.Sprintf("ACTOR#f%03d", i), "TARGET#bob", nil))
	}
	rs = append(rs, edgeRow("ACTOR#f001", "TARGET#carol", nil))
	rep, err := st.Import(ctx, rel, nil, rows(rs...), ImportOptions{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "created", rep.Created, 300)
	eq(t, "followers", counter(t, st, "TARGET#bob", "followerCount"), "300")
	eq(t, "following", counter(t, st, "ACTOR#f001", "followingCount"), "2")
	n, err := st.Count(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"})
	if err != nil || n != 300 {
		t.Fatalf("count followers: %d %v", n, err)
	}
	n, err = st.Count(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "f001", Consistent: true})
	if err != nil || n != 2 {
		t.Fatalf("count following: %d %v", n, err)
	}
	vr, err := st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "edges scanned", vr.Edges, int64(301))
	eq(t, "counters compared", vr.Counters, 302) // 300 actors, bob, carol
	eq(t, "wrong", len(vr.Wrong), 0)
}

func TestImportResumeSkipsWrittenChunks(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	var rs []rowfile.Row
	for i := range 50 {
		rs = append(rs, edgeRow(fmt.Sprintf("STU#s%02d", i), "CRS#c1", nil))
	}
	// The run that was killed: its first 30 rows written, no counter yet.
	bare := *rel
	bare.Counters = schema.Counters{}
	if _, err := st.Import(ctx, &bare, nil, rows(rs[:30]...), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before := dumpTable(t, api, "school")
	var reported []int
	rep, err := st.Import(ctx, rel, nil, rows(rs...), ImportOptions{ChunkRows: 10, SkipChunks: 3, Workers: 3, Fresh: FreshYes,
		ChunksDone: func(n int) { reported = append(reported, n) }})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "skipped", rep.Skipped, 30)
	eq(t, "written", rep.Written, 20)
	if !slices.IsSorted(reported) || len(reported) == 0 || reported[len(reported)-1] < 5 || reported[0] <= 3 {
		t.Errorf("chunks reported: %v", reported)
	}
	if before == dumpTable(t, api, "school") || len(getItem(t, api, "school", "STU#s49", "ENROLL#CRS#c1")) == 0 {
		t.Fatal("the rows after the skipped chunks were not written")
	}
	// Every entity of the file is counted, the skipped rows' ones too.
	eq(t, "c1 students", counter(t, st, "CRS#c1", "studentCount"), "50")
	eq(t, "s00 courses", counter(t, st, "STU#s00", "courseCount"), "1")
	eq(t, "s49 courses", counter(t, st, "STU#s49", "courseCount"), "1")
}

func TestImportIntoFreshRelationCountsFromTheFile(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, _ := engineStore(t, sc, nil)
	var fresh []bool
	rep, err := st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a1", "CRS#c1", nil),
		edgeRow("STU#a1", "CRS#c2", nil),
		edgeRow("STU#a2", "CRS#c2", nil),
		edgeRow("STU#a3", "CRS#c3", nil),
		edgeRow("STU#a3", "CRS#c3", map[string]any{"grade": "B"}), // a repeat: a3 and c3 are counted by Query
	), ImportOptions{FreshChecked: func(f bool) { fresh = append(fresh, f) }})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "fresh", fmt.Sprint(fresh), "[true]")
	eq(t, "count queries", rep.Requests["Query"], int64(2))
	wantSchoolCounters(t, "", st, map[string]string{"STU#a1": "2", "STU#a2": "1", "STU#a3": "1", "CRS#c1": "1", "CRS#c2": "2", "CRS#c3": "1"})
	eq(t, "created", rep.Created, 4)
	// Once it has edges, the next import counts everything with Queries.
	fresh = nil
	rep, err = st.Import(ctx, rel, nil, rows(edgeRow("STU#a1", "CRS#c3", nil)), ImportOptions{FreshChecked: func(f bool) { fresh = append(fresh, f) }})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "fresh again", fmt.Sprint(fresh), "[false]")
	eq(t, "count queries again", rep.Requests["Query"], int64(2))
	eq(t, "a1", counter(t, st, "STU#a1", "courseCount"), "3")
	eq(t, "c3", counter(t, st, "CRS#c3", "studentCount"), "2")
}

// flakyAPI answers some BatchWriteItems with everything unprocessed and
// some with a throttling error, as DynamoDB does under load.
type flakyAPI struct {
	API
	calls atomic.Int64
}

func (f *flakyAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	switch f.calls.Add(1) % 3 {
	case 1:
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
	case 2:
		return nil, &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}
	}
	return f.API.BatchWriteItem(ctx, in, o...)
}

func TestImportRetriesUnprocessedAndThrottled(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	var flaky *flakyAPI
	st, _ := engineStore(t, sc, func(a API) API { flaky = &flakyAPI{API: a}; return flaky })
	var rs []rowfile.Row
	for i := range 60 {
		rs = append(rs, edgeRow(fmt.Sprintf("STU#s%02d", i), "CRS#c1", nil))
	}
	rep, err := st.Import(ctx, rel, nil, rows(rs...), ImportOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "created", rep.Created, 60)
	eq(t, "c1 students", counter(t, st, "CRS#c1", "studentCount"), "60")
	if flaky.calls.Load() < 9 {
		t.Errorf("only %d BatchWriteItem calls: the failures were not retried", flaky.calls.Load())
	}
}

func TestImportEntitiesLeavesCountersAlone(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	stu := sc.Entities[0]
	st, api := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	must[Outcome](t)(st.PutEntity(ctx, stu, "b02", map[string]any{"name": "Bo"}))
	must[Outcome](t)(st.PutEntity(ctx, stu, "c03", map[string]any{"name": "Cy"}))
	rep, err := st.Import(ctx, nil, stu, rows(
		rowfile.Row{ID: "STU#a91", Attrs: rowAttrs(map[string]any{"name": "Ana"})},
		rowfile.Row{ID: "STU#b02"}, // name removed
		rowfile.Row{ID: "STU#c03", Attrs: rowAttrs(map[string]any{"name": "Cy"})},
		rowfile.Row{ID: "STU#d04", Attrs: rowAttrs(map[string]any{"name": "Di"})},
	), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "created", rep.Created, 1)
	eq(t, "updated", rep.Updated, 2)
	eq(t, "unchanged", rep.Unchanged, 1)
	eq(t, "a91", itemString(getItem(t, api, "school", "STU#a91", "STU#a91")),
		`ADJL#changes#courseCount=1 ADJL#shards#enrollment=1 GSI1PK="STU#a91" GSI1SK="STU#a91" PK="STU#a91" SK="STU#a91" courseCount=1 name="Ana" type="student"`)
	eq(t, "b02", itemString(getItem(t, api, "school", "STU#b02", "STU#b02")),
		`GSI1PK="STU#b02" GSI1SK="STU#b02" PK="STU#b02" SK="STU#b02" type="student"`)
}

// eachFixMode runs test with counter fixes sent one request each
// (batch=false) and in batches (batch=true).
func eachFixMode(t *testing.T, test func(t *testing.T, batch bool)) {
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch=%t", batch), func(t *testing.T) { test(t, batch) })
	}
}

func TestVerifyAndRepairFindEveryDrift(t *testing.T) {
	eachFixMode(t, testVerifyAndRepair)
}

func testVerifyAndRepair(t *testing.T, batch bool) {
	sc := socialCounterShards(4, 8)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	for _, f := range []string{"ann", "ben", "cid"} {
		must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "ann", "dee", nil)))
	// Drifts: a role counter too high, a shard of a sharded counter off, a
	// counter on a key with no edges, a counter item deleted, junk.
	setAttr(t, api, "social", "ACTOR#ann", "ACTOR#ann", "followingCount", num("5"))
	shard := schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#ben"))
	setAttr(t, api, "social", "TARGET#bob", shard, "followerCount", num("7"))
	setAttr(t, api, "social", "ACTOR#zed", "ACTOR#zed", "followingCount", num("2"))
	if _, err := api.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("social"), Key: defaultKey("ACTOR#cid", "ACTOR#cid")}); err != nil {
		t.Fatal(err)
	}
	setAttr(t, api, "social", "ACTOR#ben", "ACTOR#ben", "followingCount", &types.AttributeValueMemberS{Value: "one"})

	vr, err := st.VerifyCounters(ctx, VerifyOptions{Relation: rel})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range vr.Wrong {
		got = append(got, fmt.Sprintf("%s %s %d %d %t", w.Key, w.Counter, w.Stored, w.Actual, w.Fixed))
	}
	want := []string{
		"ACTOR#ann followingCount 5 2 false",
		"ACTOR#ben followingCount 0 1 false",
		"ACTOR#cid followingCount 0 1 false",
		"ACTOR#zed followingCount 2 0 false",
		"TARGET#bob followerCount 9 3 false",
	}
	eq(t, "wrong", strings.Join(got, "\n"), strings.Join(want, "\n"))

	vr, err = st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "repaired", len(vr.Wrong), 5)
	for _, w := range vr.Wrong {
		if !w.Fixed {
			t.Errorf("not fixed: %+v", w)
		}
	}
	vr, err = st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil || len(vr.Wrong) != 0 {
		t.Fatalf("after repair: %+v %v", vr.Wrong, err)
	}
	eq(t, "bob", counter(t, st, "TARGET#bob", "followerCount"), "3")
	eq(t, "zed", counter(t, st, "ACTOR#zed", "followingCount"), "0")
	// Links after a repair keep counting from the repaired values.
	must[Outcome](t)(first(st.Link(ctx, rel, "eve", "bob", nil)))
	eq(t, "bob after a link", counter(t, st, "TARGET#bob", "followerCount"), "4")
}

// TestRepairWhileOthersLink repairs drifted counters while other goroutines
// link new followers to the same keys: a repair must not overwrite a link's
// count (its condition fails and it recounts), so once the writers stop,
// every counter is exact. Rounds repeat drift, repair and stop, so a write
// lands between some recount's read and its fix. A counter that changes at
// every one of its attempts makes the repair give up (ConflictError, as
// documented); that round then repairs again once the writers stopped, and
// most rounds must have repaired while the writers ran.
func TestRepairWhileOthersLink(t *testing.T) {
	eachFixMode(t, testRepairWhileOthersLink)
}

func testRepairWhileOthersLink(t *testing.T, batch bool) {
	sc := socialCounterShards(1, 1)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	const targets, rounds = 6, 12
	repairedWhileLinking := 0
	for round := range rounds {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		errs := make(chan error, 4)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if _, _, err := st.Link(ctx, rel, fmt.Sprintf("r%d-w%d-%d", round, w, i), fmt.Sprintf("t%d", i%targets), nil); err != nil {
						var ce *ConflictError
						if !errors.As(err, &ce) { // a transaction conflict is the link's own retryable failure
							errs <- err
							return
						}
					}
				}
			}()
		}
		for i := range targets {
			setAttr(t, api, "social", fmt.Sprintf("TARGET#t%d", i), fmt.Sprintf("TARGET#t%d", i), "followerCount", num("1000"))
		}
		_, err := st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }})
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var gaveUp *ConflictError
		switch {
		case errors.As(err, &gaveUp):
			t.Logf("round %d: %v", round, err)
			if _, err := st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }}); err != nil {
				t.Fatal(err)
			}
		case err != nil:
			t.Fatal(err)
		default:
			repairedWhileLinking++
		}
		vr, err := st.VerifyCounters(ctx, VerifyOptions{})
		if err != nil || len(vr.Wrong) != 0 {
			t.Fatalf("round %d, after the writers stopped: %+v %v", round, vr.Wrong, err)
		}
	}
	if repairedWhileLinking < rounds/2 {
		t.Errorf("the repair gave up in %d of %d rounds while others linked", rounds-repairedWhileLinking, rounds)
	}
	for i := range targets {
		n, err := st.Count(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: fmt.Sprintf("t%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "counter = edges", counter(t, st, fmt.Sprintf("TARGET#t%d", i), "followerCount"), fmt.Sprint(n))
	}
}

func TestExportReadsBackAsImported(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, _ := engineStore(t, sc, nil)
	in := []rowfile.Row{
		edgeRow("STU#a91", "CRS#math204", map[string]any{"grade": "A, with honours", "tags": []string{"x", "y"}}),
		edgeRow("STU#b02", "CRS#math204", nil),
		edgeRow("STU#b02", "CRS#art", map[string]any{"grade": ""}),
	}
	if _, err := st.Import(ctx, rel, nil, rows(in...), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	must[Outcome](t)(st.PutEntity(ctx, sc.Entities[0], "a91", map[string]any{"name": "Ana"}))
	var out []rowfile.Row
	rep, err := st.Export(ctx, rowfile.Target{Relation: rel}, ExportOptions{Segments: 3}, func(r rowfile.Row) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "rows", rep.Rows, int64(3))
	sort.Slice(out, func(i, j int) bool { return out[i].From+out[i].To < out[j].From+out[j].To })
	sort.Slice(in, func(i, j int) bool { return in[i].From+in[i].To < in[j].From+in[j].To })
	eq(t, "round trip", fmt.Sprint(out), fmt.Sprint(in))
	var ents []rowfile.Row
	if _, err := st.Export(ctx, rowfile.Target{Entity: sc.Entities[0]}, ExportOptions{}, func(r rowfile.Row) error {
		ents = append(ents, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Counters are not attributes: the students' items export their names only.
	sort.Slice(ents, func(i, j int) bool { return ents[i].ID < ents[j].ID })
	eq(t, "entities", fmt.Sprint(ents), fmt.Sprint([]rowfile.Row{{ID: "STU#a91", Attrs: rowAttrs(map[string]any{"name": "Ana"})}, {ID: "STU#b02"}}))
}

// dumpTable renders every item of the table, sorted, for "nothing changed".
func dumpTable(t *testing.T, api API, table string) string {
	t.Helper()
	sc, ok := api.(scanAPI)
	if !ok {
		t.Fatal("no Scan")
	}
	var lines []string
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := sc.Scan(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			lines = append(lines, itemString(it))
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestImportExclusiveWritesWhatConditionalFixesWrite: with no other writer
// (Exclusive), counters are written by putting their items back, 25 to a
// BatchWriteItem, without a transaction or an UpdateItem — and the table
// ends exactly as the conditional fixes leave it: an entity's attributes
// kept, a drifted counter corrected, a new side item complete.
func TestImportExclusiveWritesWhatConditionalFixesWrite(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	var edges []rowfile.Row
	for i := range 60 {
		edges = append(edges, edgeRow(fmt.Sprintf("STU#s%02d", i%30), fmt.Sprintf("CRS#c%d", i%7), map[string]any{"grade": "A"}))
	}
	dumps := map[bool]string{}
	for _, exclusive := range []bool{false, true} {
		st, api := engineStore(t, sc, nil)
		must[Outcome](t)(st.PutEntity(ctx, sc.Entities[0], "s01", map[string]any{"name": "Ana"}))
		must[Outcome](t)(first(st.Link(ctx, rel, "s02", "c1", nil)))
		setAttr(t, api, "school", "CRS#c2", "CRS#c2", "studentCount", num("99"))
		rep, err := st.Import(ctx, rel, nil, rows(edges...), ImportOptions{Exclusive: exclusive, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if exclusive {
			eq(t, "requests", fmt.Sprint(rep.Requests), "map[BatchGetItem:1 BatchWriteItem:5 Query:37 Scan:1]")
		}
		eq(t, fmt.Sprint("exclusive=", exclusive, " s01 courses"), counter(t, st, "STU#s01", "courseCount"), "2")
		eq(t, fmt.Sprint("exclusive=", exclusive, " c2 students"), counter(t, st, "CRS#c2", "studentCount"), "9")
		dumps[exclusive] = dumpTable(t, api, "school")
	}
	eq(t, "table after an exclusive import", dumps[true], dumps[false])
	if !strings.Contains(dumps[true], `name="Ana"`) {
		t.Errorf("entity attributes lost:\n%s", dumps[true])
	}
}

// TestImportExclusiveKeepsBothCountersOfAnItem: an entity related to its
// own kind holds both sides' counters on one item; an exclusive import
// must not put one side's count over the other's.
func TestImportExclusiveKeepsBothCountersOfAnItem(t *testing.T) {
	sc := social(1)
	rel := sc.Relations[0]
	st, _ := engineStore(t, sc, nil)
	_, err := st.Import(ctx, rel, nil, rows(
		edgeRow("USER#a", "USER#b", nil),
		edgeRow("USER#b", "USER#c", nil),
		edgeRow("USER#c", "USER#a", nil),
		edgeRow("USER#a", "USER#c", nil),
	), ImportOptions{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]string{"USER#a": {"2", "1"}, "USER#b": {"1", "1"}, "USER#c": {"1", "2"}} {
		eq(t, key+" following", counter(t, st, key, "followingCount"), want[0])
		eq(t, key+" followers", counter(t, st, key, "followerCount"), want[1])
	}
}

// always is a BatchFixes that always batches.
func always() bool { return true }

// TestRepairKeepsTheTypeAnItemHas: a counter fix gives the type attribute
// only to an item that has none (as a link's counter update does), so a
// repair leaves the type an adopted table's item already records.
func TestRepairKeepsTheTypeAnItemHas(t *testing.T) {
	eachFixMode(t, func(t *testing.T, batch bool) {
		sc := school()
		rel := sc.Relations[0]
		st, api := engineStore(t, sc, nil)
		must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
		setAttr(t, api, "school", "CRS#math204", "CRS#math204", "type", str("Course"))
		setAttr(t, api, "school", "CRS#math204", "CRS#math204", "studentCount", num("7"))
		vr := must[*VerifyReport](t)(st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }}))
		if len(vr.Wrong) != 1 || !vr.Wrong[0].Fixed {
			t.Fatalf("repair: %+v", vr.Wrong)
		}
		eq(t, "math204", itemString(getItem(t, api, "school", "CRS#math204", "CRS#math204")),
			`ADJL#changes#studentCount=2 ADJL#shards#enrollment=1 GSI1PK="CRS#math204" GSI1SK="CRS#math204" PK="CRS#math204" SK="CRS#math204" studentCount=1 type="Course"`)
	})
}
