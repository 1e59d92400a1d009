package local

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// Index reads through every storage layer. The test keeps a model of a
// table with four indexes (an LSI, GSIs with and without a range key, a GSI
// over the table's sort key) and compares every way of reading an index
// (Query both ways, paged by ExclusiveStartKey, Scan paged and by segment,
// COUNT, an LSI fetching unprojected attributes) with it, and the index
// buckets' raw entries with the keys the model says they must hold, while
// the entries move between the write-ahead log, the overlays and the bbolt
// file, across checkpoints, a crash, old-format entries and a GSI dropped
// and made again with other key types under the same name.

const ixTable = "layers"

// ixNums is in ascending order; the extremes give the number key encoding
// exponent bytes 0x00 and 0xFF, which equal the terminator of one sign.
var ixNums = []string{
	"-9.9999999999999999999999999999999999999E+125", "-100", "-1E-130", "0",
	"1E-130", "0.5", "7", "1E+20", "9.9999999999999999999999999999999999999E+125",
}

// ixParts are the table's partition keys: B values with 0x00 and 0xFF bytes.
var ixParts = [][]byte{{0x00}, {0x00, 0x00}, {0x00, 0xFF}, {0xFF, 0x00, 0x01}}

type ixItem struct {
	pk []byte
	sk int    // index into ixNums
	g  int    // index into ixNums; -1 when absent
	h  []byte // nil when absent
	l  string // "" when absent
	v  string
}

func (it *ixItem) tableKey() []byte {
	return attr.AppendKey(attr.AppendKey(nil, attr.Binary(it.pk)), attr.Value{Kind: attr.N, Str: ixNums[it.sk]})
}

// ixIndex describes one index for the model: its key values for an item
// (ok false: the item is not in the index).
type ixIndex struct {
	name       string
	hashName   string
	keys       func(it *ixItem) (hash, rng attr.Value, ok bool)
	hasRange   bool
	projectAll bool
	local      bool
}

func ixNum(i int) attr.Value { return attr.Value{Kind: attr.N, Str: ixNums[i]} }

var (
	ixByL = ixIndex{name: "byL", hashName: "PK", hasRange: true, local: true, keys: func(it *ixItem) (attr.Value, attr.Value, bool) {
		return attr.Binary(it.pk), attr.String(it.l), it.l != ""
	}}
	ixByGH = ixIndex{name: "byGH", hashName: "G", hasRange: true, projectAll: true, keys: func(it *ixItem) (attr.Value, attr.Value, bool) {
		if it.g < 0 || it.h == nil {
			return attr.Value{}, attr.Value{}, false
		}
		return ixNum(it.g), attr.Binary(it.h), true
	}}
	ixByG = ixIndex{name: "byG", hashName: "G", keys: func(it *ixItem) (attr.Value, attr.Value, bool) {
		return ixNum(max(it.g, 0)), attr.Value{}, it.g >= 0
	}}
	ixBySK = ixIndex{name: "bySK", hashName: "SK", hasRange: true, keys: func(it *ixItem) (attr.Value, attr.Value, bool) {
		return ixNum(it.sk), attr.Binary(it.pk), true
	}}
	// ixByGAgain is byG dropped and created again over L (S) instead of G (N).
	ixByGAgain = ixIndex{name: "byG", hashName: "L", keys: func(it *ixItem) (attr.Value, attr.Value, bool) {
		return attr.String(it.l), attr.Value{}, it.l != ""
	}}
)

