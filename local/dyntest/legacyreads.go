package dyntest

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The legacy read parameters: KeyConditions, QueryFilter, ScanFilter and
// AttributesToGet.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.KeyConditions.html
func (s *suite) testLegacyReads(t *testing.T) {
	tb := s.table(t, tableSpec{
		Hash: keyAttr{"pk", types.ScalarAttributeTypeS}, Range: &keyAttr{"sk", types.ScalarAttributeTypeS},
		GSIs: []indexSpec{{Name: "byG", Hash: keyAttr{"g", types.ScalarAttributeTypeS}, Range: &keyAttr{"n", types.ScalarAttributeTypeN}, Projection: types.ProjectionTypeAll}},
	})
	for i, sk := range []string{"alpha", "beta", "delta", "epsilon", "gamma"} {
		s.put(t, tb, item{"pk": vS("p"), "sk": vS(sk), "n": vN(fmt.Sprint(i + 1)), "g": vS("G"), "tag": vS("t-" + sk)})
	}
	s.put(t, tb, item{"pk": vS("other"), "sk": vS("alpha"), "n": vN("9")})
	eq := func(v types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{v}}
	}
	query := func(in dynamodb.QueryInput) ([]item, error) {
		in.TableName = aws.String(tb)
		out, err := s.c.Query(s.ctx(t), &in)
		if err != nil {
			return nil, err
		}
		return out.Items, nil
	}

	t.Run("KeyConditions", func(t *testing.T) {
		for _, c := range []struct {
			name string
			sk   *types.Condition
			want string
		}{
			{"HashOnly", nil, "alpha,beta,delta,epsilon,gamma"},
			{"EQ", &types.Condition{ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS("beta")}}, "beta"},
			{"BEGINS_WITH", &types.Condition{ComparisonOperator: "BEGINS_WITH", AttributeValueList: []types.AttributeValue{vS("al")}}, "alpha"},
			{"BETWEEN", &types.Condition{ComparisonOperator: "BETWEEN", AttributeValueList: []types.AttributeValue{vS("beta"), vS("epsilon")}}, "beta,delta,epsilon"},
			{"GT", &types.Condition{ComparisonOperator: "GT", AttributeValueList: []types.AttributeValue{vS("delta")}}, "epsilon,gamma"},
			{"GE", &types.Condition{ComparisonOperator: "GE", AttributeValueList: []types.AttributeValue{vS("delta")}}, "delta,epsilon,gamma"},
			{"LT", &types.Condition{ComparisonOperator: "LT", AttributeValueList: []types.AttributeValue{vS("beta")}}, "alpha"},
			{"LE", &types.Condition{ComparisonOperator: "LE", AttributeValueList: []types.AttributeValue{vS("beta")}}, "alpha,beta"},
		} {
			t.Run(c.name, func(t *testing.T) {
				kc := map[string]types.Condition{"pk": eq(vS("p"))}
				if c.sk != nil {
					kc["sk"] = *c.sk
				}
				items, err := query(dynamodb.QueryInput{KeyConditions: kc, ConsistentRead: aws.Bool(true)})
				must(t, err, "Query with KeyConditions")
				if got := sortKeys(items); got != c.want {
					t.Errorf("sort keys = %s, want %s", got, c.want)
				}
			})
		}
		items, err := query(dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": eq(vS("p"))}, ScanIndexForward: aws.Bool(false), Limit: aws.Int32(2)})
		must(t, err, "backwards Query with KeyConditions")
		if got := sortKeys(items); got != "gamma,epsilon" {
			t.Errorf("backwards page = %s, want gamma,epsilon", got)
		}
		items, err = query(dynamodb.QueryInput{IndexName: aws.String("byG"), KeyConditions: map[string]types.Condition{
			"g": eq(vS("G")), "n": {ComparisonOperator: "LE", AttributeValueList: []types.AttributeValue{vN("2")}}}})
		must(t, err, "index Query with KeyConditions")
		if got := sortKeys(items); got != "alpha,beta" {
			t.Errorf("index Query = %s, want alpha,beta", got)
		}
	})

	// KeyConditions errors, in the order DynamoDB reports them (dynalite's
	// tests, recorded from DynamoDB).
	t.Run("KeyConditionsErrors", func(t *testing.T) {
		lax := QuirkQueryValidationLax
		for _, c := range []struct {
			name string
			kc   map[string]types.Condition
			frag string
			q    Quirk
		}{
			{"NonIndexableOperator", map[string]types.Condition{"pk": eq(vS("p")), "sk": {ComparisonOperator: "CONTAINS", AttributeValueList: []types.AttributeValue{vS("a")}}},
				"Attempted conditional constraint is not an indexable operation", lax},
			{"PartitionNotEQ", map[string]types.Condition{"pk": {ComparisonOperator: "GT", AttributeValueList: []types.AttributeValue{vS("a")}}},
				"Query key condition not supported", ""},
			{"MissingPartition", map[string]types.Condition{"sk": eq(vS("a"))},
				"Query condition missed key schema element: pk", ""},
			{"NonKeyAttribute", map[string]types.Condition{"pk": eq(vS("p")), "tag": eq(vS("a"))},
				"Query condition missed key schema element: sk", lax},
			{"WrongType", map[string]types.Condition{"pk": eq(vN("1"))},
				"One or more parameter values were invalid: Condition parameter type does not match schema type", lax},
			{"TooMany", map[string]types.Condition{"pk": eq(vS("p")), "sk": eq(vS("a")), "tag": eq(vS("b"))},
				"Conditions can be of length 1 or 2 only", lax},
			{"BeginsWithNumber", map[string]types.Condition{"pk": eq(vS("p")), "sk": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []types.AttributeValue{vN("1")}}},
				"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type", lax},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := query(dynamodb.QueryInput{KeyConditions: c.kc})
				s.refused(t, c.q, err, c.frag)
			})
		}
	})

	t.Run("QueryFilter", func(t *testing.T) {
		out, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), KeyConditions: map[string]types.Condition{"pk": eq(vS("p"))},
			QueryFilter: map[string]types.Condition{
				"n":   {ComparisonOperator: "GE", AttributeValueList: []types.AttributeValue{vN("2")}},
				"tag": {ComparisonOperator: "CONTAINS", AttributeValueList: []types.AttributeValue{vS("ta")}},
			}, ConsistentRead: aws.Bool(true)})
		must(t, err, "Query with QueryFilter")
		got := sortKeys(out.Items)
		s.documented(t, QuirkQueryFilterDuplicates, got == "beta,delta", "filtered = %s, want beta,delta", got)
		if out.ScannedCount != 5 {
			t.Errorf("ScannedCount = %d, want 5 (the filter applies after the read)", out.ScannedCount)
		}
		out, err = s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), KeyConditions: map[string]types.Condition{"pk": eq(vS("p"))},
			QueryFilter: map[string]types.Condition{
				"n":   {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vN("1")}},
				"tag": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS("t-gamma")}},
			}, ConditionalOperator: "OR", ConsistentRead: aws.Bool(true)})
		must(t, err, "Query with QueryFilter and OR")
		// alpha meets only the first entry, gamma only the second: OR keeps
		// both, whichever entry the SDK writes first.
		got = sortKeys(out.Items)
		s.documented(t, QuirkLegacyOrFirstCondition, got == "alpha,gamma", "OR filter = %s, want alpha,gamma", got)
		if s.quirks.Has(QuirkLegacyOrFirstCondition) && got != "alpha" && got != "gamma" {
			t.Errorf("OR filter = %s, want the items of one entry, alpha or gamma (quirk %s)", got, QuirkLegacyOrFirstCondition)
		}
		_, err = query(dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": eq(vS("p"))},
			QueryFilter: map[string]types.Condition{"sk": eq(vS("a"))}})
		s.refused(t, QuirkQueryValidationLax, err, "QueryFilter can only contain non-primary key attributes: Primary key attribute: sk")
	})

	// Every operator, evaluated on the read path (legacyCases).
	t.Run("ScanFilter", func(t *testing.T) {
		st := s.table(t, hashOnly)
		it := legacyItem()
		s.put(t, st, it, item{"pk": vS("bare")})
		s.legacyOutcomes(t, func(t *testing.T, c legacyCase) string {
			out, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(st), ConsistentRead: aws.Bool(true),
				ScanFilter: map[string]types.Condition{c.attr: {ComparisonOperator: c.op, AttributeValueList: c.vals}}})
			if err != nil {
				return fmt.Sprintf("Scan: %v", err)
			}
			matched := false
			for _, got := range out.Items {
				matched = matched || sOf(got["pk"]) == "x"
			}
			if matched != c.want {
				return fmt.Sprintf("ScanFilter %s %s: item matched = %v, want %v", c.attr, c.op, matched, c.want)
			}
			return ""
		})
		// ConditionalOperator OR: either entry may hold. (On a target whose
		// first entry decides, this outcome depends on the SDK's map order.)
		if !s.quirks.Has(QuirkLegacyOrFirstCondition) {
			either := s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(st), ConditionalOperator: "OR", ScanFilter: map[string]types.Condition{
				"n": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vN("5")}},
				"s": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS("nope")}}}})
			s.documented(t, QuirkLegacyOrIgnored, len(either) == 1, "ScanFilter with OR matched %d items, want 1", len(either))
		}
		// Each item meets a different entry (bare has no n, x has s), so OR
		// keeps both in every entry order, AND neither, the first entry one.
		both := s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(st), ConditionalOperator: "OR", ScanFilter: map[string]types.Condition{
			"n": {ComparisonOperator: "NULL"},
			"s": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vS("hello")}}}})
		orQuirk := QuirkLegacyOrIgnored
		if s.quirks.Has(QuirkLegacyOrFirstCondition) {
			orQuirk = QuirkLegacyOrFirstCondition
			if len(both) != 1 {
				t.Errorf("ScanFilter with OR, one entry per item, matched %d items, want 1 (quirk %s)", len(both), orQuirk)
			}
		}
		s.documented(t, orQuirk, len(both) == 2, "ScanFilter with OR, one entry per item, matched %d items, want 2", len(both))
		// IN takes more values than an expression's 100 operands.
		var many []types.AttributeValue
		for i := range 150 {
			many = append(many, vN(fmt.Sprint(i)))
		}
		items := s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(st),
			ScanFilter: map[string]types.Condition{"n": {ComparisonOperator: "IN", AttributeValueList: many}}})
		if len(items) != 1 {
			t.Errorf("IN with 150 values matched %d items, want 1", len(items))
		}
	})

	// AttributesToGet keeps exactly the named attributes, key attributes
	// included only when named.
	t.Run("AttributesToGet", func(t *testing.T) {
		key := item{"pk": vS("p"), "sk": vS("beta")}
		gout, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key,
			AttributesToGet: []string{"n", "absent"}, ConsistentRead: aws.Bool(true)})
		must(t, err, "GetItem with AttributesToGet")
		if s.quirks.Has(QuirkAttributesToGetIgnored) {
			s.documented(t, QuirkAttributesToGetIgnored, showItem(gout.Item) == showItem(item{"n": vN("2")}), "")
			return
		}
		wantItem(t, "GetItem", gout.Item, item{"n": vN("2")})
		items, err := query(dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": eq(vS("p"))},
			AttributesToGet: []string{"sk"}, Limit: aws.Int32(1)})
		must(t, err, "Query with AttributesToGet")
		wantItems(t, "Query", items, []item{{"sk": vS("alpha")}})
		sitems := s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(tb), AttributesToGet: []string{"pk", "n"},
			ScanFilter: map[string]types.Condition{"n": {ComparisonOperator: "GT", AttributeValueList: []types.AttributeValue{vN("4")}}}})
		slices.SortFunc(sitems, func(a, b item) int { return cmp.Compare(nOf(a["n"]), nOf(b["n"])) })
		wantItems(t, "Scan", sitems, []item{{"pk": vS("p"), "n": vN("5")}, {"pk": vS("other"), "n": vN("9")}})
		bout, err := s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			tb: {Keys: []item{key}, AttributesToGet: []string{"tag"}, ConsistentRead: aws.Bool(true)}}})
		must(t, err, "BatchGetItem with AttributesToGet")
		wantItems(t, "BatchGetItem", bout.Responses[tb], []item{{"tag": vS("t-beta")}})
		_, err = s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key, AttributesToGet: []string{"n", "n"}})
		s.refused(t, "", err, "One or more parameter values were invalid: Duplicate value in attribute name: n")
	})
}
