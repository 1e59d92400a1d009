package local_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"pgregory.net/rapid"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/local/dyntest"
	"github.com/adjl/adjl/local/internal/testkit"
)

type av = types.AttributeValue
type item = map[string]av

// propEngine opens an in-memory engine with one table (pk, sk and GSI gsi1 on
// gpk/gsk) shared by all checks of a property; each check works in its own
// partitions, so no table is created per check.
func propEngine(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	// Failures print the seed; keep rapid from writing into the engine's
	// testdata directory.
	testkit.SetFlagDefault(t, "rapid.nofailfile", "true")
	// Steps are a few requests each (a write costs a bbolt commit); 20 steps
	// over a four-key space reach every interesting state while keeping the
	// -race run short. An explicit -rapid.steps wins.
	testkit.SetFlagDefault(t, "rapid.steps", "20")
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	c := dyntest.NewClient("http://embedded.invalid", e.HTTPClient())
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	_, err = c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("prop"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk"), s("gpk"), s("gsk")},
		KeySchema:            ks("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), KeySchema: ks("gpk", "gsk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	return c, "prop"
}

// checkProperty runs prop as a rapid property against one propEngine table;
// each check gets its own partition, part: prefix and the check's number.
func checkProperty(t *testing.T, prefix string, prop func(t *rapid.T, c *dynamodb.Client, table, part string)) {
	c, table := propEngine(t)
	check := 0
	rapid.Check(t, func(rt *rapid.T) {
		check++
		prop(rt, c, table, fmt.Sprintf("%s%d", prefix, check))
	})
}

// modelItem is the model's view of one item: a counter, a label and a tag set.
type modelItem struct {
	n    int64
	hasN bool
	s    string
	hasS bool
	tags map[string]bool
}

func (m modelItem) attrs(pk, sk string) item {
	it := item{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}
	if m.hasS {
		it["s"] = &types.AttributeValueMemberS{Value: m.s}
	}
	if m.hasN {
		it["n"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(m.n, 10)}
	}
	if len(m.tags) > 0 {
		it["tags"] = &types.AttributeValueMemberSS{Value: slices.Sorted(maps.Keys(m.tags))}
	}
	return it
}

// cond is a condition the model can evaluate.
type cond struct {
	expr string
	v    int64
	eval func(m *modelItem) bool
}

func genCond(t *rapid.T, label string) cond {
	v := rapid.Int64Range(-3, 3).Draw(t, label+"v")
	switch rapid.IntRange(0, 4).Draw(t, label) {
	case 0:
		return cond{}
	case 1:
		return cond{expr: "attribute_not_exists(pk)", eval: func(m *modelItem) bool { return m == nil }}
	case 2:
		return cond{expr: "attribute_exists(pk)", eval: func(m *modelItem) bool { return m != nil }}
	case 3:
		return cond{expr: "n = :cv", v: v, eval: func(m *modelItem) bool { return m != nil && m.hasN && m.n == v }}
	default:
		return cond{expr: "n < :cv OR attribute_not_exists(n)", v: v, eval: func(m *modelItem) bool { return m == nil || !m.hasN || m.n < v }}
	}
}

func (c cond) apply(expr **string, vals item) {
	if c.expr == "" {
		return
	}
	*expr = aws.String(c.expr)
	if strings.Contains(c.expr, ":cv") {
		vals[":cv"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.v, 10)}
	}
}

func (c cond) holds(m *modelItem) bool { return c.expr == "" || c.eval(m) }

func nilIfEmpty(m item) item {
	if len(m) == 0 {
		return nil
	}
	return m
}

// render renders an item canonically for comparison.
func render(it item) string {
	if it == nil {
		return "<none>"
	}
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(it)) {
		fmt.Fprintf(&b, "%s=", k)
		switch v := it[k].(type) {
		case *types.AttributeValueMemberS:
			fmt.Fprintf(&b, "S:%q ", v.Value)
		case *types.AttributeValueMemberN:
			fmt.Fprintf(&b, "N:%s ", v.Value)
		case *types.AttributeValueMemberSS:
			fmt.Fprintf(&b, "SS:%q ", slices.Sorted(slices.Values(v.Value)))
		default:
			fmt.Fprintf(&b, "%T ", v)
		}
	}
	return b.String()
}

