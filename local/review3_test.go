package local

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
	"github.com/adjl/adjl/local/internal/testkit"
)

// A review of key-only index entries and of group commit's yields. The index
// tests keep a model of the table and compare every way of reading an index
// (Query both ways, paged by ExclusiveStartKey, Scan paged and by segment,
// COUNT, an LSI fetching unprojected attributes) with it, and the index
// buckets' raw entries with the keys the model says they must hold, while the
// entries move between the write-ahead log, the overlays and the bbolt file,
// across checkpoints, a crash, old-format entries and a GSI dropped and made
// again with other key types under the same name.

const r3Table = "rev3"

// r3Nums is in ascending order; the extremes give the number key encoding
// exponent bytes 0x00 and 0xFF, which equal the terminator of one sign.
var r3Nums = []string{
	"-9.9999999999999999999999999999999999999E+125", "-100", "-1E-130", "0",
	"1E-130", "0.5", "7", "1E+20", "9.9999999999999999999999999999999999999E+125",
}

// r3Parts are the table's partition keys: B values with 0x00 and 0xFF bytes.
var r3Parts = [][]byte{{0x00}, {0x00, 0x00}, {0x00, 0xFF}, {0xFF, 0x00, 0x01}}

type r3Item struct {
	pk []byte
	sk int    // index into r3Nums
	g  int    // index into r3Nums; -1 when absent
	h  []byte // nil when absent
	l  string // "" when absent
	v  string
}

func (it *r3Item) tableKey() []byte {
	return attr.AppendKey(attr.AppendKey(nil, attr.Binary(it.pk)), attr.Value{Kind: attr.N, Str: r3Nums[it.sk]})
}

// r3Index describes one index for the model: its key values for an item
// (ok false: the item is not in the index).
type r3Index struct {
	name       string
	hashName   string
	keys       func(it *r3Item) (hash, rng attr.Value, ok bool)
	hasRange   bool
	projectAll bool
	local      bool
}

func r3Num(i int) attr.Value { return attr.Value{Kind: attr.N, Str: r3Nums[i]} }

var (
	r3ByL = r3Index{name: "byL", hashName: "PK", hasRange: true, local: true, keys: func(it *r3Item) (attr.Value, attr.Value, bool) {
		return attr.Binary(it.pk), attr.String(it.l), it.l != ""
	}}
	r3ByGH = r3Index{name: "byGH", hashName: "G", hasRange: true, projectAll: true, keys: func(it *r3Item) (attr.Value, attr.Value, bool) {
		if it.g < 0 || it.h == nil {
			return attr.Value{}, attr.Value{}, false
		}
		return r3Num(it.g), attr.Binary(it.h), true
	}}
	r3ByG = r3Index{name: "byG", hashName: "G", keys: func(it *r3Item) (attr.Value, attr.Value, bool) {
		return r3Num(max(it.g, 0)), attr.Value{}, it.g >= 0
	}}
	r3BySK = r3Index{name: "bySK", hashName: "SK", hasRange: true, keys: func(it *r3Item) (attr.Value, attr.Value, bool) {
		return r3Num(it.sk), attr.Binary(it.pk), true
	}}
	// r3ByGAgain is byG dropped and created again over L (S) instead of G (N).
	r3ByGAgain = r3Index{name: "byG", hashName: "L", keys: func(it *r3Item) (attr.Value, attr.Value, bool) {
		return attr.String(it.l), attr.Value{}, it.l != ""
	}}
)

func (x *r3Index) entryKey(it *r3Item) ([]byte, bool) {
	h, r, ok := x.keys(it)
	if !ok {
		return nil, false
	}
	k := attr.AppendKey(nil, h)
	if x.hasRange {
		k = attr.AppendKey(k, r)
	}
	return append(k, it.tableKey()...), true
}

type r3Model struct {
	items   map[int]*r3Item
	indexes []*r3Index
	// oldForm holds "index/entry key" of entries rewritten as older engines
	// wrote them (the table key as value); they stay so while they exist.
	oldForm map[string]bool
}

func (m *r3Model) byTableKey() map[string]int {
	out := map[string]int{}
	for id, it := range m.items {
		out[string(it.tableKey())] = id
	}
	return out
}

