package ops

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// selfFollow is social with one prefix on both sides: users follow users,
// and each user item holds both counters (the followers' spread over
// counterShards items when more than 1).
func selfFollow(counterShards int) *schema.Schema {
	sc := socialCounterShards(2, counterShards)
	rel := sc.Relations[0]
	rel.From.Prefix, rel.To.Prefix, rel.Edge = "USER#", "USER#", "FOLLOWS#"
	return sc
}

// withName declares a name attribute on every entity of sc, for the
// writers that change entity items while counters are recounted.
func withName(sc *schema.Schema) *schema.Schema {
	for _, e := range sc.Entities {
		if !slices.ContainsFunc(e.Attributes, func(a schema.Attribute) bool { return a.Name == "name" }) {
			e.Attributes = append(e.Attributes, schema.Attribute{Name: "name", Kind: schema.KindString})
		}
	}
	return sc
}

// counterCases are the relations the concurrent counter tests run on.
var counterCases = []struct {
	name string
	sc   func() *schema.Schema
}{
	{"unsharded", school}, // counters on two kinds of entity item
	{"sharded", func() *schema.Schema { return socialCounterShards(4, 8) }},                   // index shards, followers over 8 counter items, role items
	{"own kind", func() *schema.Schema { return selfFollow(1) }},                              // one user item holds both counters
	{"own kind, sharded", func() *schema.Schema { return selfFollow(4) }},                     // and the followers' counter is spread
	{"inverted", func() *schema.Schema { return withLayout(school(), inverted, "inverted") }}, // no changes attribute
}

// eachCounterCase runs test on each of counterCases, with the name attribute.
func eachCounterCase(t *testing.T, test func(t *testing.T, sc *schema.Schema)) {
	for _, c := range counterCases {
		t.Run(c.name, func(t *testing.T) { test(t, withName(c.sc())) })
	}
}

// traffic is what the concurrent writers of a test do to one relation.
// Every counter they change moves one way: linkers only add edges to the
// l* entities (new ones, and some the file gives too), unlinkers only
// remove the seeded edges of the u* entities, and only the togglers link
// and unlink, the m* entities' edges. Links and unlinks that cancel out on
// a counter while it is recounted still move its changes attribute, but
// the inverted layout keeps none (see docs/data.md, "With other writers at the
// same time"): there the m* counters may be left wrong.
type traffic struct {
	t        *testing.T
	st       *Store
	rel      *schema.Relation
	linkers  int
	ops      int // bound on each linker's and toggler's operations
	togglers int
	namers   int // writers of the name attribute of u* and l* entities

	stop    chan struct{}
	wg      sync.WaitGroup
	errs    chan error
	started sync.WaitGroup

	mu    sync.Mutex
	names map[string]string // entity key -> the name last acknowledged
}

const (
	seedFrom, seedTo = 6, 5 // u* edges: every uf -> every ut
	mixedFrom        = 3    // m* edges: every mf -> mt0, mt1
	fixedFrom        = 4    // l* entities the linkers add edges to
)

func (tr *traffic) fk(id string) string { return tr.rel.From.Prefix + id }
func (tr *traffic) tk(id string) string { return tr.rel.To.Prefix + id }

// seedEdges are the u* edges the unlinkers remove.
func (tr *traffic) seedEdges() [][2]string {
	var out [][2]string
	for a := range seedFrom {
		for b := range seedTo {
			out = append(out, [2]string{tr.fk(fmt.Sprint("uf", a)), tr.tk(fmt.Sprint("ut", b))})
		}
	}
	return out
}

// mixedEdges are the m* edges the togglers link and unlink.
func (tr *traffic) mixedEdges() [][2]string {
	var out [][2]string
	for a := range mixedFrom {
		for b := range 2 {
			out = append(out, [2]string{tr.fk(fmt.Sprint("mf", a)), tr.tk(fmt.Sprint("mt", b))})
		}
	}
	return out
}