// TestPropertyWritesMatchModel: random sequences of conditional PutItem,
// UpdateItem (ADD/SET/DELETE), DeleteItem and TransactWriteItems agree with
// a simple in-memory model, including which conditional writes fail.
func TestPropertyWritesMatchModel(t *testing.T) {
	checkProperty(t, "w", func(t *rapid.T, c *dynamodb.Client, table, part string) {
		ctx := context.Background()
		ns := part + "-"
		model := map[[2]string]*modelItem{}
		keyGen := rapid.SampledFrom([][2]string{{"a", "1"}, {"a", "2"}, {"a", "3"}, {"b", "1"}})
		key := func(k [2]string) item {
			return item{"pk": &types.AttributeValueMemberS{Value: ns + k[0]}, "sk": &types.AttributeValueMemberS{Value: k[1]}}
		}
		isCCF := func(err error) bool {
			var ccf *types.ConditionalCheckFailedException
			return errors.As(err, &ccf)
		}
		expectCond := func(t *rapid.T, what string, ok bool, err error) {
			switch {
			case ok && err != nil:
				t.Fatalf("%s: want success, got %v", what, err)
			case !ok && !isCCF(err):
				t.Fatalf("%s: want ConditionalCheckFailedException, got %v", what, err)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				m := modelItem{s: rapid.StringMatching(`[a-c]{0,3}`).Draw(t, "s"), hasS: true}
				if rapid.Bool().Draw(t, "withN") {
					m.n, m.hasN = rapid.Int64Range(-5, 5).Draw(t, "n"), true
				}
				cd := genCond(t, "cond")
				vals := item{}
				in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: m.attrs(ns+k[0], k[1])}
				cd.apply(&in.ConditionExpression, vals)
				in.ExpressionAttributeValues = nilIfEmpty(vals)
				_, err := c.PutItem(ctx, in)
				ok := cd.holds(model[k])
				expectCond(t, "PutItem "+cd.expr, ok, err)
				if ok {
					mm := m
					model[k] = &mm
				}
			},
			"update": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				d := rapid.Int64Range(-3, 3).Draw(t, "d")
				s := rapid.StringMatching(`[a-c]{1,2}`).Draw(t, "s")
				tag := rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "tag")
				addTag := rapid.Bool().Draw(t, "addTag")
				cd := genCond(t, "cond")
				vals := item{":d": &types.AttributeValueMemberN{Value: strconv.FormatInt(d, 10)},
					":s": &types.AttributeValueMemberS{Value: s}, ":t": &types.AttributeValueMemberSS{Value: []string{tag}}}
				expr := "ADD n :d SET s = :s DELETE tags :t"
				if addTag {
					expr = "ADD n :d, tags :t SET s = :s"
				}
				in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(k), UpdateExpression: aws.String(expr),
					ReturnValues: types.ReturnValueAllNew}
				cd.apply(&in.ConditionExpression, vals)
				in.ExpressionAttributeValues = vals
				out, err := c.UpdateItem(ctx, in)
				old := model[k]
				ok := cd.holds(old)
				expectCond(t, "UpdateItem "+expr+" if "+cd.expr, ok, err)
				if !ok {
					return
				}
				var m modelItem
				if old != nil {
					m = *old
					m.tags = map[string]bool{}
					for t := range old.tags {
						m.tags[t] = true
					}
				}
				m.n, m.hasN = m.n+d, true
				m.s, m.hasS = s, true
				if m.tags == nil {
					m.tags = map[string]bool{}
				}
				if addTag {
					m.tags[tag] = true
				} else {
					delete(m.tags, tag)
				}
				model[k] = &m
				if got, want := render(out.Attributes), render(m.attrs(ns+k[0], k[1])); got != want {
					t.Fatalf("UpdateItem ALL_NEW = %s, model %s", got, want)
				}
			},
			"delete": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				cd := genCond(t, "cond")
				vals := item{}
				in := &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(k), ReturnValues: types.ReturnValueAllOld}
				cd.apply(&in.ConditionExpression, vals)
				in.ExpressionAttributeValues = nilIfEmpty(vals)
				out, err := c.DeleteItem(ctx, in)
				old := model[k]
				ok := cd.holds(old)
				expectCond(t, "DeleteItem if "+cd.expr, ok, err)
				if !ok {
					return
				}
				want := "<none>"
				if old != nil {
					want = render(old.attrs(ns+k[0], k[1]))
				}
				if got := render(nilIfEmpty(out.Attributes)); got != want {
					t.Fatalf("DeleteItem ALL_OLD = %s, model %s", got, want)
				}
				delete(model, k)
			},
			"transact": func(t *rapid.T) {
				keys := rapid.SliceOfNDistinct(keyGen, 1, 3, func(k [2]string) [2]string { return k }).Draw(t, "keys")
				var acts []types.TransactWriteItem
				var apply []func()
				allOK := true
				var reasons []string
				for i, k := range keys {
					cd := genCond(t, fmt.Sprintf("cond%d", i))
					old := model[k]
					ok := cd.holds(old)
					allOK = allOK && ok
					if ok {
						reasons = append(reasons, "None")
					} else {
						reasons = append(reasons, "ConditionalCheckFailed")
					}
					vals := item{}
					var ce *string
					cd.apply(&ce, vals)
					switch rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("kind%d", i)) {
					case 0:
						m := modelItem{s: "tx", hasS: true, n: int64(i), hasN: true}
						acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table),
							Item: m.attrs(ns+k[0], k[1]), ConditionExpression: ce, ExpressionAttributeValues: nilIfEmpty(vals)}})
						apply = append(apply, func() { mm := m; model[k] = &mm })
					case 1:
						vals[":one"] = &types.AttributeValueMemberN{Value: "1"}
						acts = append(acts, types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: key(k),
							UpdateExpression: aws.String("ADD n :one"), ConditionExpression: ce, ExpressionAttributeValues: vals}})
						apply = append(apply, func() {
							var m modelItem
							if old != nil {
								m = *old
							}
							m.n, m.hasN = m.n+1, true
							model[k] = &m
						})
					case 2:
						acts = append(acts, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(table), Key: key(k),
							ConditionExpression: ce, ExpressionAttributeValues: nilIfEmpty(vals)}})
						apply = append(apply, func() { delete(model, k) })
					default:
						if ce == nil {
							ce = aws.String("attribute_exists(pk) OR attribute_not_exists(pk)")
						}
						acts = append(acts, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key(k),
							ConditionExpression: ce, ExpressionAttributeValues: nilIfEmpty(vals)}})
						apply = append(apply, func() {})
					}
				}
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
				if allOK {
					if err != nil {
						t.Fatalf("TransactWriteItems: want success, got %v", err)
					}
					for _, f := range apply {
						f()
					}
					return
				}
				var tce *types.TransactionCanceledException
				if !errors.As(err, &tce) {
					t.Fatalf("TransactWriteItems: want TransactionCanceledException, got %v", err)
				}
				var got []string
				for _, r := range tce.CancellationReasons {
					got = append(got, aws.ToString(r.Code))
				}
				if fmt.Sprint(got) != fmt.Sprint(reasons) {
					t.Fatalf("CancellationReasons = %v, want %v", got, reasons)
				}
			},
			"": func(t *rapid.T) {
				// Invariant: each partition reads back (consistently, in sort
				// key order) exactly as the model says.
				for _, p := range []string{"a", "b"} {
					out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
						KeyConditionExpression:    aws.String("pk = :p"),
						ExpressionAttributeValues: item{":p": &types.AttributeValueMemberS{Value: ns + p}}})
					if err != nil {
						t.Fatalf("Query: %v", err)
					}
					var got, want []string
					for _, it := range out.Items {
						got = append(got, render(it))
					}
					for _, sk := range []string{"1", "2", "3"} {
						if m := model[[2]string{p, sk}]; m != nil {
							want = append(want, render(m.attrs(ns+p, sk)))
						}
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("partition %s = %v, model %v", p, got, want)
					}
				}
			},
		})
	})
}

