package dyntest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// withLSI is composite plus a local secondary index on lsk.
var withLSI = tableSpec{
	Hash:  keyAttr{"pk", types.ScalarAttributeTypeS},
	Range: &keyAttr{"sk", types.ScalarAttributeTypeS},
	LSIs: []indexSpec{{Name: "bylsk", Hash: keyAttr{"pk", types.ScalarAttributeTypeS},
		Range: &keyAttr{"lsk", types.ScalarAttributeTypeS}, Projection: types.ProjectionTypeAll}},
}

// testItemCollections: ReturnItemCollectionMetrics SIZE on a table with
// local secondary indexes returns, per item collection written, its
// partition key value (ItemCollectionKey) and "a two-element array
// containing a lower bound and an upper bound" of its size in GB
// (SizeEstimateRangeGB); "If the table does not have any local secondary
// indexes, this information is not returned".
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html
// The API reference warns that the estimate's precision may change; a
// collection of a few small items is [0, 1] GB, as DynamoDB answers it.
func (s *suite) testItemCollections(t *testing.T) {
	tb := s.table(t, withLSI)
	plain := s.table(t, composite)
	want := func(t *testing.T, what string, m *types.ItemCollectionMetrics, pk string) {
		t.Helper()
		if m == nil {
			if !s.quirks.Has(QuirkNoItemCollectionMetrics) {
				t.Errorf("%s: no ItemCollectionMetrics", what)
			}
			return
		}
		s.documented(t, QuirkNoItemCollectionMetrics, true, "")
		wantItem(t, what+" ItemCollectionKey", m.ItemCollectionKey, item{"pk": vS(pk)})
		if r := m.SizeEstimateRangeGB; len(r) != 2 || r[0] != 0 || r[1] != 1 {
			t.Errorf("%s: SizeEstimateRangeGB = %v, want [0 1]", what, r)
		}
	}
	it := item{"pk": vS("c1"), "sk": vS("a"), "lsk": vS("x"), "v": vS("hello")}
	pout, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	must(t, err, "PutItem")
	want(t, "PutItem", pout.ItemCollectionMetrics, "c1")
	uout, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("c1"), "sk": vS("a")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": vS("bye")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	must(t, err, "UpdateItem")
	want(t, "UpdateItem", uout.ItemCollectionMetrics, "c1")
	dout, err := s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"pk": vS("c1"), "sk": vS("a")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	must(t, err, "DeleteItem")
	want(t, "DeleteItem", dout.ItemCollectionMetrics, "c1")

	// NONE, or a table without local indexes: nothing.
	pout, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsNone})
	must(t, err, "PutItem NONE")
	pout2, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(plain), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	must(t, err, "PutItem without LSI")
	for what, m := range map[string]*types.ItemCollectionMetrics{"NONE": pout.ItemCollectionMetrics, "table without LSI": pout2.ItemCollectionMetrics} {
		if m != nil {
			t.Errorf("%s: unexpected ItemCollectionMetrics %+v", what, m)
		}
	}

	// BatchWriteItem: per table, one entry per item collection touched.
	bout, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		RequestItems: map[string][]types.WriteRequest{
			tb:    {putReq(item{"pk": vS("c2"), "sk": vS("a")}), putReq(item{"pk": vS("c2"), "sk": vS("b")}), putReq(item{"pk": vS("c3"), "sk": vS("a")})},
			plain: {putReq(item{"pk": vS("c9"), "sk": vS("a")})},
		}})
	must(t, err, "BatchWriteItem")
	s.wantCollections(t, "BatchWriteItem", bout.ItemCollectionMetrics, tb, plain, want)

	if s.quirks.Has(QuirkNoTransactions) {
		return
	}
	tout, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tb), Item: item{"pk": vS("c2"), "sk": vS("c")}}},
			{Delete: &types.Delete{TableName: aws.String(tb), Key: item{"pk": vS("c3"), "sk": vS("a")}}},
			{Put: &types.Put{TableName: aws.String(plain), Item: item{"pk": vS("c4"), "sk": vS("a")}}},
		}})
	must(t, err, "TransactWriteItems")
	s.wantCollections(t, "TransactWriteItems", tout.ItemCollectionMetrics, tb, plain, want)
}

// wantCollections checks the per-table ItemCollectionMetrics of a batch or
// transaction that wrote collections c2 and c3 of lsi and some of plain.
func (s *suite) wantCollections(t *testing.T, what string, per map[string][]types.ItemCollectionMetrics, lsi, plain string,
	want func(*testing.T, string, *types.ItemCollectionMetrics, string)) {
	t.Helper()
	if len(per[plain]) != 0 {
		t.Errorf("%s: metrics for the table without LSI: %+v", what, per[plain])
	}
	got := per[lsi]
	if len(got) != 2 {
		if !s.quirks.Has(QuirkNoItemCollectionMetrics) {
			t.Errorf("%s: %d ItemCollectionMetrics for %s, want 2 (collections c2 and c3)", what, len(got), lsi)
		}
		return
	}
	keys := map[string]bool{}
	for i := range got {
		keys[sOf(got[i].ItemCollectionKey["pk"])] = true
		want(t, what, &got[i], sOf(got[i].ItemCollectionKey["pk"]))
	}
	if !keys["c2"] || !keys["c3"] {
		t.Errorf("%s: collections %v, want c2 and c3", what, keys)
	}
}