// linkerEdges are the edges linker w links at its operation i: one from
// a fixed l* entity to a new one, one from a new one to a fixed l* entity.
func (tr *traffic) linkerEdges(w, i int) [][2]string {
	return [][2]string{
		{tr.fk(fmt.Sprint("lf", i%fixedFrom)), tr.tk(fmt.Sprintf("lt%d-%d", w, i))},
		{tr.fk(fmt.Sprintf("lf%d-%d", w, i)), tr.tk(fmt.Sprint("lt", i%fixedFrom))},
	}
}

// seed links the u* and m* edges.
func (tr *traffic) seed() {
	for _, e := range append(tr.seedEdges(), tr.mixedEdges()...) {
		if _, _, err := tr.st.Link(ctx, tr.rel, e[0], e[1], nil); err != nil {
			tr.t.Fatal(err)
		}
	}
}

// start runs the writers and returns once each has done one operation.
func (tr *traffic) start() {
	tr.stop, tr.errs, tr.names = make(chan struct{}), make(chan error, 64), map[string]string{}
	run := func(name string, op func(i int) (bool, error)) {
		tr.wg.Add(1)
		tr.started.Add(1)
		go func() {
			defer tr.wg.Done()
			first := true
			defer func() {
				if first {
					tr.started.Done()
				}
			}()
			for i := 0; ; i++ {
				if i > 0 {
					select {
					case <-tr.stop:
						return
					default:
					}
				}
				more, err := op(i)
				if first {
					first = false
					tr.started.Done()
				}
				if err != nil {
					tr.errs <- fmt.Errorf("%s: %w", name, err)
					return
				}
				if !more {
					return
				}
			}
		}()
	}
	for w := range tr.linkers {
		run(fmt.Sprint("linker ", w), func(i int) (bool, error) {
			for _, e := range tr.linkerEdges(w, i) {
				if _, _, err := tr.st.Link(ctx, tr.rel, e[0], e[1], nil); err != nil {
					return false, err
				}
			}
			return i+1 < tr.ops, nil
		})
	}
	seeded := tr.seedEdges()
	const unlinkers = 2
	for w := range unlinkers {
		var mine [][2]string
		for i, e := range seeded {
			if i%unlinkers == w {
				mine = append(mine, e)
			}
		}
		run(fmt.Sprint("unlinker ", w), func(i int) (bool, error) {
			_, _, err := tr.st.Unlink(ctx, tr.rel, mine[i][0], mine[i][1])
			return i+1 < len(mine), err
		})
	}
	mixed := tr.mixedEdges()
	for w := range tr.togglers {
		run(fmt.Sprint("toggler ", w), func(i int) (bool, error) {
			e := mixed[(w+i)%len(mixed)]
			var err error
			if i%2 == 0 {
				_, _, err = tr.st.Link(ctx, tr.rel, e[0], e[1], nil)
			} else {
				_, _, err = tr.st.Unlink(ctx, tr.rel, e[0], e[1])
			}
			return i+1 < tr.ops, err
		})
	}
	ent := tr.rel.From.Entity
	for w := range tr.namers {
		// Each namer owns its entities, so the name each holds at the
		// end is the last one it was told was written.
		ids := []string{fmt.Sprint("uf", w), fmt.Sprint("lf", w), fmt.Sprint("ut", w), fmt.Sprint("lt", w)}
		run(fmt.Sprint("namer ", w), func(i int) (bool, error) {
			id := ids[i%len(ids)]
			name := fmt.Sprintf("n%d", i)
			if _, err := tr.st.PutEntity(ctx, ent, id, map[string]any{"name": name}); err != nil {
				return false, err
			}
			tr.mu.Lock()
			tr.names[ent.Prefix+id] = name
			tr.mu.Unlock()
			return i+1 < 4*tr.ops, nil
		})
	}
	tr.started.Wait()
}

// finish stops the writers and fails the test on any error of theirs.
func (tr *traffic) finish() {
	tr.t.Helper()
	close(tr.stop)
	tr.wg.Wait()
	close(tr.errs)
	for err := range tr.errs {
		tr.t.Error(err)
	}
}

