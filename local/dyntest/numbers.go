package dyntest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testNumbers: "Numbers can have up to 38 digits of precision ... Positive
// range: 1E-130 to 9.9999999999999999999999999999999999999E+125 ... Leading
// and trailing zeroes are trimmed."
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number
func (s *suite) testNumbers(t *testing.T) {
	t.Run("Normalized", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		in := item{"pk": vS("n"), "a": vN("007"), "b": vN("1.500"), "c": vN("0.10"), "d": vN("1.0"), "e": vN("100"), "f": vN("-00.50")}
		want := item{"pk": vS("n"), "a": vN("7"), "b": vN("1.5"), "c": vN("0.1"), "d": vN("1"), "e": vN("100"), "f": vN("-0.5")}
		s.put(t, tb, in)
		got := s.get(t, tb, item{"pk": vS("n")})
		s.documented(t, QuirkNumbersNotNormalized, showItem(got) == showItem(want),
			"numbers not normalized:\n got  %s\n want %s", showItem(got), showItem(want))
	})

	t.Run("NumericSortKeyOrder", func(t *testing.T) {
		tb := s.table(t, tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeS}, Range: &keyAttr{"sk", types.ScalarAttributeTypeN}})
		for _, n := range []string{"100", "-2.5", "3", "0.001", "-10", "10", "0", "1000", "-0.5", "99999999999999999999999999999999999999"} {
			s.put(t, tb, item{"pk": vS("p"), "sk": vN(n)})
		}
		items, _ := s.queryAll(t, dynamodb.QueryInput{TableName: aws.String(tb),
			KeyConditionExpression:    aws.String("pk = :p AND sk BETWEEN :lo AND :hi"),
			ExpressionAttributeValues: item{":p": vS("p"), ":lo": vN("-10"), ":hi": vN("1E+3")}})
		var got []string
		for _, it := range items {
			got = append(got, nOf(it["sk"]))
		}
		if g, w := join(got), "-10,-2.5,-0.5,0,0.001,3,10,100,1000"; g != w {
			t.Errorf("numeric order = %s, want %s", g, w)
		}
	})

	t.Run("ExactArithmetic", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("a"), "big": vN("12345678901234567890123456789012345678"), "f": vN("0.1")})
		out, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("a")},
			UpdateExpression:          aws.String("SET big = big + :one, f = f + :f2 ADD half :m"),
			ExpressionAttributeValues: item{":one": vN("1"), ":f2": vN("0.2"), ":m": vN("-0.5")},
			ReturnValues:              types.ReturnValueAllNew})
		must(t, err, "UpdateItem arithmetic")
		want := item{"pk": vS("a"), "big": vN("12345678901234567890123456789012345679"), "f": vN("0.3"),
			"half": vN("-0.5")}
		s.documented(t, QuirkInexactArithmetic, showItem(out.Attributes) == showItem(want),
			"38-digit arithmetic:\n got  %s\n want %s", showItem(out.Attributes), showItem(want))
	})

	t.Run("Limits", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		putN := func(n string) error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS(n), "v": vN(n)}})
			return err
		}
		for _, ok := range []string{"12345678901234567890123456789012345678", "9.9999999999999999999999999999999999999E+125",
			"-9.9999999999999999999999999999999999999E+125", "1E-130", "-1E-130", "0"} {
			must(t, putN(ok), "in-range number "+ok)
		}
		refused := map[string]string{
			"123456789012345678901234567890123456789": "Attempting to store more than 38 significant digits in a Number",
			"1E+126":  "Number overflow",
			"-1E+126": "Number overflow",
			"1E-131":  "Number underflow",
		}
		allRefused := true
		for n, frag := range refused {
			err := putN(n)
			allRefused = allRefused && apiCode(err) == "ValidationException"
			if !s.quirks.Has(QuirkNumberLimitsUnchecked) && !s.wantValidation(t, err, frag) {
				t.Logf("(number %s)", n)
			}
		}
		for _, bad := range []string{"abc", "1.2.3", "", "--1", "1e"} {
			err := putN(bad)
			if !s.wantValidation(t, err) {
				t.Logf("(malformed number %q)", bad)
			}
		}
		// Arithmetic past the range overflows too: 9E+125 + 9E+125 = 1.8E+126.
		must(t, putN("9E+125"), "9E+125")
		_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb),
			Key: item{"pk": vS("9E+125")}, UpdateExpression: aws.String("SET v = v + v")})
		allRefused = allRefused && apiCode(err) == "ValidationException"
		if s.quirks.Has(QuirkNumberLimitsUnchecked) {
			s.documented(t, QuirkNumberLimitsUnchecked, allRefused, "")
		} else {
			s.wantValidation(t, err, "Number overflow")
		}
	})

	// A 38-digit number is a distinct key from its neighbour (no rounding).
	t.Run("PreciseKeys", func(t *testing.T) {
		tb := s.table(t, tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeN}})
		a, b := "1234567890123456789012345678901234567"+"8", "1234567890123456789012345678901234567"+"9"
		s.put(t, tb, item{"pk": vN(a), "v": vS("a")}, item{"pk": vN(b), "v": vS("b")})
		wantItem(t, "key a", s.get(t, tb, item{"pk": vN(a)}), item{"pk": vN(a), "v": vS("a")})
		wantItem(t, "key b", s.get(t, tb, item{"pk": vN(b)}), item{"pk": vN(b), "v": vS("b")})
		// 1.0 and 1 are the same number, hence the same key.
		s.put(t, tb, item{"pk": vN("1.0"), "v": vS("one")})
		got := s.get(t, tb, item{"pk": vN("1")})
		if got == nil || sOf(got["v"]) != "one" {
			t.Errorf("GetItem pk=1 after PutItem pk=1.0: %s", showItem(got))
		}
	})
}