// entries returns index x's expected entries: entry key -> item id.
func (m *r3Model) entries(x *r3Index) map[string]int {
	out := map[string]int{}
	for id, it := range m.items {
		if k, ok := x.entryKey(it); ok {
			out[string(k)] = id
		}
	}
	return out
}

// order returns the ids of index x's items with hash value hv (nil: all),
// in index order.
func (m *r3Model) order(x *r3Index, hv *attr.Value) []int {
	type e struct {
		k  string
		id int
	}
	var es []e
	for k, id := range m.entries(x) {
		if hv != nil {
			h, _, _ := x.keys(m.items[id])
			if !bytes.Equal(attr.AppendKey(nil, h), attr.AppendKey(nil, *hv)) {
				continue
			}
		}
		es = append(es, e{k, id})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].k < es[j].k })
	ids := make([]int, len(es))
	for i, x := range es {
		ids[i] = x.id
	}
	return ids
}

// hashValues returns the distinct hash values index x holds.
func (m *r3Model) hashValues(x *r3Index) []attr.Value {
	seen := map[string]attr.Value{}
	for _, it := range m.items {
		if h, _, ok := x.keys(it); ok {
			seen[string(attr.AppendKey(nil, h))] = h
		}
	}
	keys := slices.Sorted(maps.Keys(seen))
	out := make([]attr.Value, len(keys))
	for i, k := range keys {
		out[i] = seen[k]
	}
	return out
}

func r3Reverse(ids []int) []int {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

func r3AV(v attr.Value) av {
	switch v.Kind {
	case attr.S:
		return &types.AttributeValueMemberS{Value: v.Str}
	case attr.N:
		return &types.AttributeValueMemberN{Value: v.Str}
	}
	return &types.AttributeValueMemberB{Value: v.Bytes}
}

func r3Full(id int, it *r3Item) map[string]av {
	m := map[string]av{
		"PK": &types.AttributeValueMemberB{Value: it.pk}, "SK": n(r3Nums[it.sk]),
		"id": n(fmt.Sprint(id)), "v": s(it.v),
	}
	if it.g >= 0 {
		m["G"] = n(r3Nums[it.g])
	}
	if it.h != nil {
		m["H"] = &types.AttributeValueMemberB{Value: it.h}
	}
	if it.l != "" {
		m["L"] = s(it.l)
	}
	return m
}

func r3Key(it *r3Item) map[string]av {
	return map[string]av{"PK": &types.AttributeValueMemberB{Value: it.pk}, "SK": n(r3Nums[it.sk])}
}

func r3NewItem(i int) *r3Item {
	it := &r3Item{pk: r3Parts[i%4], sk: i % 9, g: (i * 5) % 9, h: []byte{byte(i%2) * 0xFF, 0x00, byte(i)},
		l: fmt.Sprintf("l\x00%c", 'a'+i), v: fmt.Sprint("v", i)}
	if i%7 == 3 {
		it.g = -1 // not in byG or byGH
	}
	if i%5 == 1 {
		it.l = "" // not in byL
	}
	return it
}

func r3CreateTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ks := func(hash, rng string) []types.KeySchemaElement {
		out := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
		if rng != "" {
			out = append(out, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
		}
		return out
	}
	def := func(name string, k types.ScalarAttributeType) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: k}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(r3Table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			def("PK", types.ScalarAttributeTypeB), def("SK", types.ScalarAttributeTypeN), def("G", types.ScalarAttributeTypeN),
			def("H", types.ScalarAttributeTypeB), def("L", types.ScalarAttributeTypeS),
		},
		KeySchema: ks("PK", "SK"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"), KeySchema: ks("PK", "L"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("byGH"), KeySchema: ks("G", "H"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("byG"), KeySchema: ks("G", ""), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("bySK"), KeySchema: ks("SK", "PK"), Projection: &types.Projection{
				ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"id"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// r3Put writes items ids of m through PutItem.
func r3Put(t *testing.T, c *dynamodb.Client, m *r3Model, ids ...int) {
	t.Helper()
	for _, id := range ids {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r3Table), Item: r3Full(id, m.items[id])}); err != nil {
			t.Fatalf("put %d: %v", id, err)
		}
	}
}