// check fails the test unless every counter of the entities named (all of
// them when named is nil) equals its edges, except, in a layout that
// counts no changes, the m* counters the togglers changed both ways, and
// every name is the last one written; it returns how many m* counters were
// left wrong.
func (tr *traffic) check(label string, named map[string]bool) int {
	tr.t.Helper()
	vr, err := tr.st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil {
		tr.t.Fatalf("%s: verify: %v", label, err)
	}
	mixed := 0
	for _, w := range vr.Wrong {
		id := w.Key[strings.Index(w.Key, schema.Delimiter)+1:]
		switch {
		case named != nil && !named[w.Key]:
		case strings.HasPrefix(id, "m") && tr.togglers > 0 && !tr.st.layout.CountsChanges():
			mixed++
		default:
			tr.t.Errorf("%s: %s %s holds %d (%s), its edges are %d", label, w.Key, w.Counter, w.Stored, w.StoredValue, w.Actual)
		}
	}
	for key, name := range tr.names {
		it, err := tr.st.GetEntity(ctx, key, true)
		if err != nil {
			tr.t.Fatalf("%s: get %s: %v", label, key, err)
		}
		if got := sOf(it, "name"); got != name {
			tr.t.Errorf("%s: %s has name %q, the last written was %q", label, key, got, name)
		}
	}
	return mixed
}

// drift makes counters wrong the way a hand edit would: the u* and l*
// ones by far more than the writers can change them (so the repair's Scan
// cannot see them exact by chance), one a fraction (which links can still
// add to), and those of an entity no writer touches a string.
func (tr *traffic) drift(api API) {
	table := tr.st.schema.Table.Name
	set := func(end schema.End, key string, v types.AttributeValue) {
		name, shards := tr.rel.Counter(end)
		sk := key
		if shards > 1 {
			sk = schema.CounterSK(name, shards-1) // not shard 0, which a repair writes
		}
		_, err := api.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: tr.st.keyOf(key, sk),
			UpdateExpression: aws.String("SET #n = :v"), ExpressionAttributeNames: map[string]string{"#n": name},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": v}})
		if err != nil {
			tr.t.Fatal(err)
		}
	}
	set(schema.FromEnd, tr.fk("uf0"), num("1000"))
	set(schema.ToEnd, tr.tk("ut1"), num("-1000"))
	set(schema.FromEnd, tr.fk("lf1"), num("2000"))
	set(schema.ToEnd, tr.tk("lt0"), num("10.5"))
	set(schema.FromEnd, tr.fk("q0"), &types.AttributeValueMemberS{Value: "x"})
	set(schema.ToEnd, tr.tk("q1"), &types.AttributeValueMemberBOOL{Value: true})
	for _, e := range [][2]string{{tr.fk("q0"), tr.tk("q1")}, {tr.fk("q0"), tr.tk("q2")}} {
		// Links around adjl: edges no counter knows of.
		it := tr.st.keyItem(tr.st.layout.EdgeKeys(tr.rel, e[0], e[1]))
		if tr.st.layout.Type != "" {
			it[tr.st.layout.Type] = str(tr.rel.Name)
		}
		if tr.rel.Shards > 1 {
			it[tr.rel.ShardStamp()] = num(fmt.Sprint(tr.rel.Shards))
		}
		if _, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			tr.t.Fatal(err)
		}
	}
}

// concurrentRounds is how often each concurrent test runs its scenario on a
// new table (more with -count).
const concurrentRounds = 3

// TestRepairWhileOthersWrite repairs drifted counters (too high, too low,
// a fraction, a string, edges written around adjl) while other writers
// link, unlink and change the names of the same entities. The repair must
// not fail (beyond giving up on a counter that kept changing, as
// documented), must leave every counter whose changes went one way equal
// to its edges, and must not lose a name.
func TestRepairWhileOthersWrite(t *testing.T) {
	eachCounterCase(t, func(t *testing.T, sc *schema.Schema) {
		gaveUp, mixedWrong := 0, 0
		for round := range concurrentRounds {
			st, api := engineStore(t, sc, nil)
			tr := &traffic{t: t, st: st, rel: sc.Relations[0], linkers: 2, togglers: 2, namers: 2, ops: 40}
			tr.seed()
			tr.drift(api)
			tr.start()
			batch := round%2 == 1
			_, err := st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }})
			tr.finish()
			var ce *ConflictError
			switch {
			case errors.As(err, &ce):
				gaveUp++
				if _, err := st.VerifyCounters(ctx, VerifyOptions{Repair: true}); err != nil {
					t.Fatal(err)
				}
			case err != nil:
				t.Fatalf("round %d: repair: %v", round, err)
			}
			mixedWrong += tr.check(fmt.Sprintf("round %d", round), nil)
		}
		t.Logf("%d rounds: the repair gave up %d times; %d counters changed both ways were left wrong", concurrentRounds, gaveUp, mixedWrong)
	})
}

