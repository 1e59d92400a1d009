package dyntest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTableSettings: deletion protection and point-in-time recovery, the
// table settings `adjl table apply` manages besides TTL and tags.
func (s *suite) testTableSettings(t *testing.T) {
	// "When this setting is enabled, the table cannot be deleted"; DeleteTable
	// of a protected table is a ValidationException.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
	t.Run("DeletionProtection", func(t *testing.T) {
		name := s.tableName(t)
		in := createInput(name, hashOnly)
		in.DeletionProtectionEnabled = aws.Bool(true)
		_, err := s.c.CreateTable(s.ctx(t), in)
		must(t, err, "CreateTable with deletion protection")
		s.dropLater(t, name)
		t.Cleanup(func() {
			// Runs before dropLater's delete: a failed subtest leaves no protected table.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s.c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		})
		d := s.waitActive(t, name)
		if s.quirks.Has(QuirkNoDeletionProtection) {
			_, err := s.c.DeleteTable(s.ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			s.documented(t, QuirkNoDeletionProtection, err != nil, "")
			return
		}
		unprotect := func() {
			_, err := s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
			must(t, err, "UpdateTable DeletionProtectionEnabled=false")
		}
		if !aws.ToBool(d.DeletionProtectionEnabled) {
			t.Errorf("DescribeTable DeletionProtectionEnabled = %v, want true", d.DeletionProtectionEnabled)
		}
		_, err = s.c.DeleteTable(s.ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		if apiCode(err) != "ValidationException" {
			if err == nil {
				t.Fatal("DeleteTable of a protected table succeeded")
			}
			t.Errorf("DeleteTable of a protected table: %v, want ValidationException", err)
		}
		const msg = "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
		if !s.quirks.Has(QuirkValidationMessages) && apiMessage(err) != msg {
			t.Errorf("DeleteTable of a protected table says %q, want %q", apiMessage(err), msg)
		}
		unprotect()
		d = s.waitActive(t, name)
		if aws.ToBool(d.DeletionProtectionEnabled) {
			t.Error("DeletionProtectionEnabled still true after UpdateTable set it false")
		}
		_, err = s.c.DeleteTable(s.ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err, "DeleteTable after deletion protection was removed")
	})

	// "Continuous backups are ENABLED on all tables at table creation. If
	// point in time recovery is enabled, PointInTimeRecoveryStatus will be
	// set to ENABLED"; the recovery period is 1 to 35 days (35 by default);
	// a missing table is TableNotFoundException.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContinuousBackups.html
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PointInTimeRecoverySpecification.html
	t.Run("ContinuousBackups", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		describe := func() *types.ContinuousBackupsDescription {
			out, err := s.c.DescribeContinuousBackups(s.ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(tb)})
			if s.quirks.Has(QuirkNoContinuousBackups) {
				s.documented(t, QuirkNoContinuousBackups, err == nil, "")
				t.SkipNow()
			}
			must(t, err, "DescribeContinuousBackups")
			return out.ContinuousBackupsDescription
		}
		status := func(d *types.ContinuousBackupsDescription) string {
			if d == nil || d.PointInTimeRecoveryDescription == nil {
				return "none"
			}
			return string(d.ContinuousBackupsStatus) + "/" + string(d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)
		}
		if got := status(describe()); got != "ENABLED/DISABLED" {
			t.Errorf("new table: continuous backups/PITR = %s, want ENABLED/DISABLED", got)
		}
		update := func(enabled bool, days *int32) (*types.ContinuousBackupsDescription, error) {
			out, err := s.c.UpdateContinuousBackups(s.ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(tb),
				PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(enabled), RecoveryPeriodInDays: days}})
			if err != nil {
				return nil, err
			}
			return out.ContinuousBackupsDescription, nil
		}
		on, err := update(true, nil)
		must(t, err, "UpdateContinuousBackups enable")
		if got := status(on); got != "ENABLED/ENABLED" {
			t.Errorf("UpdateContinuousBackups enable returned %s, want ENABLED/ENABLED", got)
		}
		d := describe()
		if got := status(d); got != "ENABLED/ENABLED" {
			t.Errorf("after enable: %s, want ENABLED/ENABLED", got)
		} else {
			p := d.PointInTimeRecoveryDescription
			if aws.ToInt32(p.RecoveryPeriodInDays) != 35 {
				t.Errorf("RecoveryPeriodInDays = %v, want the default 35", aws.ToInt32(p.RecoveryPeriodInDays))
			}
			if p.EarliestRestorableDateTime == nil || p.LatestRestorableDateTime == nil || p.LatestRestorableDateTime.Before(*p.EarliestRestorableDateTime) {
				t.Errorf("restorable window = %v .. %v, want both set, earliest first", p.EarliestRestorableDateTime, p.LatestRestorableDateTime)
			}
		}
		_, err = update(true, aws.Int32(36))
		s.documented(t, QuirkPITRPeriodUnchecked, apiCode(err) == "ValidationException", "RecoveryPeriodInDays 36: got %v, want ValidationException", err)
		off, err := update(false, nil)
		must(t, err, "UpdateContinuousBackups disable")
		if got := status(off); got != "ENABLED/DISABLED" {
			t.Errorf("UpdateContinuousBackups disable returned %s, want ENABLED/DISABLED", got)
		}
		if got := status(describe()); got != "ENABLED/DISABLED" {
			t.Errorf("after disable: %s, want ENABLED/DISABLED", got)
		}
		_, err = s.c.DescribeContinuousBackups(s.ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(tb + "-missing")})
		var nf *types.TableNotFoundException
		if !asErr(err, &nf) || !strings.Contains(apiMessage(err), "Table not found") {
			t.Errorf("DescribeContinuousBackups of a missing table: %v, want TableNotFoundException: Table not found", err)
		}
	})
}
