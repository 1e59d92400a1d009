package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// DynamoDB checks a request's members against the API model before it
// looks at the table: missing members, lengths and ranges, enum values, all
// reported together as "N validation errors detected: a; b".
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html
// The strings are DynamoDB's as dynalite's validation tests, the
// nubo-db/dynamodb-conformance tier3 suites, ExtendDB's parity tests and
// moto's aws_verified tests record them. Where DynamoDB's regions word a
// message differently (the conformance suite has seen "tableName" and
// "TableName", with and without the echoed value), the tests assert what
// the regions share, and the engine uses the older, longer form.

// unchecked lets a request reach the server without the SDK's own check of
// required members, so the server's answer to a missing member is tested.
func unchecked(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		_, err := st.Initialize.Remove("OperationInputValidation")
		return err
	})
}

func (s *suite) testValidation(t *testing.T) {
	tb := s.table(t, hashOnly)
	missing := tb + "-missing"
	key := item{"pk": vS("k")}

	t.Run("RequiredParameters", func(t *testing.T) {
		_, err := s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}})
		s.refused(t, QuirkRequiredMembersUnchecked, err, "The requestItems parameter is required for BatchGetItem")
		_, err = s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}})
		s.refused(t, QuirkRequiredMembersUnchecked, err, "The requestItems parameter is required for BatchWriteItem")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{Item: key}, unchecked)
		s.refused(t, QuirkRequiredMembersUnchecked, err, "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
		_, err = s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(missing)}, unchecked)
		s.refused(t, QuirkRequiredMembersUnchecked, err, "1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	})

	// TableName is a name or an ARN of 1 to 1024 characters (API
	// reference); a name is 3 to 255 characters of [a-zA-Z0-9_.-].
	t.Run("TableNameConstraints", func(t *testing.T) {
		long := strings.Repeat("a", 256)
		for _, c := range []struct {
			name, table string
			frags       []string
		}{
			{"Empty", "", []string{"failed to satisfy constraint: Member must have length greater than or equal to 1"}},
			{"Short", "ab", []string{"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"}},
			{"Pattern", "bad table!@#", []string{"1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}},
			{"PatternAndShort", "a!", []string{"2 validation errors detected: ", "Member must satisfy regular expression pattern", "Member must have length greater than or equal to 3"}},
			{"Long", long, []string{"Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(c.table), Key: key})
				s.refused(t, QuirkTableNamesUnchecked, err, c.frags...)
			})
		}
	})

	// "several invalid enum parameters reported together before any table
	// lookup": a missing table, yet a ValidationException listing all.
	t.Run("SeveralViolations", func(t *testing.T) {
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(missing), Item: key,
			ReturnConsumedCapacity: "INVALID", ReturnItemCollectionMetrics: "INVALID", ReturnValues: "INVALID"})
		s.refused(t, "", err, "3 validation errors detected: ",
			"Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
			"Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]",
			"Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
		_, err = s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(missing), Select: "count", Limit: aws.Int32(0),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("k")}})
		s.refused(t, QuirkTableLookupFirst, err, "2 validation errors detected: ",
			"Value 'count' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
			"at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	})

	t.Run("LimitZero", func(t *testing.T) {
		_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Limit: aws.Int32(0)})
		s.refused(t, QuirkServerErrorOnBadInput, err, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		_, err = s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), Limit: aws.Int32(0),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("k")}})
		s.refused(t, QuirkServerErrorOnBadInput, err, "at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	})

	// "Value provided in ExpressionAttributeValues unused in expressions".
	t.Run("UnusedValues", func(t *testing.T) {
		const unused = "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: key,
			ConditionExpression: aws.String("attribute_not_exists(pk)"), ExpressionAttributeValues: item{":x": vS("y")}})
		s.refused(t, QuirkUnusedPlaceholdersOnWrites, err, unused)
		_, err = s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: key,
			ConditionExpression: aws.String("a = :a"), ExpressionAttributeValues: item{":a": vS("1"), ":x": vS("y")}})
		s.refused(t, QuirkUnusedPlaceholdersOnWrites, err, unused)
		_, err = s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb),
			FilterExpression: aws.String("a = :a"), ExpressionAttributeValues: item{":a": vS("1"), ":x": vS("y")}})
		s.refused(t, QuirkUnusedPlaceholdersOnReads, err, unused)
		_, err = s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: aws.String(tb), Key: key,
			ProjectionExpression: aws.String("a"), ExpressionAttributeNames: map[string]string{"#b": "b"}})
		s.refused(t, "", err, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}")
	})

	// PutItem and DeleteItem take ReturnValues NONE or ALL_OLD (ExtendDB's
	// wording parity test, recorded in us-east-1).
	t.Run("ReturnValues", func(t *testing.T) {
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: key, ReturnValues: types.ReturnValueUpdatedOld})
		s.refused(t, "", err, "ReturnValues can only be ALL_OLD or NONE")
		_, err = s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: key, ReturnValues: types.ReturnValueAllNew})
		s.refused(t, QuirkDeleteReturnValuesUnchecked, err, "ReturnValues can only be ALL_OLD or NONE")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: key, ReturnValues: "GARBAGE"})
		s.refused(t, "", err, "1 validation error detected: Value 'GARBAGE' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
	})

	// Select with a projection (moto's aws_verified test_dynamodb_select):
	// Query's messages carry "1 validation error detected: ", Scan's do not.
	t.Run("Select", func(t *testing.T) {
		q := func(sel types.Select, proj *string) error {
			_, err := s.c.Query(s.ctx(t), &dynamodb.QueryInput{TableName: aws.String(tb), Select: sel, ProjectionExpression: proj,
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("k")}})
			return err
		}
		sc := func(sel types.Select, proj *string) error {
			_, err := s.c.Scan(s.ctx(t), &dynamodb.ScanInput{TableName: aws.String(tb), Select: sel, ProjectionExpression: proj})
			return err
		}
		s.refused(t, QuirkSelectProjectionUnchecked, q("COUNT", aws.String("pk")), "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count")
		s.refused(t, QuirkSelectProjectionUnchecked, sc("COUNT", aws.String("pk")), "Cannot specify the ProjectionExpression when choosing to get only the Count")
		s.refused(t, QuirkSelectProjectionUnchecked, q("ALL_ATTRIBUTES", aws.String("pk")), "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		s.refused(t, QuirkSelectProjectionUnchecked, q("SPECIFIC_ATTRIBUTES", nil), "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		s.refused(t, QuirkSelectProjectionUnchecked, sc("SPECIFIC_ATTRIBUTES", nil), "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		s.refused(t, QuirkSelectProjectionUnchecked, q("ALL_PROJECTED_ATTRIBUTES", nil), "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
	})

	// Validation precedes the table lookup for expressions and legacy
	// parameters, not for the item size (ExtendDB's
	// test_validation_precedence.py, recorded from DynamoDB).
	t.Run("BeforeTableLookup", func(t *testing.T) {
		_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(missing), Key: key, UpdateExpression: aws.String("SET")})
		s.refused(t, QuirkTableLookupFirst, err, "Invalid UpdateExpression:")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(missing), Item: key,
			Expected: map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}}})
		s.refused(t, QuirkTableLookupFirst, err, "One or more parameter values were invalid")
		_, err = s.c.BatchGetItem(s.ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			missing: {Keys: []item{key, key}}}})
		s.refused(t, "", err, "Provided list of item keys contains duplicates")
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(missing),
			Item: item{"pk": vS("k"), "big": vS(strings.Repeat("x", 400*1024+1))}})
		if s.quirks.Has(QuirkItemSizeBeforeTableLookup) {
			var rnf *types.ResourceNotFoundException
			s.documented(t, QuirkItemSizeBeforeTableLookup, asErr(err, &rnf), "")
			s.wantValidation(t, err, "Item size has exceeded the maximum allowed size")
			return
		}
		wantTyped[*types.ResourceNotFoundException](t, err)
	})

	t.Run("Limits", s.testValidationLimits)
	t.Run("Transactions", s.testTransactionValidation)
	t.Run("Tables", s.testTableValidation)
}

// testValidationLimits: the batch and transaction size limits.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
func (s *suite) testValidationLimits(t *testing.T) {
	tb := s.table(t, hashOnly)
	var puts []types.WriteRequest
	var acts []types.TransactWriteItem
	for i := range 101 {
		k := item{"pk": vS(strings.Repeat("k", i+1))}
		puts = append(puts, putReq(k))
		acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tb), Item: k}})
	}
	_, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: puts[:26]}})
	s.refused(t, QuirkBatchWriteLimitUnchecked, err, "at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
	if !s.quirks.Has(QuirkNoTransactions) {
		_, err = s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		s.refused(t, "", err, "1 validation error detected: Value '[", "]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100")
		_, err = s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{}})
		s.refused(t, QuirkEmptyTransactionAccepted, err, "failed to satisfy constraint: Member must have length greater than or equal to 1")
		_, err = s.c.TransactGetItems(s.ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{}})
		s.refused(t, QuirkEmptyTransactionAccepted, err, "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	if n := len(s.scanAll(t, dynamodb.ScanInput{TableName: aws.String(tb)})); n != 0 && !s.quirks.Has(QuirkBatchWriteLimitUnchecked) {
		t.Errorf("refused batches wrote %d items", n)
	}
}
