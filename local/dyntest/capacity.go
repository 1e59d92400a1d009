package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testCapacity: "One write request unit represents one write for an item up
// to 1 KB in size"; "one read request unit represents one strongly consistent
// read ... for an item up to 4 KB in size. Two eventually consistent read
// requests"; a read of a missing item still consumes a unit; transactional
// requests use two units per item.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
func (s *suite) testCapacity(t *testing.T) {
	tb := s.table(t, hashOnly)
	total := types.ReturnConsumedCapacityTotal
	units := func(cc *types.ConsumedCapacity) float64 {
		if cc == nil {
			return -1
		}
		if aws.ToString(cc.TableName) != tb {
			t.Errorf("ConsumedCapacity.TableName = %q, want %q", aws.ToString(cc.TableName), tb)
		}
		return aws.ToFloat64(cc.CapacityUnits)
	}
	// sized builds an item of exactly n bytes: names "pk","d" (3) + "k" + d.
	sized := func(k string, n int) item {
		return item{"pk": vS(k), "d": vS(strings.Repeat("x", n-3-len(k)))}
	}
	var got, want []float64
	check := func(u, w float64) { got, want = append(got, u), append(want, w) }

	for _, c := range []struct {
		key  string
		size int
		wcu  float64
	}{{"a", 100, 1}, {"b", 1024, 1}, {"c", 1025, 2}, {"d", 5000, 5}} {
		out, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: sized(c.key, c.size), ReturnConsumedCapacity: total})
		must(t, err, "PutItem")
		check(units(out.ConsumedCapacity), c.wcu)
	}
	for _, c := range []struct {
		key        string
		consistent bool
		rcu        float64
	}{{"a", true, 1}, {"a", false, 0.5}, {"d", true, 2}, {"d", false, 1}, {"missing", true, 1}, {"missing", false, 0.5}} {
		out, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: item{"pk": vS(c.key)},
			ConsistentRead: aws.Bool(c.consistent), ReturnConsumedCapacity: total})
		must(t, err, "GetItem")
		check(units(out.ConsumedCapacity), c.rcu)
	}
	// Query: "the sum of the sizes of all items returned, rounded up to the
	// next 4 KB": three 1500-byte items are 4500 bytes, 2 units strongly
	// consistent, 1 eventually consistent.
	qt := s.table(t, composite)
	for _, sk := range []string{"1", "2", "3"} {
		s.put(t, qt, item{"pk": vS("q"), "sk": vS(sk), "d": vS(strings.Repeat("x", 1500-6))})
	}
	for _, consistent := range []bool{true, false} {
		out, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(qt), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: item{":p": vS("q")}, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: total})
		must(t, err, "Query")
		w := 2.0
		if !consistent {
			w = 1
		}
		if out.ConsumedCapacity == nil {
			check(-1, w)
		} else {
			check(aws.ToFloat64(out.ConsumedCapacity.CapacityUnits), w)
		}
	}
	// ReturnConsumedCapacity=INDEXES splits a write into the table's and each
	// GSI's units: an indexed 100-byte item is 1 + 1.
	gt := s.table(t, withGSI)
	pout, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(gt),
		Item:                   item{"pk": vS("i"), "sk": vS("1"), "gpk": vS("g"), "gsk": vS("1")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	must(t, err, "PutItem INDEXES")
	sum, tu, gu := -1.0, -1.0, -1.0
	if cc := pout.ConsumedCapacity; cc != nil {
		sum = aws.ToFloat64(cc.CapacityUnits)
		if cc.Table != nil {
			tu = aws.ToFloat64(cc.Table.CapacityUnits)
		}
		if g, ok := cc.GlobalSecondaryIndexes["gsi1"]; ok {
			gu = aws.ToFloat64(g.CapacityUnits)
		}
	}
	if !s.quirks.Has(QuirkCapacityUnitsApprox) {
		s.documented(t, QuirkNoIndexCapacity, sum == 2 && tu == 1 && gu == 1,
			"INDEXES capacity: total %v table %v gsi1 %v, want 2, 1, 1", sum, tu, gu)
	}
	if !s.quirks.Has(QuirkNoTransactions) {
		out, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: total,
			TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(tb), Item: sized("t1", 100)}},
				{Put: &types.Put{TableName: aws.String(tb), Item: sized("t2", 100)}},
			}})
		must(t, err, "TransactWriteItems")
		if len(out.ConsumedCapacity) != 1 {
			check(-1, 4)
		} else {
			check(units(&out.ConsumedCapacity[0]), 4)
		}
	}
	ok := len(got) == len(want)
	for i := range got {
		ok = ok && got[i] == want[i]
	}
	s.documented(t, QuirkCapacityUnitsApprox, ok, "capacity units = %v, want %v", got, want)
}