func (x *ixIndex) entryKey(it *ixItem) ([]byte, bool) {
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

type ixModel struct {
	items   map[int]*ixItem
	indexes []*ixIndex
	// oldForm holds "index/entry key" of entries rewritten as older engines
	// wrote them (the table key as value); they stay so while they exist.
	oldForm map[string]bool
}

func (m *ixModel) byTableKey() map[string]int {
	out := map[string]int{}
	for id, it := range m.items {
		out[string(it.tableKey())] = id
	}
	return out
}

// entries returns index x's expected entries: entry key -> item id.
func (m *ixModel) entries(x *ixIndex) map[string]int {
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
func (m *ixModel) order(x *ixIndex, hv *attr.Value) []int {
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
func (m *ixModel) hashValues(x *ixIndex) []attr.Value {
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

func ixReverse(ids []int) []int {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

func ixAV(v attr.Value) av {
	switch v.Kind {
	case attr.S:
		return &types.AttributeValueMemberS{Value: v.Str}
	case attr.N:
		return &types.AttributeValueMemberN{Value: v.Str}
	}
	return &types.AttributeValueMemberB{Value: v.Bytes}
}

func ixFull(id int, it *ixItem) map[string]av {
	m := map[string]av{
		"PK": &types.AttributeValueMemberB{Value: it.pk}, "SK": n(ixNums[it.sk]),
		"id": n(fmt.Sprint(id)), "v": s(it.v),
	}
	if it.g >= 0 {
		m["G"] = n(ixNums[it.g])
	}
	if it.h != nil {
		m["H"] = &types.AttributeValueMemberB{Value: it.h}
	}
	if it.l != "" {
		m["L"] = s(it.l)
	}
	return m
}

func ixKey(it *ixItem) map[string]av {
	return map[string]av{"PK": &types.AttributeValueMemberB{Value: it.pk}, "SK": n(ixNums[it.sk])}
}

func ixNewItem(i int) *ixItem {
	it := &ixItem{pk: ixParts[i%4], sk: i % 9, g: (i * 5) % 9, h: []byte{byte(i%2) * 0xFF, 0x00, byte(i)},
		l: fmt.Sprintf("l\x00%c", 'a'+i), v: fmt.Sprint("v", i)}
	if i%7 == 3 {
		it.g = -1 // not in byG or byGH
	}
	if i%5 == 1 {
		it.l = "" // not in byL
	}
	return it
}

func ixCreateTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(ixTable),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			attrDef("PK", types.ScalarAttributeTypeB), attrDef("SK", types.ScalarAttributeTypeN), attrDef("G", types.ScalarAttributeTypeN),
			attrDef("H", types.ScalarAttributeTypeB), attrDef("L", types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema("PK", "SK"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"), KeySchema: keySchema("PK", "L"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("byGH"), KeySchema: keySchema("G", "H"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("byG"), KeySchema: keySchema("G", ""), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("bySK"), KeySchema: keySchema("SK", "PK"), Projection: &types.Projection{
				ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"id"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ixPut writes items ids of m through PutItem.
func ixPut(t *testing.T, c *dynamodb.Client, m *ixModel, ids ...int) {
	t.Helper()
	for _, id := range ids {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(ixTable), Item: ixFull(id, m.items[id])}); err != nil {
			t.Fatalf("put %d: %v", id, err)
		}
	}
}

// ixMutate deletes, updates (index keys or not) and adds items, through the
// API and in the model; round varies which.
func ixMutate(t *testing.T, c *dynamodb.Client, m *ixModel, round int) {
	t.Helper()
	update := func(id int, expr string, vals map[string]av) {
		t.Helper()
		in := &dynamodb.UpdateItemInput{TableName: aws.String(ixTable), Key: ixKey(m.items[id]), UpdateExpression: aws.String(expr)}
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
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(ixTable), Key: ixKey(it)}); err != nil {
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
			update(id, "SET G = :g, H = :h", map[string]av{":g": n(ixNums[it.g]), ":h": &types.AttributeValueMemberB{Value: it.h}})
		case 3: // the LSI key moves
			it.l = fmt.Sprintf("m\x00%d\x00%d", round, id)
			update(id, "SET L = :l", map[string]av{":l": s(it.l)})
		}
	}
	// New items on table keys no item has (some were just deleted).
	taken := m.byTableKey()
	added := 0
	for i := 0; added < 4 && i < 36; i++ {
		it := ixNewItem(i)
		if _, ok := taken[string(it.tableKey())]; ok {
			continue
		}
		id := 100*(round+1) + i
		it.h = append(it.h, byte(round))
		it.v = fmt.Sprint("new", id)
		m.items[id] = it
		ixPut(t, c, m, id)
		added++
	}
	m.forgetGoneOldForm()
}

// forgetGoneOldForm drops old-form marks of entries that no longer exist:
// an entry written again is written key-only.
func (m *ixModel) forgetGoneOldForm() {
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

// ixPages runs a Query (hash != nil) or Scan of index x to the end, page
// by page, and returns every item.
func ixPages(t *testing.T, c *dynamodb.Client, x *ixIndex, hash *attr.Value, forward bool, limit int32, seg, total int32, proj string) []map[string]av {
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
			in := &dynamodb.QueryInput{TableName: aws.String(ixTable), IndexName: aws.String(x.name), ScanIndexForward: aws.Bool(forward),
				KeyConditionExpression:    aws.String("#h = :h"),
				ExpressionAttributeNames:  map[string]string{"#h": x.hashName},
				ExpressionAttributeValues: map[string]av{":h": ixAV(*hash)}, ExclusiveStartKey: esk}
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
			in := &dynamodb.ScanInput{TableName: aws.String(ixTable), IndexName: aws.String(x.name), ExclusiveStartKey: esk}
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
func (m *ixModel) ids(t *testing.T, what string, items []map[string]av, checkV bool) []int {
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

// ixCheck reads every index every way and compares with the model.
func ixCheck(t *testing.T, e *Engine, m *ixModel, phase string) {
	t.Helper()
	c := clientFor(e)
	for _, x := range m.indexes {
		all := m.order(x, nil)
		for i, hv := range m.hashValues(x) {
			want := m.order(x, &hv)
			what := fmt.Sprintf("%s: query %s %s=%v", phase, x.name, x.hashName, hv)
			got := m.ids(t, what, ixPages(t, c, x, &hv, true, 0, 0, 0, ""), x.projectAll)
			if !slices.Equal(got, want) {
				t.Fatalf("%s forward: %v, want %v", what, got, want)
			}
			got = m.ids(t, what, ixPages(t, c, x, &hv, false, 2, 0, 0, ""), x.projectAll)
			if !slices.Equal(got, ixReverse(want)) {
				t.Fatalf("%s backward by pages of 2: %v, want %v", what, got, ixReverse(want))
			}
			if i%2 == 0 {
				got = m.ids(t, what, ixPages(t, c, x, &hv, true, 1, 0, 0, ""), x.projectAll)
				if !slices.Equal(got, want) {
					t.Fatalf("%s forward by pages of 1: %v, want %v", what, got, want)
				}
			}
			if x.local && i == 0 {
				// An LSI fetches what it does not project from the table.
				got = m.ids(t, what, ixPages(t, c, x, &hv, false, 3, 0, 0, "PK, SK, v"), true)
				if !slices.Equal(got, ixReverse(want)) {
					t.Fatalf("%s fetching v: %v, want %v", what, got, ixReverse(want))
				}
			}
			if i == 1 {
				q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(ixTable), IndexName: aws.String(x.name), Select: types.SelectCount,
					KeyConditionExpression: aws.String("#h = :h"), ExpressionAttributeNames: map[string]string{"#h": x.hashName},
					ExpressionAttributeValues: map[string]av{":h": ixAV(hv)}})
				if err != nil || int(q.Count) != len(want) {
					t.Fatalf("%s COUNT: %v, %v; want %d", what, q, err, len(want))
				}
			}
		}
		what := fmt.Sprintf("%s: scan %s", phase, x.name)
		got := m.ids(t, what, ixPages(t, c, x, nil, true, 4, 0, 0, ""), x.projectAll)
		if !slices.Equal(got, all) {
			t.Fatalf("%s by pages of 4: %v, want %v", what, got, all)
		}
		var union []int
		for seg := int32(0); seg < 3; seg++ {
			part := m.ids(t, what, ixPages(t, c, x, nil, true, 0, seg, 3, ""), x.projectAll)
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
	ixCheckEntries(t, e, m, phase)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(ixTable)})
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

// ixCheckEntries compares every index bucket's raw entries with the model:
// exactly the expected keys, each value empty unless the entry was
// rewritten in the old form (then the table key).
func ixCheckEntries(t *testing.T, e *Engine, m *ixModel, phase string) {
	t.Helper()
	err := e.db.View(func(tx kv.Tx) error {
		for _, x := range m.indexes {
			want := m.entries(x)
			b := tx.Bucket(indexBucketName(ixTable, x.name))
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

// ixRewriteOldForm rewrites every third entry of each index as engines
// before key-only entries wrote it: the table key as value. On a data file
// it then checkpoints, so the entries lie in the bbolt file itself as an
// older engine left them, with no overlay over them.
func ixRewriteOldForm(t *testing.T, e *Engine, m *ixModel) {
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
			b := tx.Bucket(indexBucketName(ixTable, name))
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

func ixUpdateGSIs(t *testing.T, c *dynamodb.Client, u types.GlobalSecondaryIndexUpdate, defs ...types.AttributeDefinition) {
	t.Helper()
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(ixTable), AttributeDefinitions: defs,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{u}}); err != nil {
		t.Fatal(err)
	}
}

// TestIndexReadsThroughEveryLayer: every read of every index kind
// (LSI, GSI with and without a range key, a GSI over the table's sort key)
// matches the model while key-only entries live in the overlay, the bbolt
// file, a frozen overlay over both, a replayed log after a crash, mixed with
// old-form entries in the bbolt file and tombstones over them; and the raw
// entries are exactly those the model expects. A GSI dropped and created
// again under the same name with another key type reads only its own
// entries, before and after they reach the bbolt file.
func TestIndexReadsThroughEveryLayer(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprint("inMemory=", inMemory), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			e := openEngine(t, path, inMemory)
			defer func() { e.Close() }()
			c := clientFor(e)
			ixCreateTable(t, c)
			m := &ixModel{items: map[int]*ixItem{}, indexes: []*ixIndex{&ixByL, &ixByGH, &ixByG, &ixBySK}, oldForm: map[string]bool{}}
			var ids []int
			for i := 0; i < 30; i++ {
				m.items[i] = ixNewItem(i)
				ids = append(ids, i)
			}
			ixPut(t, c, m, ids...)
			ixCheck(t, e, m, "written")
			file, _ := e.db.(*kv.File)
			if file != nil {
				if err := file.Checkpoint(); err != nil {
					t.Fatal(err)
				}
				ixCheck(t, e, m, "checkpointed")
			}
			ixRewriteOldForm(t, e, m)
			if len(m.oldForm) == 0 {
				t.Fatal("no entry rewritten in the old form")
			}
			ixCheck(t, e, m, "old-form entries")
			ixMutate(t, c, m, 0)
			ixCheck(t, e, m, "mutated over the file")
			if file != nil {
				// Freeze the overlay and hold its checkpoint so that reads
				// go through active, frozen and file.
				release, err := file.HoldCheckpoint()
				if err != nil {
					t.Fatal(err)
				}
				ixMutate(t, c, m, 1)
				ixCheck(t, e, m, "three layers")
				release()
				ixCheck(t, e, m, "frozen overlay checkpointed")
				ixMutate(t, c, m, 2)
				crashEngine(e)
				e = openEngine(t, path, false)
				c = clientFor(e)
				ixCheck(t, e, m, "replayed after a crash")
			}
			// Items in the overlay and the file, some deleted over the file:
			// the backfill below walks them merged.
			ixMutate(t, c, m, 4)
			// byG (N) dropped and made again over L (S): its old entries
			// must not show through, whether in the file or not.
			ixUpdateGSIs(t, c, types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}})
			ixUpdateGSIs(t, c, types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:  aws.String("byG"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("L"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}}, types.AttributeDefinition{AttributeName: aws.String("L"), AttributeType: types.ScalarAttributeTypeS})
			m.indexes[2] = &ixByGAgain
			m.forgetGoneOldForm()
			for k := range m.oldForm {
				if strings.HasPrefix(k, "byG/") {
					delete(m.oldForm, k) // the bucket was dropped
				}
			}
			ixCheck(t, e, m, "byG made again")
			ixMutate(t, c, m, 3)
			ixCheck(t, e, m, "byG made again, mutated")
			if file != nil {
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				e = openEngine(t, path, false)
				ixCheck(t, e, m, "reopened")
			}
		})
	}
}