// r3Mutate deletes, updates (index keys or not) and adds items, through the
// API and in the model; round varies which.
func r3Mutate(t *testing.T, c *dynamodb.Client, m *r3Model, round int) {
	t.Helper()
	update := func(id int, expr string, vals map[string]av) {
		t.Helper()
		in := &dynamodb.UpdateItemInput{TableName: aws.String(r3Table), Key: r3Key(m.items[id]), UpdateExpression: aws.String(expr)}
		if len(vals) > 0 {
			in.ExpressionAttributeValues = vals
		}
		if _, err := c.UpdateItem(ctx, in); err != nil {
			t.Fatalf("update %d (%s): %v", id, expr, err)
		}
	}
	ids := slices.Sorted(maps.Keys(m.items))
	for _, id := range ids {
		it := m.items[id]
		switch (id + round) % 6 {
		case 0:
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r3Table), Key: r3Key(it)}); err != nil {
				t.Fatal(err)
			}
			for _, x := range m.indexes {
				if k, ok := x.entryKey(it); ok {
					delete(m.oldForm, x.name+"/"+string(k)) // gone, even if written again
				}
			}
			delete(m.items, id)
		case 1: // no index key changes: entries stay as they are
			it.v = fmt.Sprint("v", id, "r", round)
			update(id, "SET v = :v", map[string]av{":v": s(it.v)})
		case 2: // GSI keys move, or leave the index
			if id%4 == 2 {
				it.g, it.h = -1, nil
				update(id, "REMOVE G, H", nil)
				break
			}
			it.g = (it.g + 4 + round) % 9
			it.h = append([]byte{0xFF, 0x00, byte(round)}, it.h...)
			update(id, "SET G = :g, H = :h", map[string]av{":g": n(r3Nums[it.g]), ":h": &types.AttributeValueMemberB{Value: it.h}})
		case 3: // the LSI key moves
			it.l = fmt.Sprintf("m\x00%d\x00%d", round, id)
			update(id, "SET L = :l", map[string]av{":l": s(it.l)})
		}
	}
	// New items on table keys no item has (some were just deleted).
	taken := m.byTableKey()
	added := 0
	for i := 0; added < 4 && i < 36; i++ {
		it := r3NewItem(i)
		if _, ok := taken[string(it.tableKey())]; ok {
			continue
		}
		id := 100*(round+1) + i
		it.h = append(it.h, byte(round))
		it.v = fmt.Sprint("new", id)
		m.items[id] = it
		r3Put(t, c, m, id)
		added++
	}
	m.forgetGoneOldForm()
}

// forgetGoneOldForm drops old-form marks of entries that no longer exist:
// an entry written again is written key-only.
func (m *r3Model) forgetGoneOldForm() {
	for _, x := range m.indexes {
		es := m.entries(x)
		for k := range m.oldForm {
			name, key, _ := strings.Cut(k, "/")
			if name != x.name {
				continue
			}
			if _, ok := es[key]; !ok {
				delete(m.oldForm, k)
			}
		}
	}
}

// r3Pages runs a Query (hash != nil) or Scan of index x to the end, page
// by page, and returns every item.
func r3Pages(t *testing.T, c *dynamodb.Client, x *r3Index, hash *attr.Value, forward bool, limit int32, seg, total int32, proj string) []map[string]av {
	t.Helper()
	var out []map[string]av
	var esk map[string]av
	for page := 0; ; page++ {
		if page > 200 {
			t.Fatalf("%s: more than 200 pages", x.name)
		}
		var items []map[string]av
		var lek map[string]av
		if hash != nil {
			in := &dynamodb.QueryInput{TableName: aws.String(r3Table), IndexName: aws.String(x.name), ScanIndexForward: aws.Bool(forward),
				KeyConditionExpression:    aws.String("#h = :h"),
				ExpressionAttributeNames:  map[string]string{"#h": x.hashName},
				ExpressionAttributeValues: map[string]av{":h": r3AV(*hash)}, ExclusiveStartKey: esk}
			if limit > 0 {
				in.Limit = aws.Int32(limit)
			}
			if proj != "" {
				in.ProjectionExpression = aws.String(proj)
			}
			q, err := c.Query(ctx, in)
			if err != nil {
				t.Fatalf("query %s %v: %v", x.name, *hash, err)
			}
			items, lek = q.Items, q.LastEvaluatedKey
		} else {
			in := &dynamodb.ScanInput{TableName: aws.String(r3Table), IndexName: aws.String(x.name), ExclusiveStartKey: esk}
			if limit > 0 {
				in.Limit = aws.Int32(limit)
			}
			if total > 0 {
				in.Segment, in.TotalSegments = aws.Int32(seg), aws.Int32(total)
			}
			sc, err := c.Scan(ctx, in)
			if err != nil {
				t.Fatalf("scan %s: %v", x.name, err)
			}
			items, lek = sc.Items, sc.LastEvaluatedKey
		}
		out = append(out, items...)
		if len(lek) == 0 {
			return out
		}
		esk = lek
	}
}

