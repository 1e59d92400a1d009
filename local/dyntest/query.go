package dyntest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// queryFixture fills a composite table: partition "p" holds a#01..a#05 and
// b#01..b#03 (v = position, odd items flagged), partition "q" one item.
func (s *suite) queryFixture(t *testing.T) (string, []item) {
	tb := s.table(t, composite)
	var all []item
	for i, sk := range []string{"a#01", "a#02", "a#03", "a#04", "a#05", "b#01", "b#02", "b#03"} {
		it := item{"pk": vS("p"), "sk": vS(sk), "v": vN(fmt.Sprint(i)), "odd": vBool(i%2 == 1)}
		all = append(all, it)
	}
	s.put(t, tb, all...)
	s.put(t, tb, item{"pk": vS("q"), "sk": vS("a#01"), "v": vN("99"), "odd": vBool(true)})
	return tb, all
}

// testQuery covers key conditions, ordering, paging, Select, filters and
// the documented refusals.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
func (s *suite) testQuery(t *testing.T) {
	tb, all := s.queryFixture(t)
	q := func(kc string, vals item) dynamodb.QueryInput {
		return dynamodb.QueryInput{TableName: aws.String(tb), KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: vals}
	}

	// Key condition operators on the sort key: =, <, <=, >, >=, BETWEEN,
	// begins_with.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
	t.Run("KeyConditions", func(t *testing.T) {
		cases := []struct {
			kc   string
			vals item
			want string
		}{
			{"pk = :p", item{":p": vS("p")}, "a#01,a#02,a#03,a#04,a#05,b#01,b#02,b#03"},
			{"pk = :p AND sk = :s", item{":p": vS("p"), ":s": vS("a#03")}, "a#03"},
			{"pk = :p AND sk < :s", item{":p": vS("p"), ":s": vS("a#03")}, "a#01,a#02"},
			{"pk = :p AND sk <= :s", item{":p": vS("p"), ":s": vS("a#03")}, "a#01,a#02,a#03"},
			{"pk = :p AND sk > :s", item{":p": vS("p"), ":s": vS("a#05")}, "b#01,b#02,b#03"},
			{"pk = :p AND sk >= :s", item{":p": vS("p"), ":s": vS("b#03")}, "b#03"},
			{"pk = :p AND sk BETWEEN :a AND :b", item{":p": vS("p"), ":a": vS("a#04"), ":b": vS("b#01")}, "a#04,a#05,b#01"},
			{"pk = :p AND begins_with(sk, :b)", item{":p": vS("p"), ":b": vS("b#")}, "b#01,b#02,b#03"},
			{"sk = :s AND pk = :p", item{":p": vS("q"), ":s": vS("a#01")}, "a#01"},
			{"(pk = :p) AND (begins_with(sk, :b))", item{":p": vS("p"), ":b": vS("a#0")}, "a#01,a#02,a#03,a#04,a#05"},
			{"pk = :p", item{":p": vS("none")}, ""},
			{"#k = :p AND #s < :s", item{":p": vS("p"), ":s": vS("a#02")}, "a#01"},
		}
		for _, c := range cases {
			in := q(c.kc, c.vals)
			if strings.Contains(c.kc, "#") {
				in.ExpressionAttributeNames = map[string]string{"#k": "pk", "#s": "sk"}
			}
			items, _ := s.queryAll(t, in)
			if got := sortKeys(items); got != c.want {
				t.Errorf("%s %s: got %s, want %s", c.kc, showItem(c.vals), got, c.want)
			}
		}
		items, _ := s.queryAll(t, q("pk = :p", item{":p": vS("p")}))
		wantItems(t, "full items", items, all)
	})

	// ScanIndexForward=false returns the sort keys in descending order.
	t.Run("Descending", func(t *testing.T) {
		in := q("pk = :p AND begins_with(sk, :a)", item{":p": vS("p"), ":a": vS("a")})
		in.ScanIndexForward = aws.Bool(false)
		in.Limit = aws.Int32(2)
		items, leks := s.queryAll(t, in)
		if got := sortKeys(items); got != "a#05,a#04,a#03,a#02,a#01" {
			t.Errorf("descending pages = %s", got)
		}
		if len(leks) < 2 {
			t.Errorf("descending paging returned %d LastEvaluatedKeys, want at least 2", len(leks))
		}
	})

	// Limit: "If DynamoDB processes the number of items up to the limit while
	// processing the results, it stops the operation and returns the matching
	// values up to that point, and a key in LastEvaluatedKey". The key is the
	// table key of the last item evaluated.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html
	t.Run("LimitPaging", func(t *testing.T) {
		in := q("pk = :p", item{":p": vS("p")})
		in.Limit = aws.Int32(3)
		out, err := s.c.Query(s.ctx(t), &in)
		must(t, err, "Query page 1")
		if got := sortKeys(out.Items); got != "a#01,a#02,a#03" {
			t.Errorf("page 1 = %s", got)
		}
		wantItem(t, "LastEvaluatedKey page 1", out.LastEvaluatedKey, item{"pk": vS("p"), "sk": vS("a#03")})
		if out.Count != 3 || out.ScannedCount != 3 {
			t.Errorf("Count/ScannedCount = %d/%d, want 3/3", out.Count, out.ScannedCount)
		}
		items, _ := s.queryAll(t, in)
		wantItems(t, "all pages", items, all)
		// A hand-made ExclusiveStartKey of a key that does not exist works too.
		in.ExclusiveStartKey = item{"pk": vS("p"), "sk": vS("a#035")}
		in.Limit = aws.Int32(2)
		out, err = s.c.Query(s.ctx(t), &in)
		must(t, err, "Query from synthetic key")
		if got := sortKeys(out.Items); got != "a#04,a#05" {
			t.Errorf("from a#035 = %s, want a#04,a#05", got)
		}
	})

	// Exact-limit case: when the page stops at Limit, LastEvaluatedKey is
	// returned even though no items remain; the next page is empty and has
	// no LastEvaluatedKey.
	t.Run("ExactLimitLEK", func(t *testing.T) {
		in := q("pk = :p AND begins_with(sk, :a)", item{":p": vS("p"), ":a": vS("a#")})
		in.Limit = aws.Int32(5)
		out, err := s.c.Query(s.ctx(t), &in)
		must(t, err, "Query")
		if len(out.Items) != 5 {
			t.Fatalf("got %d items, want 5", len(out.Items))
		}
		s.documented(t, QuirkNoExactLimitLEK, showItem(out.LastEvaluatedKey) == showItem(item{"pk": vS("p"), "sk": vS("a#05")}),
			"LastEvaluatedKey with Limit = matches: got %s, want {pk=p sk=a#05}", showItem(out.LastEvaluatedKey))
		if len(out.LastEvaluatedKey) > 0 {
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out, err = s.c.Query(s.ctx(t), &in)
			must(t, err, "Query after exact page")
			if len(out.Items) != 0 || len(out.LastEvaluatedKey) != 0 {
				t.Errorf("page after exact limit: %d items, LEK %s; want none", len(out.Items), showItem(out.LastEvaluatedKey))
			}
		}
		// A Limit above the match count returns no LastEvaluatedKey.
		in.ExclusiveStartKey = nil
		in.Limit = aws.Int32(6)
		out, err = s.c.Query(s.ctx(t), &in)
		must(t, err, "Query Limit 6")
		if len(out.Items) != 5 || len(out.LastEvaluatedKey) != 0 {
			t.Errorf("Limit 6: %d items, LEK %s; want 5, none", len(out.Items), showItem(out.LastEvaluatedKey))
		}
	})

	// "A single Query only returns a result set that fits within the 1 MB
	// size limit": a partition of 12 × 100 KB items needs two pages even
	// without Limit, and the pages together hold every item once.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html
	t.Run("OneMegabytePage", func(t *testing.T) {
		big := s.table(t, composite)
		pad := strings.Repeat("x", 100*1024)
		for i := range 12 {
			s.put(t, big, item{"pk": vS("p"), "sk": vS(fmt.Sprintf("%02d", i)), "pad": vS(pad)})
		}
		in := dynamodb.QueryInput{TableName: aws.String(big), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: item{":p": vS("p")}, ProjectionExpression: aws.String("sk")}
		first := in
		out, err := s.c.Query(s.ctx(t), &first)
		must(t, err, "Query")
		s.documented(t, QuirkNoMegabytePage, len(out.LastEvaluatedKey) > 0 && len(out.Items) < 12 && len(out.Items) >= 9,
			"first page of 12 × 100 KB items: %d items, LastEvaluatedKey %s; want about 10 items and a LastEvaluatedKey",
			len(out.Items), showItem(out.LastEvaluatedKey))
		items, _ := s.queryAll(t, in)
		got := sValues(items, "sk")
		if join(got) != "00,01,02,03,04,05,06,07,08,09,10,11" {
			t.Errorf("pages = %v, want 00..11 once each", got)
		}
	})

	// Select=COUNT returns Count and no Items.
	t.Run("SelectCount", func(t *testing.T) {
		in := q("pk = :p", item{":p": vS("p")})
		in.Select = types.SelectCount
		out, err := s.c.Query(s.ctx(t), &in)
		must(t, err, "Query COUNT")
		if out.Count != 8 || len(out.Items) != 0 {
			t.Errorf("COUNT: Count %d, %d items; want 8, none", out.Count, len(out.Items))
		}
		// Select=SPECIFIC_ATTRIBUTES with a projection.
		in = q("pk = :p AND sk = :s", item{":p": vS("p"), ":s": vS("a#02")})
		in.ProjectionExpression = aws.String("v, sk")
		out, err = s.c.Query(s.ctx(t), &in)
		must(t, err, "Query projection")
		wantItems(t, "projected query", out.Items, []item{{"sk": vS("a#02"), "v": vN("1")}})
		// Select=ALL_ATTRIBUTES together with a projection is refused.
		// "If you use the ProjectionExpression parameter, then the value for
		// Select can only be SPECIFIC_ATTRIBUTES."
		in.Select = types.SelectAllAttributes
		_, err = s.c.Query(s.ctx(t), &in)
		s.refused(t, QuirkSelectProjectionUnchecked, err)
	})

	// Filters run after the read: Limit counts evaluated items; Count counts
	// matches and ScannedCount evaluated items.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html
	t.Run("FilterCounts", func(t *testing.T) {
		in := q("pk = :p", item{":p": vS("p"), ":t": vBool(true)})
		in.FilterExpression = aws.String("odd = :t")
		out, err := s.c.Query(s.ctx(t), &in)
		must(t, err, "filtered Query")
		if got := sortKeys(out.Items); got != "a#02,a#04,b#01,b#03" || out.Count != 4 || out.ScannedCount != 8 {
			t.Errorf("filter: items %s Count %d ScannedCount %d; want a#02,a#04,b#01,b#03 4 8", got, out.Count, out.ScannedCount)
		}
		in.Limit = aws.Int32(3)
		out, err = s.c.Query(s.ctx(t), &in)
		must(t, err, "filtered Query Limit 3")
		if got := sortKeys(out.Items); got != "a#02" || out.Count != 1 || out.ScannedCount != 3 {
			t.Errorf("filter Limit 3: items %s Count %d ScannedCount %d; want a#02 1 3", got, out.Count, out.ScannedCount)
		}
		wantItem(t, "filtered LastEvaluatedKey", out.LastEvaluatedKey, item{"pk": vS("p"), "sk": vS("a#03")})
		items, _ := s.queryAll(t, in)
		if got := sortKeys(items); got != "a#02,a#04,b#01,b#03" {
			t.Errorf("filtered pages = %s", got)
		}
	})

	// Documented refusals.
	t.Run("Invalid", func(t *testing.T) {
		bad := []struct {
			name  string
			in    dynamodb.QueryInput
			frag  string
			quirk Quirk
		}{
			{"NoPartitionKey", q("sk = :s", item{":s": vS("a")}), "Query condition missed key schema element", ""},
			{"NonKeyAttribute", q("pk = :p AND v = :v", item{":p": vS("p"), ":v": vN("1")}), "", ""},
			{"RangeOnPartitionKey", q("pk > :p", item{":p": vS("p")}), "", ""},
			{"OrInKeyCondition", q("pk = :p OR sk = :s", item{":p": vS("p"), ":s": vS("a")}), "", QuirkServerErrorOnBadInput},
			{"BeginsWithOnPartitionKey", q("begins_with(pk, :p)", item{":p": vS("p")}), "", ""},
			{"TwoSortKeyConditions", q("pk = :p AND sk > :a AND sk < :b", item{":p": vS("p"), ":a": vS("a"), ":b": vS("b")}), "", QuirkQueryValidationLax},
			{"KeyTypeMismatch", q("pk = :p", item{":p": vN("1")}), "Condition parameter type does not match schema type", QuirkQueryValidationLax},
			{"ZeroLimit", func() dynamodb.QueryInput {
				in := q("pk = :p", item{":p": vS("p")})
				in.Limit = aws.Int32(0)
				return in
			}(), "", QuirkServerErrorOnBadInput},
			{"FilterOnKey", func() dynamodb.QueryInput {
				in := q("pk = :p", item{":p": vS("p"), ":s": vS("a")})
				in.FilterExpression = aws.String("sk > :s")
				return in
			}(), "Filter Expression can only contain non-primary key attributes", QuirkQueryValidationLax},
			// ExclusiveStartKey must be a full key of the table.
			{"PartialExclusiveStartKey", func() dynamodb.QueryInput {
				in := q("pk = :p", item{":p": vS("p")})
				in.ExclusiveStartKey = item{"pk": vS("p")}
				return in
			}(), "", QuirkServerErrorOnBadInput},
			{"UnknownIndex", func() dynamodb.QueryInput {
				in := q("pk = :p", item{":p": vS("p")})
				in.IndexName = aws.String("nope")
				return in
			}(), "The table does not have the specified index", QuirkUnknownIndexNotFound},
		}
		for _, b := range bad {
			in := b.in
			t.Run(b.name, func(t *testing.T) {
				_, err := s.c.Query(s.ctx(t), &in)
				s.refused(t, b.quirk, err, b.frag)
			})
		}
	})
}
