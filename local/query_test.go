package local

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// seedEdges writes a student with n enrolment edges (to courses c00..) and
// returns the client.
func seedEdges(t *testing.T, n int) *dynamodb.Client {
	t.Helper()
	c := memGraphClient(t)
	put := func(it map[string]av) {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	put(map[string]av{"PK": s("STU#a"), "SK": s("STU#a"), "GSI1PK": s("STU#a"), "GSI1SK": s("STU#a"), "name": s("Ana")})
	for i := 0; i < n; i++ {
		crs := fmt.Sprintf("CRS#c%02d", i)
		put(map[string]av{"PK": s("STU#a"), "SK": s("ENROLL#" + crs), "GSI1PK": s(crs), "GSI1SK": s("STU#a"), "i": n2(i)})
		// a second student in every course, for reverse reads
		put(map[string]av{"PK": s("STU#b"), "SK": s("ENROLL#" + crs), "GSI1PK": s(crs), "GSI1SK": s("STU#b"), "i": n2(i)})
	}
	return c
}

func n2(i int) av { return n(fmt.Sprint(i)) }

func TestQueryForwardBackwardAndBeginsWith(t *testing.T) {
	c := seedEdges(t, 5)
	q := func(fwd bool, kce string, vals map[string]av) []string {
		t.Helper()
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"),
			KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(fwd)})
		if err != nil {
			t.Fatal(err)
		}
		var sks []string
		for _, it := range out.Items {
			sks = append(sks, str(it, "SK"))
		}
		if int(out.Count) != len(out.Items) || out.ScannedCount != out.Count {
			t.Fatalf("counts %d %d %d", out.Count, out.ScannedCount, len(out.Items))
		}
		return sks
	}
	all := q(true, "PK = :p", map[string]av{":p": s("STU#a")})
	if fmt.Sprint(all) != "[ENROLL#CRS#c00 ENROLL#CRS#c01 ENROLL#CRS#c02 ENROLL#CRS#c03 ENROLL#CRS#c04 STU#a]" {
		t.Fatalf("forward: %v", all)
	}
	edges := q(false, "PK = :p AND begins_with(SK, :e)", map[string]av{":p": s("STU#a"), ":e": s("ENROLL#")})
	if fmt.Sprint(edges) != "[ENROLL#CRS#c04 ENROLL#CRS#c03 ENROLL#CRS#c02 ENROLL#CRS#c01 ENROLL#CRS#c00]" {
		t.Fatalf("backward begins_with: %v", edges)
	}
	between := q(true, "PK = :p AND SK BETWEEN :a AND :b", map[string]av{":p": s("STU#a"), ":a": s("ENROLL#CRS#c01"), ":b": s("ENROLL#CRS#c03")})
	if fmt.Sprint(between) != "[ENROLL#CRS#c01 ENROLL#CRS#c02 ENROLL#CRS#c03]" {
		t.Fatalf("between: %v", between)
	}
	lt := q(false, "PK = :p AND SK < :a", map[string]av{":p": s("STU#a"), ":a": s("ENROLL#CRS#c02")})
	if fmt.Sprint(lt) != "[ENROLL#CRS#c01 ENROLL#CRS#c00]" {
		t.Fatalf("lt backward: %v", lt)
	}
	gt := q(true, "PK = :p AND SK > :a", map[string]av{":p": s("STU#a"), ":a": s("ENROLL#CRS#c03")})
	if fmt.Sprint(gt) != "[ENROLL#CRS#c04 STU#a]" {
		t.Fatalf("gt: %v", gt)
	}
}