// ids maps returned items to model ids by their table key, checking what
// an ALL projection or a fetch returns against the model.
func (m *r3Model) ids(t *testing.T, what string, items []map[string]av, checkV bool) []int {
	t.Helper()
	byKey := m.byTableKey()
	out := make([]int, 0, len(items))
	for _, it := range items {
		pk, ok1 := it["PK"].(*types.AttributeValueMemberB)
		sk, ok2 := it["SK"].(*types.AttributeValueMemberN)
		if !ok1 || !ok2 {
			t.Fatalf("%s: item without its table key: %v", what, it)
		}
		tk := attr.AppendKey(attr.AppendKey(nil, attr.Binary(pk.Value)), attr.Value{Kind: attr.N, Str: sk.Value})
		id, ok := byKey[string(tk)]
		if !ok {
			t.Fatalf("%s: returned an item the table does not have: %x / %s", what, pk.Value, sk.Value)
		}
		if checkV && str(it, "v") != m.items[id].v {
			t.Fatalf("%s: item %d has v %q, want %q", what, id, str(it, "v"), m.items[id].v)
		}
		out = append(out, id)
	}
	return out
}

// r3Check reads every index every way and compares with the model.
func r3Check(t *testing.T, e *Engine, m *r3Model, phase string) {
	t.Helper()
	c := clientFor(e)
	for _, x := range m.indexes {
		all := m.order(x, nil)
		for i, hv := range m.hashValues(x) {
			want := m.order(x, &hv)
			what := fmt.Sprintf("%s: query %s %s=%v", phase, x.name, x.hashName, hv)
			got := m.ids(t, what, r3Pages(t, c, x, &hv, true, 0, 0, 0, ""), x.projectAll)
			if !slices.Equal(got, want) {
				t.Fatalf("%s forward: %v, want %v", what, got, want)
			}
			got = m.ids(t, what, r3Pages(t, c, x, &hv, false, 2, 0, 0, ""), x.projectAll)
			if !slices.Equal(got, r3Reverse(want)) {
				t.Fatalf("%s backward by pages of 2: %v, want %v", what, got, r3Reverse(want))
			}
			if i%2 == 0 {
				got = m.ids(t, what, r3Pages(t, c, x, &hv, true, 1, 0, 0, ""), x.projectAll)
				if !slices.Equal(got, want) {
					t.Fatalf("%s forward by pages of 1: %v, want %v", what, got, want)
				}
			}
			if x.local && i == 0 {
				// An LSI fetches what it does not project from the table.
				got = m.ids(t, what, r3Pages(t, c, x, &hv, false, 3, 0, 0, "PK, SK, v"), true)
				if !slices.Equal(got, r3Reverse(want)) {
					t.Fatalf("%s fetching v: %v, want %v", what, got, r3Reverse(want))
				}
			}
			if i == 1 {
				q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(r3Table), IndexName: aws.String(x.name), Select: types.SelectCount,
					KeyConditionExpression: aws.String("#h = :h"), ExpressionAttributeNames: map[string]string{"#h": x.hashName},
					ExpressionAttributeValues: map[string]av{":h": r3AV(hv)}})
				if err != nil || int(q.Count) != len(want) {
					t.Fatalf("%s COUNT: %v, %v; want %d", what, q, err, len(want))
				}
			}
		}
		what := fmt.Sprintf("%s: scan %s", phase, x.name)
		got := m.ids(t, what, r3Pages(t, c, x, nil, true, 4, 0, 0, ""), x.projectAll)
		if !slices.Equal(got, all) {
			t.Fatalf("%s by pages of 4: %v, want %v", what, got, all)
		}
		var union []int
		for seg := int32(0); seg < 3; seg++ {
			part := m.ids(t, what, r3Pages(t, c, x, nil, true, 0, seg, 3, ""), x.projectAll)
			// A segment keeps index order: a subsequence of the whole.
			pos := 0
			for _, id := range part {
				for pos < len(all) && all[pos] != id {
					pos++
				}
				if pos == len(all) {
					t.Fatalf("%s segment %d: %v is not in index order (%v)", what, seg, part, all)
				}
			}
			union = append(union, part...)
		}
		slices.Sort(union)
		sortedAll := slices.Sorted(slices.Values(all))
		if !slices.Equal(union, sortedAll) {
			t.Fatalf("%s: segments hold %v together, want each of %v once", what, union, sortedAll)
		}
	}
	r3CheckEntries(t, e, m, phase)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r3Table)})
	if err != nil {
		t.Fatal(err)
	}
	for _, xd := range d.Table.GlobalSecondaryIndexes {
		for _, x := range m.indexes {
			if x.name == *xd.IndexName && int(*xd.ItemCount) != len(m.entries(x)) {
				t.Fatalf("%s: %s ItemCount %d, want %d", phase, x.name, *xd.ItemCount, len(m.entries(x)))
			}
		}
	}
}