// importFile is what the concurrent import tests load: the seeded u*
// edges (which the unlinkers remove meanwhile), edges the linkers link
// too (before or after the import writes them), new edges of the fixed l*
// entities, the m* edges, and repeats; with unlink, every other seeded
// edge, the linkers' edges, the m* edges and edges that never were.
func (tr *traffic) importFile(unlink bool) []rowfile.Row {
	var rs []rowfile.Row
	add := func(e [2]string) { rs = append(rs, edgeRow(e[0], e[1], nil)) }
	for i, e := range tr.seedEdges() {
		if !unlink || i%2 == 0 {
			add(e)
		}
	}
	for w := range tr.linkers {
		for i := range 8 {
			add(tr.linkerEdges(w, i)[1])
		}
	}
	for _, e := range tr.mixedEdges() {
		add(e)
	}
	if unlink {
		add([2]string{tr.fk("lf9"), tr.tk("lt9")}) // never linked
	} else {
		for j := range fixedFrom {
			add([2]string{tr.fk(fmt.Sprint("lf", j)), tr.tk(fmt.Sprint("lt", j))})
		}
		add([2]string{tr.fk("q0"), tr.tk("q1")})
		rs = append(rs, rs[0], rs[len(rs)/2]) // repeats
	}
	return rs
}

// testImportWhileOthersWrite imports while other writers link, unlink and
// change the names of the entities the file names, mode being "link" (a
// plain import), "unlink" (--unlink), "fresh" (into a relation with no
// edge yet, whose counters are written from the file where nobody touched
// them), or "resumed" and "resumed fresh" (its first run killed after some
// chunks, resumed with SkipChunks into a relation with edges and into one
// that had none). When it ends (run again if it gave up on a counter that
// kept changing, as documented), every counter of an entity the file names
// whose changes went one way equals its edges, drifted ones included, and
// no name is lost.
func testImportWhileOthersWrite(t *testing.T, mode string) {
	eachCounterCase(t, func(t *testing.T, sc *schema.Schema) {
		rel := sc.Relations[0]
		fresh := strings.HasSuffix(mode, "fresh")
		gaveUp, mixedWrong := 0, 0
		for round := range concurrentRounds {
			st, api := engineStore(t, sc, nil)
			tr := &traffic{t: t, st: st, rel: rel, linkers: 2, togglers: 2, namers: 2, ops: 30}
			if !fresh {
				tr.seed()
				tr.drift(api)
			}
			file := tr.importFile(mode == "unlink")
			named := map[string]bool{}
			for _, r := range file {
				named[r.From], named[r.To] = true, true
			}
			batch := round%2 == 1
			opt := ImportOptions{Unlink: mode == "unlink", Workers: 3, ChunkRows: 8, BatchFixes: func() bool { return batch }}
			var found []bool
			opt.FreshChecked = func(f bool) { found = append(found, f) }
			switch mode {
			case "fresh":
				// The writers start once the import found no edge.
				opt.FreshChecked = func(f bool) { found = append(found, f); tr.start() }
			case "resumed", "resumed fresh":
				// The killed run wrote its first chunks and no counter;
				// its journal says whether it found edges.
				const written = 3
				bare := *rel
				bare.Counters = schema.Counters{}
				if _, err := st.Import(ctx, &bare, nil, rows(file[:written*opt.ChunkRows]...), opt); err != nil {
					t.Fatal(err)
				}
				opt.SkipChunks, opt.Fresh, opt.FreshChecked = written, FreshNo, nil
				if fresh {
					opt.Fresh = FreshYes
				}
			}
			if mode != "fresh" {
				tr.start()
			}
			_, err := st.Import(ctx, rel, nil, rows(file...), opt)
			tr.finish()
			var ce *ConflictError
			if errors.As(err, &ce) {
				// A counter kept changing at every attempt: as
				// documented, the import is run again.
				gaveUp++
				opt.FreshChecked = nil
				_, err = st.Import(ctx, rel, nil, rows(file...), opt)
			}
			if err != nil {
				t.Fatalf("round %d: import: %v", round, err)
			}
			if want := fmt.Sprintf("[%t]", fresh); mode != "unlink" && fmt.Sprint(found) != want {
				t.Fatalf("round %d: found fresh %v, want %s", round, found, want)
			}
			mixedWrong += tr.check(fmt.Sprintf("round %d", round), named)
		}
		t.Logf("%d rounds: the import gave up %d times; %d counters changed both ways were left wrong", concurrentRounds, gaveUp, mixedWrong)
	})
}