func TestQueryPagingExactLimit(t *testing.T) {
	c := seedEdges(t, 4)
	in := &dynamodb.QueryInput{TableName: aws.String("school"), Limit: aws.Int32(2),
		KeyConditionExpression:    aws.String("PK = :p AND begins_with(SK, :e)"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a"), ":e": s("ENROLL#")}}
	var got []string
	pages := 0
	for {
		out, err := c.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range out.Items {
			got = append(got, str(it, "SK"))
		}
		if out.LastEvaluatedKey == nil {
			if len(out.Items) != 0 {
				t.Fatalf("last page should be the empty one after an exact-limit page, got %d items", len(out.Items))
			}
			break
		}
		if len(out.LastEvaluatedKey) != 2 || str(out.LastEvaluatedKey, "PK") != "STU#a" {
			t.Fatalf("LEK shape: %#v", out.LastEvaluatedKey)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	// 4 items with Limit 2: two full pages, each with a LEK, then an empty page.
	if pages != 3 || len(got) != 4 {
		t.Fatalf("pages=%d items=%v", pages, got)
	}
}

func TestQueryGSILastEvaluatedKeyAndConsistentRead(t *testing.T) {
	c := seedEdges(t, 3)
	in := &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"), Limit: aws.Int32(1),
		KeyConditionExpression:    aws.String("GSI1PK = :c"),
		ExpressionAttributeValues: map[string]av{":c": s("CRS#c01")}}
	out, err := c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	lek := out.LastEvaluatedKey
	if len(lek) != 4 || str(lek, "PK") != "STU#a" || str(lek, "SK") != "ENROLL#CRS#c01" || str(lek, "GSI1PK") != "CRS#c01" || str(lek, "GSI1SK") != "STU#a" {
		t.Fatalf("GSI LEK: %#v", lek)
	}
	in.ExclusiveStartKey = lek
	out, err = c.Query(ctx, in)
	if err != nil || len(out.Items) != 1 || str(out.Items[0], "GSI1SK") != "STU#b" {
		t.Fatalf("page 2: %v %#v", err, out)
	}
	in.ConsistentRead = aws.Bool(true)
	_, err = c.Query(ctx, in)
	if apiCode(err) != "ValidationException" || apiMessage(err) != "Consistent reads are not supported on global secondary indexes" {
		t.Fatalf("consistent GSI: %v", err)
	}
}

func TestQueryFilterLimitCountsBeforeFilter(t *testing.T) {
	c := seedEdges(t, 6)
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), Limit: aws.Int32(4),
		KeyConditionExpression:    aws.String("PK = :p AND begins_with(SK, :e)"),
		FilterExpression:          aws.String("i >= :two"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a"), ":e": s("ENROLL#"), ":two": n("2")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.ScannedCount != 4 || out.Count != 2 || out.LastEvaluatedKey == nil {
		t.Fatalf("scanned=%d count=%d lek=%v", out.ScannedCount, out.Count, out.LastEvaluatedKey)
	}
	cnt, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), Select: types.SelectCount,
		KeyConditionExpression:    aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a")}})
	if err != nil || cnt.Count != 7 || cnt.Items != nil {
		t.Fatalf("COUNT: %v %#v", err, cnt)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"),
		KeyConditionExpression:    aws.String("PK = :p"),
		FilterExpression:          aws.String("SK = :p"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a")}})
	if apiMessage(err) != "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK" {
		t.Fatalf("filter on key: %v", err)
	}
}

func TestScanSegmentsCoverTable(t *testing.T) {
	c := seedEdges(t, 10)
	seen := map[string]int{}
	for seg := int32(0); seg < 3; seg++ {
		var esk map[string]av
		for {
			out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(3),
				Limit: aws.Int32(3), ExclusiveStartKey: esk})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[str(it, "PK")+"|"+str(it, "SK")]++
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			esk = out.LastEvaluatedKey
		}
	}
	if len(seen) != 21 {
		t.Fatalf("scan saw %d distinct items, want 21", len(seen))
	}
	for k, v := range seen {
		if v != 1 {
			t.Fatalf("%s seen %d times", k, v)
		}
	}
}

func TestQueryPaginatorSeesEverything(t *testing.T) {
	c := seedEdges(t, 25)
	for _, limit := range []int32{1, 2, 3, 7, 25, 26, 100} {
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
			Limit: aws.Int32(limit), KeyConditionExpression: aws.String("GSI1PK = :c"),
			ExpressionAttributeValues: map[string]av{":c": s("CRS#c07")}})
		var got []string
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				got = append(got, str(it, "GSI1SK"))
			}
		}
		if fmt.Sprint(got) != "[STU#a STU#b]" {
			t.Fatalf("limit %d: %v", limit, got)
		}
	}
}

func TestQueryStartKeyOutsideBoundaries(t *testing.T) {
	c := seedEdges(t, 3)
	_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"),
		KeyConditionExpression:    aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a")},
		ExclusiveStartKey:         map[string]av{"PK": s("STU#b"), "SK": s("ENROLL#CRS#c00")}})
	if apiCode(err) != "ValidationException" || apiMessage(err) != "The provided starting key is outside query boundaries based on provided conditions" {
		t.Fatalf("start key in another partition: %v", err)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"),
		KeyConditionExpression:    aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a")},
		ExclusiveStartKey:         map[string]av{"PK": s("STU#a")}})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("partial start key: %v", err)
	}
}

func TestQueryBackwardPagingOnIndex(t *testing.T) {
	c := seedEdges(t, 9)
	var got []string
	in := &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"), Limit: aws.Int32(2),
		ScanIndexForward: aws.Bool(false), KeyConditionExpression: aws.String("GSI1PK = :c AND GSI1SK <= :s"),
		ExpressionAttributeValues: map[string]av{":c": s("CRS#c04"), ":s": s("STU#b")}}
	for {
		out, err := c.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, str(it, "GSI1SK"))
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if fmt.Sprint(got) != "[STU#b STU#a]" {
		t.Fatalf("backward pages: %v", got)
	}
	// Every edge of student a, newest course first, one item per page.
	got = nil
	in = &dynamodb.QueryInput{TableName: aws.String("school"), Limit: aws.Int32(1), ScanIndexForward: aws.Bool(false),
		KeyConditionExpression:    aws.String("PK = :p AND begins_with(SK, :e)"),
		ExpressionAttributeValues: map[string]av{":p": s("STU#a"), ":e": s("ENROLL#")}}
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("paging does not end")
		}
		out, err := c.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, str(it, "SK")[len("ENROLL#CRS#"):])
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if fmt.Sprint(got) != "[c08 c07 c06 c05 c04 c03 c02 c01 c00]" {
		t.Fatalf("backward table pages: %v", got)
	}
}