// TestPropertyQueryPaging: paging any Query (table or GSI, any key
// condition, direction, filter) with any Limit returns exactly the
// single-request result, in order, and every page's LastEvaluatedKey is the
// key of its last evaluated item.
func TestPropertyQueryPaging(t *testing.T) {
	checkProperty(t, "q", func(t *rapid.T, c *dynamodb.Client, table, pk string) {
		ctx := context.Background()
		n := rapid.IntRange(0, 40).Draw(t, "items")
		sks := rapid.SliceOfNDistinct(rapid.StringMatching(`[ab]{1,4}`), n, n, func(s string) string { return s }).Draw(t, "sks")
		var reqs []types.WriteRequest
		flush := func() {
			if len(reqs) == 0 {
				return
			}
			if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
				t.Fatalf("BatchWriteItem: %v", err)
			}
			reqs = nil
		}
		for i, sk := range sks {
			it := item{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk},
				"v": &types.AttributeValueMemberN{Value: strconv.Itoa(i % 3)}}
			if i%4 != 3 { // sparse index: every fourth item has no GSI keys
				it["gpk"] = &types.AttributeValueMemberS{Value: pk}
				it["gsk"] = &types.AttributeValueMemberS{Value: rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "gsk")}
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
			if len(reqs) == 25 {
				flush()
			}
		}
		flush()

		in := dynamodb.QueryInput{TableName: aws.String(table), ExpressionAttributeValues: item{":p": &types.AttributeValueMemberS{Value: pk}}}
		index := rapid.Bool().Draw(t, "gsi")
		if index {
			in.IndexName = aws.String("gsi1")
			in.KeyConditionExpression = aws.String("gpk = :p")
		} else {
			in.ConsistentRead = aws.Bool(rapid.Bool().Draw(t, "consistent"))
			switch rapid.IntRange(0, 2).Draw(t, "keycond") {
			case 0:
				in.KeyConditionExpression = aws.String("pk = :p")
			case 1:
				in.KeyConditionExpression = aws.String("pk = :p AND begins_with(sk, :pre)")
				in.ExpressionAttributeValues[":pre"] = &types.AttributeValueMemberS{Value: rapid.StringMatching(`[ab]{0,2}`).Draw(t, "prefix")}
			default:
				in.KeyConditionExpression = aws.String("pk = :p AND sk BETWEEN :lo AND :hi")
				lo := rapid.StringMatching(`[ab]{1,3}`).Draw(t, "lo")
				hi := rapid.StringMatching(`[ab]{1,3}`).Draw(t, "hi")
				if lo > hi {
					lo, hi = hi, lo
				}
				in.ExpressionAttributeValues[":lo"] = &types.AttributeValueMemberS{Value: lo}
				in.ExpressionAttributeValues[":hi"] = &types.AttributeValueMemberS{Value: hi}
			}
		}
		if rapid.Bool().Draw(t, "filter") {
			in.FilterExpression = aws.String("v <> :zero")
			in.ExpressionAttributeValues[":zero"] = &types.AttributeValueMemberN{Value: "0"}
		}
		in.ScanIndexForward = aws.Bool(rapid.Bool().Draw(t, "forward"))

		full := in
		whole, err := c.Query(ctx, &full)
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
		if len(whole.LastEvaluatedKey) != 0 {
			t.Fatalf("unlimited Query of %d items returned LastEvaluatedKey %s", n, render(whole.LastEvaluatedKey))
		}
		// Order: by sort key (bytes), reversed when ScanIndexForward=false;
		// GSI ties on gsk come back in one consistent order.
		sortKey := "sk"
		if index {
			sortKey = "gsk"
		}
		for i := 1; i < len(whole.Items); i++ {
			a := whole.Items[i-1][sortKey].(*types.AttributeValueMemberS).Value
			b := whole.Items[i][sortKey].(*types.AttributeValueMemberS).Value
			if cmp := bytes.Compare([]byte(a), []byte(b)); (aws.ToBool(in.ScanIndexForward) && cmp > 0) || (!aws.ToBool(in.ScanIndexForward) && cmp < 0) {
				t.Fatalf("unlimited Query out of order at %d: %q then %q", i, a, b)
			}
		}

		limit := rapid.IntRange(1, 45).Draw(t, "limit")
		paged := in
		paged.Limit = aws.Int32(int32(limit))
		var got []item
		for pages := 0; ; pages++ {
			if pages > n+2 {
				t.Fatalf("paging did not terminate after %d pages", pages)
			}
			p := paged
			out, err := c.Query(ctx, &p)
			if err != nil {
				t.Fatalf("Query page %d: %v", pages, err)
			}
			if out.ScannedCount > int32(limit) {
				t.Fatalf("page %d evaluated %d items with Limit %d", pages, out.ScannedCount, limit)
			}
			got = append(got, out.Items...)
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			wantKeys := []string{"pk", "sk"}
			if index {
				wantKeys = append(wantKeys, "gpk", "gsk")
			}
			if len(out.LastEvaluatedKey) != len(wantKeys) {
				t.Fatalf("LastEvaluatedKey %s, want attributes %v", render(out.LastEvaluatedKey), wantKeys)
			}
			paged.ExclusiveStartKey = out.LastEvaluatedKey
		}
		var a, b []string
		for _, it := range whole.Items {
			a = append(a, render(it))
		}
		for _, it := range got {
			b = append(b, render(it))
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("paged (Limit %d) result differs from the single query:\n paged  %v\n single %v", limit, b, a)
		}
	})
}
