package dyntest

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTableValidation: answers about tables themselves — tags of an
// unknown ARN, UpdateTable requests that change nothing, a table named by
// its ARN — and BatchWriteItem's key checks.
func (s *suite) testTableValidation(t *testing.T) {
	// nubo-db/dynamodb-conformance (tier2 tags) records
	// AccessDeniedException from DynamoDB for an ARN naming no table. Its
	// ARN is in an account other than the caller's; a missing table of the
	// caller's own account has been reported as ResourceNotFoundException,
	// which we could not confirm. The engine, whose one account is any
	// caller's, answers AccessDeniedException.
	t.Run("ListTagsOfUnknownARN", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		d, err := s.c.DescribeTable(s.ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(tb)})
		must(t, err, "DescribeTable")
		arn := aws.ToString(d.Table.TableArn)
		_, err = s.c.ListTagsOfResource(s.ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn + "-missing")})
		ok := apiCode(err) == "AccessDeniedException"
		s.documented(t, QuirkUnknownARNNotFound, ok, "ListTagsOfResource of an unknown ARN: got %v, want AccessDeniedException", err)
		if ok && !s.quirks.Has(QuirkValidationMessages) && !strings.Contains(apiMessage(err), "is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+arn+"-missing") {
			t.Errorf("AccessDeniedException message %q", apiMessage(err))
		}
	})

	// UpdateTable refuses to set what is already set (ExtendDB's
	// ack-api-quirks DDB-TABLE-057 and dynalite, recorded from DynamoDB),
	// but accepts PAY_PER_REQUEST again.
	t.Run("UpdateTableNoOps", func(t *testing.T) {
		tb := s.tableName(t)
		in := createInput(tb, hashOnly)
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		_, err := s.c.CreateTable(s.ctx(t), in)
		must(t, err, "CreateTable provisioned")
		s.dropLater(t, tb)
		s.waitActive(t, tb)
		same := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(tb), ProvisionedThroughput: same})
		s.refused(t, QuirkUpdateTableNoOpsAccepted, err, "The provisioned throughput for the table will not change. The requested value equals the current value. "+
			"Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5.")
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(tb), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: same})
		s.refused(t, QuirkUpdateTableNoOpsAccepted, err, "The provisioned throughput for the table will not change.")
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(tb), BillingMode: types.BillingModeProvisioned})
		s.refused(t, QuirkUpdateTableNoOpsAccepted, err, "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")

		ppr := s.table(t, hashOnly)
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(ppr), ProvisionedThroughput: same})
		s.refused(t, QuirkUpdateTableNoOpsAccepted, err, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		_, err = s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(ppr), BillingMode: types.BillingModePayPerRequest})
		must(t, err, "PAY_PER_REQUEST again")
	})

	// A PutRequest whose key attribute has the wrong type "does not match
	// the schema" (nubo-db/dynamodb-conformance tier3 batchWriteItem, four
	// regions).
	t.Run("BatchWriteKeyType", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		_, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			tb: {putReq(item{"pk": vN("5")})}}})
		s.refused(t, "", err, "The provided key element does not match the schema")
	})

	// Duplicates are per table: "The same item" cannot be written twice, but
	// one key in two tables names two items.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
	t.Run("BatchWriteSameKeyTwoTables", func(t *testing.T) {
		a, b := s.table(t, hashOnly), s.table(t, hashOnly)
		_, err := s.c.BatchWriteItem(s.ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: {putReq(item{"pk": vS("same")})}, b: {putReq(item{"pk": vS("same")})}}})
		s.documented(t, QuirkBatchWriteDuplicatesAcrossTables, err == nil, "one key in two tables: %v", err)
	})

	// "You can also provide the Amazon Resource Name (ARN) of the table in
	// this parameter" (API reference, TableName of the item operations).
	t.Run("TableARNAsName", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		d, err := s.c.DescribeTable(s.ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(tb)})
		must(t, err, "DescribeTable")
		arn := d.Table.TableArn
		_, err = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: arn, Item: item{"pk": vS("a")}})
		if s.quirks.Has(QuirkTableARNAsNameRefused) {
			s.documented(t, QuirkTableARNAsNameRefused, err == nil, "")
			s.wantValidation(t, err, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
			return
		}
		must(t, err, "PutItem by ARN")
		out, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{TableName: arn, Key: item{"pk": vS("a")}, ConsistentRead: aws.Bool(true)})
		must(t, err, "GetItem by ARN")
		wantItem(t, "GetItem by ARN", out.Item, item{"pk": vS("a")})
	})
}
