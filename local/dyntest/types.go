package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTypes round-trips every attribute type and checks the documented
// validation of sets, empty values and key types.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
func (s *suite) testTypes(t *testing.T) {
	t.Run("RoundTripAllTypes", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		it := item{
			"pk":      vS("all"),
			"s":       vS("héllo ✓"),
			"n":       vN("-12.5"),
			"b":       vB([]byte{0, 0xff, 0x10}),
			"t":       vBool(true),
			"f":       vBool(false),
			"null":    vNull(),
			"ss":      vSS("x", "y", "z"),
			"ns":      vNS("1", "-2", "3.5"),
			"bs":      vBS([]byte{1}, []byte{2, 3}),
			"l":       vL(vS("a"), vN("1"), vL(vBool(true)), vM(item{"k": vNull()})),
			"m":       vM(item{"nested": vM(item{"deeper": vL(vSS("q"))}), "n": vN("0")}),
			"emptyL":  vL(),
			"emptyM":  vM(nil),
			"emptyS":  vS(""), // non-key empty strings are allowed
			"emptyB":  vB([]byte{}),
			"unicode": vS("日本語"),
		}
		s.put(t, tb, it)
		wantItem(t, "round trip", s.get(t, tb, item{"pk": vS("all")}), it)
	})

	// Sets must be non-empty and hold distinct values.
	t.Run("SetValidation", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		ctx := s.ctx(t)
		check := func(q Quirk, frag string, sets map[string]types.AttributeValue) {
			allRefused := true
			for name, v := range sets {
				_, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS(name), "v": v}})
				allRefused = allRefused && apiCode(err) == "ValidationException"
				if !s.quirks.Has(q) && !s.wantValidation(t, err, frag) {
					t.Logf("(%s)", name)
				}
			}
			if s.quirks.Has(q) {
				s.documented(t, q, allRefused, "")
			}
		}
		check(QuirkEmptySetAccepted, "be empty", map[string]types.AttributeValue{
			"EmptySS": vSS(), "EmptyNS": vNS(), "EmptyBS": vBS()})
		check(QuirkSetDuplicatesAccepted, "contains duplicates", map[string]types.AttributeValue{
			"DupSS": vSS("a", "a"), "DupNS": vNS("1", "1.0"), "DupBS": vBS([]byte{1}, []byte{1})})
	})

	// Key attributes may not be empty strings or binaries ("The AttributeValue
	// for a key attribute cannot contain an empty string value").
	t.Run("EmptyKey", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("")}})
		s.wantValidation(t, err, "empty string value")
		bt := s.table(t, tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeB}})
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(bt), Item: item{"pk": vB([]byte{})}})
		s.refused(t, QuirkEmptyBinaryKeyAccepted, err, "empty binary value")
	})

	// Binary and number keys work and are ordered by value (see Numbers for
	// numeric order).
	t.Run("BinaryKeys", func(t *testing.T) {
		tb := s.table(t, tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeB}, Range: &keyAttr{"sk", types.ScalarAttributeTypeB}})
		// Binary sort keys compare as unsigned bytes: 0x7f < 0x80.
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Binary
		for _, sk := range [][]byte{{0xff}, {0x80}, {0x00}, {0x7f}, {0x7f, 0x00}, {0x01}} {
			s.put(t, tb, item{"pk": vB([]byte("p")), "sk": vB(sk)})
		}
		items, _ := s.queryAll(t, dynamodb.QueryInput{TableName: aws.String(tb),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vB([]byte("p"))}})
		var got []string
		for _, it := range items {
			got = append(got, strings.TrimPrefix(show(it["sk"]), "B:"))
		}
		if g := join(got); g != "00,01,7f,7f00,80,ff" {
			t.Errorf("binary sort key order = %s, want 00,01,7f,7f00,80,ff", g)
		}
	})

	// String sort keys compare by UTF-8 bytes: "B" < "a" < "aa" < "z" < "é",
	// and U+FF71 < U+1F600 (UTF-16 code units would order them the other way).
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.String
	t.Run("StringKeyOrder", func(t *testing.T) {
		tb := s.table(t, composite)
		for _, sk := range []string{"é", "z", "😀", "aa", "a", "ｱ", "B", "a b", "\u00a0", "~"} {
			s.put(t, tb, item{"pk": vS("p"), "sk": vS(sk)})
		}
		items, _ := s.queryAll(t, dynamodb.QueryInput{TableName: aws.String(tb),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("p")}})
		if g, w := strings.Join(sValues(items, "sk"), "|"), "B|a|a b|aa|z|~|\u00a0|é|ｱ|😀"; g != w {
			t.Errorf("string sort key order = %q, want %q", g, w)
		}
	})

	// Set-typed and document-typed keys are not allowed; a key attribute with
	// the wrong scalar type is refused.
	t.Run("KeyTypeMismatch", func(t *testing.T) {
		tb := s.table(t, tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeN}})
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("1")}})
		s.wantValidation(t, err, "Type mismatch for key")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vNS("1")}})
		s.wantValidation(t, err)
	})
}
