package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testLimits: "The maximum item size in DynamoDB is 400 KB, which includes
// both attribute name binary length (UTF-8 length) and attribute value
// lengths"; partition keys are 1..2048 bytes, sort keys 1..1024 bytes.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
func (s *suite) testLimits(t *testing.T) {
	t.Run("KeySizes", func(t *testing.T) {
		tb := s.table(t, composite)
		put := func(pk, sk string) error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS(pk), "sk": vS(sk)}})
			return err
		}
		// Sizes are UTF-8 bytes: 1024 × "é" is 2048 bytes.
		okHash, okRange := strings.Repeat("é", 1024), strings.Repeat("é", 512)
		must(t, put(okHash, "s"), "2048-byte partition key")
		must(t, put("p", okRange), "1024-byte sort key")
		errHash, errRange := put(okHash+"a", "s"), put("p", okRange+"a")
		if s.quirks.Has(QuirkKeySizeUnchecked) {
			s.documented(t, QuirkKeySizeUnchecked, errHash != nil && errRange != nil, "")
			return
		}
		s.wantValidation(t, errHash, "Size of hashkey has exceeded the maximum size limit of")
		s.wantValidation(t, errRange, "Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	})

	// "DynamoDB supports nested attributes up to 32 levels deep."
	t.Run("Nesting", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		nest := func(depth int) types.AttributeValue {
			v := vS("leaf")
			for range depth {
				v = vM(item{"m": v})
			}
			return v
		}
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("ok"), "d": nest(20)}})
		must(t, err, "20 levels")
		wantItem(t, "20 levels", s.get(t, tb, item{"pk": vS("ok")}), item{"pk": vS("ok"), "d": nest(20)})
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS("deep"), "d": nest(40)}})
		s.refused(t, QuirkNestingUnchecked, err, "Nesting Levels have exceeded supported limits")
	})

	t.Run("ItemSize", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		const limit = 400 * 1024
		// "pk"+"big" = 5 bytes, name "d" = 1 byte.
		exact := item{"pk": vS("big"), "d": vS(strings.Repeat("x", limit-6))}
		over := item{"pk": vS("big2"), "d": vS(strings.Repeat("x", limit-6))}
		_, errExact := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: exact})
		_, errOver := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: over})
		ok := errExact == nil && apiCode(errOver) == "ValidationException"
		s.documented(t, QuirkItemSizeBoundary, ok, "400 KB boundary: exact item err=%v, 1 byte over err=%v", errExact, errOver)
		if !s.quirks.Has(QuirkItemSizeBoundary) && errOver != nil {
			s.wantValidation(t, errOver, "Item size has exceeded the maximum allowed size")
		}
		// Growing an item past the limit with UpdateItem is refused and leaves it.
		s.put(t, tb, item{"pk": vS("grow"), "d": vS(strings.Repeat("y", limit-10000))})
		_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("grow")},
			UpdateExpression: aws.String("SET e = :e"), ExpressionAttributeValues: item{":e": vS(strings.Repeat("z", 12000))}})
		s.wantValidation(t, err, "Item size to update has exceeded the maximum allowed size")
		if got := s.get(t, tb, item{"pk": vS("grow")}); got == nil || got["e"] != nil {
			t.Errorf("item changed by refused update: has e = %v", got["e"] != nil)
		}
	})
}
