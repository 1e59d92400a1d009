package dyntest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTransactionValidation: which of an action's faults fail the request
// and which cancel the transaction. DynamoDB checks key values up front (an
// empty string is a ValidationException for the request) but finds a key
// that does not fit the table's schema while the transaction runs, so that
// action's CancellationReason is ValidationError and the others are None.
// Strings from nubo-db/dynamodb-conformance tier3 transactWriteItems and
// transactGetItems, identical in the four regions captured.
func (s *suite) testTransactionValidation(t *testing.T) {
	if s.quirks.Has(QuirkNoTransactions) {
		t.Skip("no transactions")
	}
	tb := s.table(t, hashOnly)
	s.put(t, tb, item{"pk": vS("there")})
	cancelled := func(t *testing.T, err error, reasons []string, message string) {
		t.Helper()
		problem := cancellation(err, reasons, message)
		if s.quirks.Has(QuirkValidationMessages) && strings.Contains(problem, "message =") {
			problem = ""
		}
		s.documented(t, QuirkTransactionKeyErrorsNotCancelled, problem == "", "%s", problem)
	}
	put := func(it item) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tb), Item: it}}
	}
	write := func(items ...types.TransactWriteItem) error {
		_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
	t.Run("PutWrongKeyType", func(t *testing.T) {
		err := write(put(item{"pk": vS("fresh")}), put(item{"pk": vN("5")}))
		cancelled(t, err, []string{"None", "ValidationError"}, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N")
	})
	t.Run("UpdateWrongKeyType", func(t *testing.T) {
		err := write(types.TransactWriteItem{Update: &types.Update{TableName: aws.String(tb), Key: item{"pk": vN("5")},
			UpdateExpression: aws.String("SET a = :v"), ExpressionAttributeValues: item{":v": vS("x")}}})
		cancelled(t, err, []string{"ValidationError"}, "The provided key element does not match the schema")
	})
	t.Run("DeleteKeyList", func(t *testing.T) {
		err := write(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(tb), Key: item{"pk": vL(vS("x"))}}})
		cancelled(t, err, []string{"ValidationError"}, "The provided key element does not match the schema")
	})
	t.Run("ConditionCheckWrongKeyType", func(t *testing.T) {
		err := write(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tb), Key: item{"pk": vN("5")},
			ConditionExpression: aws.String("attribute_exists(pk)")}})
		cancelled(t, err, []string{"ValidationError"}, "The provided key element does not match the schema")
	})
	t.Run("GetEmptyKey", func(t *testing.T) {
		_, err := s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(tb), Key: item{"pk": vS("there")}}},
			{Get: &types.Get{TableName: aws.String(tb), Key: item{}}}}})
		cancelled(t, err, []string{"None", "ValidationError"}, "The provided key element does not match the schema")
	})
	// A fault of an update's operands is found as the update runs too, as
	// for an UpdateItem (ValidationException there, exprerrors.go).
	t.Run("UpdateAddToString", func(t *testing.T) {
		s.put(t, tb, item{"pk": vS("named"), "n": vS("x")})
		err := write(put(item{"pk": vS("fresh")}), types.TransactWriteItem{Update: &types.Update{TableName: aws.String(tb),
			Key: item{"pk": vS("named")}, UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: item{":one": vN("1")}}})
		problem := cancellation(err, []string{"None", "ValidationError"}, "An operand in the update expression has an incorrect data type")
		s.documented(t, QuirkTransactionUpdateErrorsNotCancelled, problem == "", "%s", problem)
		if got := s.get(t, tb, item{"pk": vS("named")}); showItem(got) != showItem(item{"pk": vS("named"), "n": vS("x")}) {
			t.Errorf("refused update left %s", showItem(got))
		}
	})
	if got := s.get(t, tb, item{"pk": vS("fresh")}); got != nil {
		t.Errorf("cancelled transaction wrote %s", showItem(got))
	}
	// Faults of the request itself stay ValidationExceptions.
	t.Run("EmptyStringKey", func(t *testing.T) {
		s.wantValidation(t, write(put(item{"pk": vS("")})),
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")
	})
	t.Run("UnusedValue", func(t *testing.T) {
		err := write(put(item{"pk": vS("fresh")}), types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tb),
			Key: item{"pk": vS("there")}, ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: item{":v": vS("x")}}})
		s.refused(t, QuirkUnusedPlaceholdersOnWrites, err, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}")
	})
	t.Run("BadTableName", func(t *testing.T) {
		err := write(put(item{"pk": vS("fresh")}), types.TransactWriteItem{Update: &types.Update{TableName: aws.String("bad!name"),
			Key: item{"pk": vS("a")}, UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: item{":a": vS("x")}}})
		s.refused(t, QuirkTableNamesUnchecked, err, "1 validation error detected: Value 'bad!name' at 'transactItems.2.member.update.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	})
	// An attribute named "" (captured in ten regions, 2026-10-09).
	t.Run("EmptyAttributeName", func(t *testing.T) {
		err := write(put(item{"pk": vS("noname"), "": vS("x")}))
		s.refused(t, QuirkEmptyAttributeNameAccepted, err, "Empty attribute name")
		if !s.quirks.Has(QuirkEmptyAttributeNameAccepted) {
			if got := s.get(t, tb, item{"pk": vS("noname")}); got != nil {
				t.Errorf("refused transaction wrote %s", showItem(got))
			}
		}
	})
	if s.quirks.Has(QuirkUnusedPlaceholdersOnWrites) || s.quirks.Has(QuirkTableNamesUnchecked) {
		return // the target ran some of these transactions
	}
	if got := s.get(t, tb, item{"pk": vS("fresh")}); got != nil {
		t.Errorf("refused transaction wrote %s", showItem(got))
	}
}

// cancellation says how err departs from a TransactionCanceledException
// with these reason codes and, for ValidationError reasons, this message;
// "" when it does not.
func cancellation(err error, reasons []string, message string) string {
	var tce *types.TransactionCanceledException
	if !asErr(err, &tce) {
		return fmt.Sprintf("want TransactionCanceledException, got %v", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if join(codes) != join(reasons) {
		return fmt.Sprintf("reasons = %v, want %v", codes, reasons)
	}
	for i, r := range tce.CancellationReasons {
		if reasons[i] == "ValidationError" && aws.ToString(r.Message) != message {
			return fmt.Sprintf("reason %d message = %q, want %q", i, aws.ToString(r.Message), message)
		}
	}
	return ""
}