func TestImportWhileOthersWrite(t *testing.T)       { testImportWhileOthersWrite(t, "link") }
func TestUnlinkImportWhileOthersWrite(t *testing.T) { testImportWhileOthersWrite(t, "unlink") }
func TestFreshImportWhileOthersWrite(t *testing.T)  { testImportWhileOthersWrite(t, "fresh") }

func TestResumedImportWhileOthersWrite(t *testing.T) { testImportWhileOthersWrite(t, "resumed") }

func TestResumedFreshImportWhileOthersWrite(t *testing.T) {
	testImportWhileOthersWrite(t, "resumed fresh")
}

// TestExclusiveImportWritesWhatAConditionalImportWrites: with nobody else
// writing (Exclusive's precondition), an import that puts counter items
// back whole ends in the same table as one that writes each counter on
// condition, on every kind of relation (an item holding both counters of
// a relation among them), for --unlink and resumed imports too, with
// drifted counters (a string, a fraction) and entity attributes there
// before; and every counter it names equals its edges.
func TestExclusiveImportWritesWhatAConditionalImportWrites(t *testing.T) {
	eachCounterCase(t, func(t *testing.T, sc *schema.Schema) {
		rel := sc.Relations[0]
		for _, mode := range []string{"link", "unlink", "resumed"} {
			dumps := map[bool]string{}
			for _, exclusive := range []bool{false, true} {
				st, api := engineStore(t, sc, nil)
				tr := &traffic{t: t, st: st, rel: rel, linkers: 2, names: map[string]string{}}
				tr.seed()
				tr.drift(api)
				for i, id := range []string{"uf0", "ut1", "lf1", "lt0", "q0", "q1"} {
					must[Outcome](t)(st.PutEntity(ctx, rel.From.Entity, id, map[string]any{"name": fmt.Sprint("n", i)}))
					tr.names[rel.From.Entity.Prefix+id] = fmt.Sprint("n", i)
				}
				file := tr.importFile(mode == "unlink")
				named := map[string]bool{}
				for _, r := range file {
					named[r.From], named[r.To] = true, true
				}
				opt := ImportOptions{Unlink: mode == "unlink", Exclusive: exclusive, Workers: 3, ChunkRows: 8}
				if mode == "resumed" {
					bare := *rel
					bare.Counters = schema.Counters{}
					if _, err := st.Import(ctx, &bare, nil, rows(file[:3*opt.ChunkRows]...), opt); err != nil {
						t.Fatal(err)
					}
					opt.SkipChunks, opt.Fresh = 3, FreshNo
				}
				if _, err := st.Import(ctx, rel, nil, rows(file...), opt); err != nil {
					t.Fatal(err)
				}
				tr.check(fmt.Sprintf("%s, exclusive=%t", mode, exclusive), named)
				dumps[exclusive] = dumpTable(t, api, sc.Table.Name)
			}
			if dumps[true] != dumps[false] {
				t.Errorf("%s: the exclusive import's table differs:\n%s\nthe conditional one's:\n%s", mode, dumps[true], dumps[false])
			}
		}
	})
}
