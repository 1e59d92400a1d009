package dyntest

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testIndexes covers global secondary indexes: sparse membership, the shape
// of a GSI page's LastEvaluatedKey, consistency rules, projections, type
// checks on index keys and online creation with backfill.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html
func (s *suite) testIndexes(t *testing.T) {
	gq := func(tb, gpk string) dynamodb.QueryInput {
		return dynamodb.QueryInput{TableName: aws.String(tb), IndexName: aws.String("gsi1"),
			KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: item{":g": vS(gpk)}}
	}

	// "If an item does not have both index key attributes, it is not written
	// to the index" (sparse index).
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-indexes-general-sparse-indexes.html
	t.Run("Sparse", func(t *testing.T) {
		tb := s.table(t, withGSI)
		s.put(t, tb,
			item{"pk": vS("1"), "sk": vS("a"), "gpk": vS("G"), "gsk": vS("2")},
			item{"pk": vS("2"), "sk": vS("a"), "gpk": vS("G")}, // no gsk: absent from the index
			item{"pk": vS("3"), "sk": vS("a"), "gpk": vS("G"), "gsk": vS("1")},
			item{"pk": vS("4"), "sk": vS("a"), "gsk": vS("0")}, // no gpk
		)
		items, _ := s.queryAll(t, gq(tb, "G"))
		got := sValues(items, "pk")
		if join(got) != "3,1" {
			t.Errorf("GSI query = %v, want 3,1 (by gsk, sparse items absent)", got)
		}
		out, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), IndexName: aws.String("gsi1")})
		must(t, err, "Scan GSI")
		if out.Count != 2 {
			t.Errorf("GSI scan Count %d, want 2", out.Count)
		}
		// Moving an item out of and into the index follows its updates.
		_, err = s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("1"), "sk": vS("a")},
			UpdateExpression: aws.String("REMOVE gsk")})
		must(t, err, "remove index key")
		_, err = s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("2"), "sk": vS("a")},
			UpdateExpression: aws.String("SET gsk = :k"), ExpressionAttributeValues: item{":k": vS("9")}})
		must(t, err, "add index key")
		_, err = s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"pk": vS("3"), "sk": vS("a")}})
		must(t, err, "delete indexed item")
		items, _ = s.queryAll(t, gq(tb, "G"))
		got = sValues(items, "pk")
		if join(got) != "2" {
			t.Errorf("GSI after updates = %v, want 2", got)
		}
	})

	// A GSI page's LastEvaluatedKey holds the table key and the index key;
	// index keys need not be unique, so items with equal index keys page
	// correctly.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Reading
	t.Run("LastEvaluatedKeyShape", func(t *testing.T) {
		tb := s.table(t, withGSI)
		var want []string
		for i := range 7 {
			// Three items share gsk "same".
			gsk := fmt.Sprintf("k%d", i)
			if i >= 2 && i <= 4 {
				gsk = "same"
			}
			s.put(t, tb, item{"pk": vS(fmt.Sprintf("p%d", i)), "sk": vS("x"), "gpk": vS("G"), "gsk": vS(gsk)})
			want = append(want, fmt.Sprintf("p%d", i))
		}
		in := gq(tb, "G")
		in.Limit = aws.Int32(2)
		out, err := s.c.Query(s.ctx(t), &in)
		must(t, err, "GSI query page")
		lek := out.LastEvaluatedKey
		last := out.Items[len(out.Items)-1]
		ok := showItem(lek) == showItem(keyOf(last, "pk", "sk", "gpk", "gsk"))
		s.documented(t, QuirkGSILEKMissingTableKeys, ok, "GSI LastEvaluatedKey = %s, want table + index keys of %s",
			showItem(lek), showItem(last))
		items, _ := s.queryAll(t, in)
		seen := map[string]int{}
		for _, it := range items {
			seen[sOf(it["pk"])]++
		}
		for _, p := range want {
			if seen[p] != 1 {
				t.Errorf("paging the GSI with Limit 2 returned %s %d times, want once", p, seen[p])
			}
		}
		if len(items) != len(want) {
			t.Errorf("paging returned %d items, want %d", len(items), len(want))
		}
	})

	// "Strongly consistent reads are not supported on global secondary
	// indexes. If you query a global secondary index with ConsistentRead set
	// to true, you will receive a ValidationException."
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-ConsistentRead
	t.Run("ConsistentReadRefused", func(t *testing.T) {
		tb := s.table(t, withGSI)
		in := gq(tb, "G")
		in.ConsistentRead = aws.Bool(true)
		_, err := s.c.Query(s.ctx(t), &in)
		s.wantValidation(t, err, "Consistent reads are not supported on global secondary indexes")
		_, err = s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), IndexName: aws.String("gsi1"), ConsistentRead: aws.Bool(true)})
		s.refused(t, QuirkGSIScanConsistentReadAccepted, err, "Consistent reads are not supported on global secondary indexes")
	})

	// Index key attributes must have the declared type when present.
	t.Run("IndexKeyTypeChecked", func(t *testing.T) {
		tb := s.table(t, withGSI)
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb),
			Item: item{"pk": vS("1"), "sk": vS("a"), "gpk": vN("1"), "gsk": vS("x")}})
		s.refused(t, QuirkIndexKeyTypeUnchecked, err, "Type mismatch for Index Key")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb),
			Item: item{"pk": vS("1"), "sk": vS("a"), "gpk": vS(""), "gsk": vS("x")}})
		s.refused(t, QuirkIndexKeyEmptyAccepted, err)
	})

	// Projections: KEYS_ONLY returns table and index keys; INCLUDE adds the
	// named attributes.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Projections
	t.Run("Projections", func(t *testing.T) {
		spec := composite
		spec.GSIs = []indexSpec{
			{Name: "keys", Hash: keyAttr{"gpk", "S"}, Projection: types.ProjectionTypeKeysOnly},
			{Name: "incl", Hash: keyAttr{"gpk", "S"}, Range: &keyAttr{"gsk", "S"}, Projection: types.ProjectionTypeInclude, Include: []string{"a"}},
		}
		tb := s.table(t, spec)
		s.put(t, tb, item{"pk": vS("1"), "sk": vS("s"), "gpk": vS("G"), "gsk": vS("x"), "a": vS("A"), "b": vS("B")})
		for ix, want := range map[string]item{
			"keys": {"pk": vS("1"), "sk": vS("s"), "gpk": vS("G")},
			"incl": {"pk": vS("1"), "sk": vS("s"), "gpk": vS("G"), "gsk": vS("x"), "a": vS("A")},
		} {
			out, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), IndexName: aws.String(ix),
				KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: item{":g": vS("G")}})
			must(t, err, "Query "+ix)
			wantItems(t, "projection of "+ix, out.Items, []item{want})
		}
		// "Global secondary index queries cannot fetch attributes from the
		// parent table": Select=ALL_ATTRIBUTES on a KEYS_ONLY index is refused.
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
		_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), IndexName: aws.String("keys"),
			Select: types.SelectAllAttributes, KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: item{":g": vS("G")}})
		s.refused(t, QuirkIndexSelectUnchecked, err)
	})

	// UpdateTable adds a GSI to a table with data: the index backfills
	// (CREATING, then ACTIVE) and then answers queries over the old items.
	// Deleting it removes it from the description.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html
	t.Run("OnlineCreateAndDelete", func(t *testing.T) {
		tb := s.table(t, composite)
		for i := range 5 {
			it := item{"pk": vS(fmt.Sprintf("p%d", i)), "sk": vS("x"), "gsk": vS(fmt.Sprintf("k%d", 5-i))}
			if i != 2 {
				it["gpk"] = vS("G")
			}
			s.put(t, tb, it)
		}
		_, err := s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{
			TableName: aws.String(tb),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("gpk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("gsk"), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("gsi1"), KeySchema: keySchema(keyAttr{"gpk", "S"}, &keyAttr{"gsk", "S"}),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}}},
		})
		if s.quirks.Has(QuirkGSICreateNeedsThroughput) {
			s.documented(t, QuirkGSICreateNeedsThroughput, err == nil, "")
			return
		}
		must(t, err, "UpdateTable create GSI")
		d := s.waitActive(t, tb)
		if len(d.GlobalSecondaryIndexes) != 1 || aws.ToString(d.GlobalSecondaryIndexes[0].IndexName) != "gsi1" {
			t.Fatalf("GlobalSecondaryIndexes after create = %+v", d.GlobalSecondaryIndexes)
		}
		// Backfill visible; new writes too.
		s.put(t, tb, item{"pk": vS("p9"), "sk": vS("x"), "gpk": vS("G"), "gsk": vS("k0")})
		items, _ := s.queryAll(t, gq(tb, "G"))
		got := sValues(items, "pk")
		if join(got) != "p9,p4,p3,p1,p0" {
			t.Errorf("backfilled GSI = %v, want p9,p4,p3,p1,p0", got)
		}
		// Adding the same index again is refused.
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(tb),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("gpk"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("gsi1"), KeySchema: keySchema(keyAttr{"gpk", "S"}, nil),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		if err == nil {
			t.Errorf("creating an existing index succeeded")
		}
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(tb),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("gsi1")}}}})
		must(t, err, "UpdateTable delete GSI")
		deadline := time.Now().Add(30 * time.Second)
		for {
			d := s.waitActive(t, tb)
			if len(d.GlobalSecondaryIndexes) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GSI still described 30s after delete")
			}
			time.Sleep(50 * time.Millisecond)
		}
		in := gq(tb, "G")
		_, err = s.c.Query(s.ctx(t), &in)
		s.refused(t, QuirkUnknownIndexNotFound, err, "The table does not have the specified index")
	})
}
