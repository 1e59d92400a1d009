package dyntest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// scanAll pages through a scan and returns the items.
func (s *suite) scanAll(t *testing.T, in dynamodb.ScanInput) []item {
	t.Helper()
	items, _ := pageAll(t, "scan", in.ExclusiveStartKey, func(start item) ([]item, item) {
		sc := in
		sc.ExclusiveStartKey = start
		out, err := s.c.Scan(s.ctx(t), &sc)
		must(t, err, "Scan")
		return out.Items, out.LastEvaluatedKey
	})
	return items
}

func fmtPtr(p *int32) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// keySet renders each item's pk/sk, sorted, to compare scans as sets.
func keySet(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = showItem(keyOf(it, "pk", "sk"))
	}
	sort.Strings(out)
	return out
}

// testScan: full scans, paging, filters and parallel segments.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html
func (s *suite) testScan(t *testing.T) {
	tb := s.table(t, composite)
	var all []item
	for p := range 6 {
		for k := range 5 {
			all = append(all, item{"pk": vS(fmt.Sprintf("p%d", p)), "sk": vS(fmt.Sprintf("s%d", k)), "k": vN(fmt.Sprint(k))})
		}
	}
	s.put(t, tb, all...)
	want := keySet(all)

	t.Run("PagedFullScan", func(t *testing.T) {
		for _, limit := range []int32{0, 1, 7, 30, 31} {
			in := dynamodb.ScanInput{TableName: aws.String(tb), ConsistentRead: aws.Bool(true)}
			if limit > 0 {
				in.Limit = aws.Int32(limit)
			}
			got := keySet(s.scanAll(t, in))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Limit %d: scan returned %d items (%v), want the %d items once each", limit, len(got), got, len(want))
			}
		}
	})

	// Limit equal to the item count stops the page at the limit, so
	// LastEvaluatedKey is returned and the next page is empty.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html#DDB-Scan-request-Limit
	t.Run("ExactLimitLEK", func(t *testing.T) {
		out, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Limit: aws.Int32(30)})
		must(t, err, "Scan Limit 30")
		if len(out.Items) != 30 {
			t.Fatalf("Scan Limit 30 returned %d items", len(out.Items))
		}
		s.documented(t, QuirkScanNoExactLimitLEK, len(out.LastEvaluatedKey) == 2, "Scan with Limit = item count: LastEvaluatedKey %s, want the last item's key", showItem(out.LastEvaluatedKey))
		if len(out.LastEvaluatedKey) > 0 {
			next, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Limit: aws.Int32(30), ExclusiveStartKey: out.LastEvaluatedKey})
			must(t, err, "Scan after exact page")
			if len(next.Items) != 0 || len(next.LastEvaluatedKey) != 0 {
				t.Errorf("page after exact limit: %d items, LEK %s", len(next.Items), showItem(next.LastEvaluatedKey))
			}
		}
	})

	t.Run("FilterAndCount", func(t *testing.T) {
		out, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb),
			FilterExpression: aws.String("k >= :two"), ExpressionAttributeValues: item{":two": vN("2")}, Select: "COUNT"})
		must(t, err, "Scan COUNT")
		// Unlike Query, a Scan filter may use key attributes.
		keyed, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), ConsistentRead: aws.Bool(true),
			FilterExpression: aws.String("pk = :p AND sk >= :s"), ExpressionAttributeValues: item{":p": vS("p1"), ":s": vS("s3")}})
		must(t, err, "Scan filtered on keys")
		if got := keySet(keyed.Items); fmt.Sprint(got) != fmt.Sprint(keySet([]item{{"pk": vS("p1"), "sk": vS("s3")}, {"pk": vS("p1"), "sk": vS("s4")}})) {
			t.Errorf("Scan filtered on keys = %v", got)
		}
		if out.Count != 18 || out.ScannedCount != 30 {
			t.Errorf("Count %d ScannedCount %d; want 18 30", out.Count, out.ScannedCount)
		}
		s.documented(t, QuirkScanCountReturnsItems, len(out.Items) == 0, "Select=COUNT returned %d items", len(out.Items))
	})

	// "Segment ... must be greater than or equal to 0, and less than the value
	// provided for TotalSegments"; the segments together return every item
	// exactly once.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.ParallelScan
	t.Run("ParallelSegments", func(t *testing.T) {
		for _, total := range []int32{1, 3, 4, 40} {
			var items []item
			for seg := range total {
				items = append(items, s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(tb),
					Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(4)})...)
			}
			if got := keySet(items); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("TotalSegments %d: union of segments has %d items, want %d once each", total, len(got), len(want))
			}
		}
	})

	t.Run("InvalidSegments", func(t *testing.T) {
		for _, c := range []struct {
			seg, total *int32
			quirk      Quirk
		}{
			{aws.Int32(3), aws.Int32(3), ""},
			{aws.Int32(0), nil, QuirkScanSegmentPairUnchecked},
			{nil, aws.Int32(2), ""},
			{aws.Int32(-1), aws.Int32(2), QuirkScanSegmentsUnchecked},
			{aws.Int32(0), aws.Int32(1000001), QuirkScanTotalSegmentsUnbounded},
		} {
			t.Run(fmt.Sprintf("Segment%v_Total%v", fmtPtr(c.seg), fmtPtr(c.total)), func(t *testing.T) {
				_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Segment: c.seg, TotalSegments: c.total})
				s.refused(t, c.quirk, err)
			})
		}
	})
}