// r3CheckEntries compares every index bucket's raw entries with the model:
// exactly the expected keys, each value empty unless the entry was
// rewritten in the old form (then the table key).
func r3CheckEntries(t *testing.T, e *Engine, m *r3Model, phase string) {
	t.Helper()
	err := e.db.View(func(tx kv.Tx) error {
		for _, x := range m.indexes {
			want := m.entries(x)
			b := tx.Bucket(indexBucketName(r3Table, x.name))
			if b == nil {
				return fmt.Errorf("no bucket for %s", x.name)
			}
			got := 0
			if err := b.ForEach(func(k, v []byte) error {
				id, ok := want[string(k)]
				if !ok {
					return fmt.Errorf("%s: unexpected entry %x = %x", x.name, k, v)
				}
				got++
				if m.oldForm[x.name+"/"+string(k)] {
					if !bytes.Equal(v, m.items[id].tableKey()) {
						return fmt.Errorf("%s: old-form entry %x has value %x, want the table key", x.name, k, v)
					}
				} else if len(v) != 0 {
					return fmt.Errorf("%s: entry %x has value %x, want none", x.name, k, v)
				}
				return nil
			}); err != nil {
				return err
			}
			if got != len(want) {
				return fmt.Errorf("%s: %d entries, want %d", x.name, got, len(want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
}

// r3RewriteOldForm rewrites every third entry of each index as engines
// before key-only entries wrote it: the table key as value. On a data file
// it then checkpoints, so the entries lie in the bbolt file itself as an
// older engine left them, with no overlay over them.
func r3RewriteOldForm(t *testing.T, e *Engine, m *r3Model) {
	t.Helper()
	type put struct{ k, v []byte }
	plan := map[string][]put{}
	for _, x := range m.indexes {
		es := m.entries(x)
		keys := slices.Sorted(maps.Keys(es))
		for i, k := range keys {
			if i%3 == 0 {
				plan[x.name] = append(plan[x.name], put{[]byte(k), m.items[es[k]].tableKey()})
				m.oldForm[x.name+"/"+k] = true
			}
		}
	}
	err := e.db.Update(func(tx kv.Tx) error {
		for name, ps := range plan {
			b := tx.Bucket(indexBucketName(r3Table, name))
			for _, p := range ps {
				if b.Get(p.k) == nil {
					return fmt.Errorf("%s: no entry %x in the data file", name, p.k)
				}
				if err := b.Put(p.k, p.v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if f, ok := e.db.(*kv.File); ok && err == nil {
		err = f.Checkpoint()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func r3Open(t *testing.T, path string, inMemory bool) *Engine {
	t.Helper()
	e, err := Open(path, Options{InMemory: inMemory})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func r3UpdateGSIs(t *testing.T, c *dynamodb.Client, u types.GlobalSecondaryIndexUpdate, defs ...types.AttributeDefinition) {
	t.Helper()
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(r3Table), AttributeDefinitions: defs,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{u}}); err != nil {
		t.Fatal(err)
	}
}

// TestReview3IndexReadsThroughEveryLayer: every read of every index kind
// (LSI, GSI with and without a range key, a GSI over the table's sort key)
// matches the model while key-only entries live in the overlay, the bbolt
// file, a frozen overlay over both, a replayed log after a crash, mixed with
// old-form entries in the bbolt file and tombstones over them; and the raw
// entries are exactly those the model expects. A GSI dropped and created
// again under the same name with another key type reads only its own
// entries, before and after they reach the bbolt file.
func TestReview3IndexReadsThroughEveryLayer(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprint("inMemory=", inMemory), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			e := r3Open(t, path, inMemory)
			defer func() { e.Close() }()
			c := clientFor(e)
			r3CreateTable(t, c)
			m := &r3Model{items: map[int]*r3Item{}, indexes: []*r3Index{&r3ByL, &r3ByGH, &r3ByG, &r3BySK}, oldForm: map[string]bool{}}
			var ids []int
			for i := 0; i < 30; i++ {
				m.items[i] = r3NewItem(i)
				ids = append(ids, i)
			}
			r3Put(t, c, m, ids...)
			r3Check(t, e, m, "written")
			file, _ := e.db.(*kv.File)
			if file != nil {
				if err := file.Checkpoint(); err != nil {
					t.Fatal(err)
				}
				r3Check(t, e, m, "checkpointed")
			}
			r3RewriteOldForm(t, e, m)
			if len(m.oldForm) == 0 {
				t.Fatal("no entry rewritten in the old form")
			}
			r3Check(t, e, m, "old-form entries")
			r3Mutate(t, c, m, 0)
			r3Check(t, e, m, "mutated over the file")
			if file != nil {
				// Freeze the overlay and hold its checkpoint so that reads
				// go through active, frozen and file.
				release, err := file.HoldCheckpoint()
				if err != nil {
					t.Fatal(err)
				}
				r3Mutate(t, c, m, 1)
				r3Check(t, e, m, "three layers")
				release()
				r3Check(t, e, m, "frozen overlay checkpointed")
				r3Mutate(t, c, m, 2)
				crashEngine(e)
				e = r3Open(t, path, false)
				c = clientFor(e)
				r3Check(t, e, m, "replayed after a crash")
			}
			// Items in the overlay and the file, some deleted over the file:
			// the backfill below walks them merged.
			r3Mutate(t, c, m, 4)
			// byG (N) dropped and made again over L (S): its old entries
			// must not show through, whether in the file or not.
			r3UpdateGSIs(t, c, types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}})
			r3UpdateGSIs(t, c, types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:  aws.String("byG"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("L"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}}, types.AttributeDefinition{AttributeName: aws.String("L"), AttributeType: types.ScalarAttributeTypeS})
			m.indexes[2] = &r3ByGAgain
			m.forgetGoneOldForm()
			for k := range m.oldForm {
				if strings.HasPrefix(k, "byG/") {
					delete(m.oldForm, k) // the bucket was dropped
				}
			}
			r3Check(t, e, m, "byG made again")
			r3Mutate(t, c, m, 3)
			r3Check(t, e, m, "byG made again, mutated")
			if file != nil {
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				e = r3Open(t, path, false)
				r3Check(t, e, m, "reopened")
			}
		})
	}
}

// TestReview3SkipKeyAtNumberAndByteExtremes: SkipKey and tableKeyOf find
// the table key after index key values whose encodings contain their own
// terminator byte (number exponent bytes 0x00 and 0xFF, escaped 0x00 in S
// and B), for every kind pair, and agree with DecodeKey.
func TestReview3SkipKeyAtNumberAndByteExtremes(t *testing.T) {
	vals := map[attr.Kind][]attr.Value{
		attr.N: {r3Num(0), r3Num(2), r3Num(3), r3Num(4), r3Num(8), {Kind: attr.N, Str: "-0.000000000000000000000000000000000000001"}},
		attr.S: {attr.String("\x00"), attr.String("\x00\x00"), attr.String("a\x00\x01"), attr.String("\xff")},
		attr.B: {attr.Binary([]byte{0x00}), attr.Binary([]byte{0xFF}), attr.Binary([]byte{0x00, 0x01}), attr.Binary([]byte{0x00, 0xFF, 0x00})},
	}
	tableKey := attr.AppendKey(attr.AppendKey(nil, attr.Binary([]byte{0x00, 0x01})), r3Num(8))
	kinds := []attr.Kind{attr.S, attr.N, attr.B}
	for _, hk := range kinds {
		for _, hv := range vals[hk] {
			x := &index{name: "h", hash: "h", hashKind: hk}
			k := append(attr.AppendKey(nil, hv), tableKey...)
			if got, err := x.tableKeyOf(k, nil); err != nil || !bytes.Equal(got, tableKey) {
				t.Errorf("hash %v: table key %x, %v; want %x", hv, got, err, tableKey)
			}
			if got, err := x.tableKeyOf(k, []byte{}); err != nil || !bytes.Equal(got, tableKey) {
				t.Errorf("hash %v, empty value: table key %x, %v", hv, got, err)
			}
			for _, rk := range kinds {
				for _, rv := range vals[rk] {
					x := &index{name: "hr", hash: "h", hashKind: hk, rng: "r", rngKind: rk}
					k := append(attr.AppendKey(attr.AppendKey(nil, hv), rv), tableKey...)
					got, err := x.tableKeyOf(k, nil)
					if err != nil || !bytes.Equal(got, tableKey) {
						t.Errorf("hash %v, range %v: table key %x, %v; want %x", hv, rv, got, err, tableKey)
					}
					_, rest, derr := attr.DecodeKey(k, hk)
					if derr == nil {
						_, rest, derr = attr.DecodeKey(rest, rk)
					}
					if derr != nil || !bytes.Equal(rest, got) {
						t.Errorf("hash %v, range %v: DecodeKey leaves %x (%v), SkipKey %x", hv, rv, rest, derr, got)
					}
				}
			}
		}
	}
	// Truncated entries are errors, never a wrong table key or a panic.
	x := &index{name: "hr", hash: "h", hashKind: attr.N, rng: "r", rngKind: attr.B}
	full := attr.AppendKey(attr.AppendKey(nil, r3Num(4)), attr.Binary([]byte{0x00}))
	for i := 0; i < len(full); i++ {
		if got, err := x.tableKeyOf(full[:i], nil); err == nil {
			t.Errorf("entry cut to %x: table key %x, no error", full[:i], got)
		}
	}
}

// TestReview3GroupCommitOneProc: with a single P, whether writers share a
// round depends on timing (see TestGroupCommitSharesTransactions), but
// fsyncs never outnumber commits, and every acknowledged write is there
// after a crash.
func TestReview3GroupCommitOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	path := filepath.Join(t.TempDir(), "data.db")
	e := r3Open(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	rounds, jobs, fsyncs := putConcurrently(t, e, c, "ggg")
	t.Logf("GOMAXPROCS=1: %d writes in %d commits, %d log fsyncs", jobs, rounds, fsyncs)
	if jobs != 200 {
		t.Fatalf("%d writes committed, want 200", jobs)
	}
	if fsyncs > rounds {
		t.Fatalf("%d log fsyncs for %d commits: an fsync covered no new record", fsyncs, rounds)
	}
	crashEngine(e)
	e = r3Open(t, path, false)
	defer e.Close()
	q, err := clientFor(e).Query(ctx, &dynamodb.QueryInput{TableName: aws.String("ggg"), IndexName: aws.String("GSI1"), Select: types.SelectCount,
		KeyConditionExpression: aws.String("GSI1PK = :a"), ExpressionAttributeValues: map[string]av{":a": s("all")}})
	if err != nil || q.Count != 200 {
		t.Fatalf("after a crash the index holds %v items (%v), want 200", q, err)
	}
}

// TestReview3CommitsCheckpointsAndReadersTogether: writers, readers and
// checkpoints (a tiny log limit starts one every few commits; each syncs
// the log while holding the write lock) run together without a deadlock;
// a write, once acknowledged, is seen by every later read, through the
// table and the index; fsyncs never outnumber commits; and everything is
// there after a crash.
func TestReview3CommitsCheckpointsAndReadersTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e := r3Open(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	SetCheckpointBytes(e, 2048)
	file := fileStore(e)
	f0, c0 := file.Stats(), e.commits.Stats()
	const writers, each = 6, 30
	var acked [writers]int // per writer: items acknowledged so far
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ggg"),
					Item: map[string]av{"PK": s(fmt.Sprint("w", g)), "SK": s(fmt.Sprintf("%03d", i)),
						"GSI1PK": s(fmt.Sprint("w", g)), "GSI1SK": s(fmt.Sprintf("%03d", i)), "pad": s(strings.Repeat("p", 200))}}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked[g] = i + 1
				mu.Unlock()
			}
		}(g)
	}
	var readers sync.WaitGroup
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func(r int) {
			defer readers.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				g := (i + r) % writers
				mu.Lock()
				min := acked[g]
				mu.Unlock()
				in := &dynamodb.QueryInput{TableName: aws.String("ggg"), Select: types.SelectCount,
					KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s(fmt.Sprint("w", g))}}
				if i%2 == 1 {
					in.IndexName = aws.String("GSI1")
					in.KeyConditionExpression = aws.String("GSI1PK = :p")
				}
				q, err := c.Query(ctx, in)
				if err != nil {
					t.Error(err)
					return
				}
				if int(q.Count) < min {
					t.Errorf("writer %d had %d writes acknowledged; a later read (index %v) saw %d", g, min, in.IndexName != nil, q.Count)
					return
				}
			}
		}(r)
	}
	testkit.WaitOrDump(t, 30*time.Second, "stuck: writers and readers did not finish", func() { wg.Wait(); close(done); readers.Wait() })
	if t.Failed() {
		return
	}
	if n := file.Stats().Epoch - f0.Epoch; n < 4 {
		t.Fatalf("only %d new log epochs: the checkpoints did not run", n)
	}
	if rounds, fsyncs := e.commits.Stats().Rounds-c0.Rounds, file.Stats().LogSyncs-f0.LogSyncs; fsyncs > rounds {
		t.Fatalf("%d log fsyncs for %d commits", fsyncs, rounds)
	}
	crashEngine(e)
	e = r3Open(t, path, false)
	defer e.Close()
	c = clientFor(e)
	for g := 0; g < writers; g++ {
		for _, idx := range []string{"", "GSI1"} {
			in := &dynamodb.QueryInput{TableName: aws.String("ggg"), KeyConditionExpression: aws.String("PK = :p"),
				ExpressionAttributeValues: map[string]av{":p": s(fmt.Sprint("w", g))}}
			if idx != "" {
				in.IndexName, in.KeyConditionExpression = aws.String(idx), aws.String("GSI1PK = :p")
			}
			q, err := c.Query(ctx, in)
			if err != nil || len(q.Items) != each {
				t.Fatalf("after a crash writer %d has %v items in %q (%v), want %d", g, len(q.Items), idx, err, each)
			}
			for i, it := range q.Items {
				if str(it, "SK") != fmt.Sprintf("%03d", i) {
					t.Fatalf("after a crash writer %d item %d is %q", g, i, str(it, "SK"))
				}
			}
		}
	}
}

