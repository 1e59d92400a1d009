package local

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestContinuousBackupsSurviveReopen: point-in-time recovery is a table
// setting kept in the data file, like TTL and tags.
func TestContinuousBackupsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := clientFor(e)
	createGraphTable(t, c, "school")
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("school"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// The ARN names the table too.
	d, err := clientFor(e).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := clientFor(e).DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: d.Table.TableArn})
	if err != nil {
		t.Fatal(err)
	}
	p := out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(p.RecoveryPeriodInDays) != 7 {
		t.Errorf("after reopen: PITR %s, %d days; want ENABLED, 7", p.PointInTimeRecoveryStatus, aws.ToInt32(p.RecoveryPeriodInDays))
	}
}