// TestReview3FailingLogUnderConcurrentWriters: the log file fails while
// eight writers commit in shared rounds (the leader and the syncer
// yielding): every request returns — none hangs on a sync that will never
// come — the failure reaches requests rather than being lost, and every
// write acknowledged before it is there after reopening.
func TestReview3FailingLogUnderConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e := r3Open(t, path, false)
	c := clientFor(e)
	createGraphTable(t, c, "ggg")
	file := fileStore(e)
	var mu sync.Mutex
	acked := map[string]bool{}
	failed := 0
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				if g == 0 && i == 10 {
					file.BreakLog() // later writes and fsyncs of the log fail
				}
				pk := fmt.Sprint(g, "/", i)
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ggg"),
					Item: map[string]av{"PK": s(pk), "SK": s("x"), "GSI1PK": s("all"), "GSI1SK": s(pk)}})
				mu.Lock()
				if err == nil {
					acked[pk] = true
				} else {
					failed++
				}
				mu.Unlock()
			}
		}(g)
	}
	testkit.WaitOrDump(t, 30*time.Second, "writers hung after the log failed", wg.Wait)
	if failed == 0 {
		t.Fatal("no write failed after the log file was closed")
	}
	if len(acked) < 10 {
		t.Fatalf("only %d writes acknowledged before the failure", len(acked))
	}
	crashEngine(e)
	e = r3Open(t, path, false)
	defer e.Close()
	q, err := clientFor(e).Query(ctx, &dynamodb.QueryInput{TableName: aws.String("ggg"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :a"), ExpressionAttributeValues: map[string]av{":a": s("all")}})
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, it := range q.Items {
		present[str(it, "PK")] = true
	}
	for pk := range acked {
		if !present[pk] {
			t.Errorf("acknowledged write %s lost", pk)
		}
	}
	t.Logf("%d acknowledged, %d failed, %d present after reopening", len(acked), failed, len(present))
}
