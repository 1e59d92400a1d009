package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// waitLimit caps how long CreateTable and DeleteTable wait for the table.
const waitLimit = 5 * time.Minute

// createTableInput is the table the schema asks for (tabledef holds it, pure,
// so that schema export renders the same definition).
func (s *Store) createTableInput() *dynamodb.CreateTableInput {
	return tabledef.CreateTableInput(s.schema)
}

func (s *Store) indexName() string { return tabledef.IndexName(s.schema) }

// CreateTable creates the table unless it exists. An existing table that
// matches the schema (keys, index, billing, recorded shard counts, the
// settings the schema manages) is (false, nil); one that differs is a
// *TableMismatchError naming the differences. A new table gets the schema's
// TTL and point-in-time recovery once ACTIVE; a backend without them is
// (true, *SettingsUnsupportedError). Under Explain only the CreateTable
// request is handed over.
func (s *Store) CreateTable(ctx context.Context, wait bool) (bool, error) {
	in := s.createTableInput()
	if s.explaining() {
		return false, s.explainCreateTable(in, wait)
	}
	desc, err := s.DescribeTable(ctx)
	var nf *TableNotFoundError
	switch {
	case err == nil:
		return false, s.compareExisting(ctx, desc, wait)
	case !errors.As(err, &nf):
		return false, err
	}
	attempts := 0
	if _, err := s.api.CreateTable(ctx, in, countAttempts(&attempts)); err != nil {
		if errorCode(err) != "ResourceInUseException" {
			return false, fmt.Errorf("create table %s: %w", s.schema.Table.Name, s.classify(err))
		}
		desc, err := s.DescribeTable(ctx)
		if err != nil {
			return false, err
		}
		// On a retry, a table with the schema's structure is most likely
		// the one an earlier attempt created before its answer was lost:
		// go on as its creator (settings, metadata), which is harmless if
		// someone else created the same table meanwhile. Otherwise it was
		// created concurrently by someone else: compare with theirs.
		if attempts < 2 || len(s.Diff(desc)) > 0 {
			return false, s.compareExisting(ctx, desc, wait)
		}
	}
	if wait {
		if err := s.waitActive(ctx); err != nil {
			return true, err
		}
	}
	settingsErr := s.applyCreateSettings(ctx)
	var unsupportedSettings *SettingsUnsupportedError
	if settingsErr != nil && !errors.As(settingsErr, &unsupportedSettings) {
		return true, settingsErr
	}
	if err := s.putMeta(ctx); err != nil && !conditionFailed(err) {
		var nf *TableNotFoundError
		// A table still CREATING refuses writes; the first link records the metadata.
		if wait || !errors.As(err, &nf) {
			return true, fmt.Errorf("record table metadata: %w", err)
		}
	}
	return true, settingsErr
}

// explainCreateTable hands Explain what CreateTable sends: the DescribeTable
// that finds out whether the table exists, and the requests of either case.
func (s *Store) explainCreateTable(in *dynamodb.CreateTableInput, wait bool) error {
	describe := &dynamodb.DescribeTableInput{TableName: aws.String(s.schema.Table.Name)}
	s.explain("DescribeTable", describe)
	s.explainWhen("CreateTable", in, "only if DescribeTable finds no table")
	if wait {
		s.explainWhen("DescribeTable", describe, "with --wait, repeated until the table and its index are ACTIVE")
	}
	meta, err := s.putMetaInput()
	if err != nil {
		return err
	}
	s.explainWhen("PutItem", meta, "only if the table was created: records each relation's shard count")
	get := &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(MetaKey, MetaKey), ConsistentRead: aws.Bool(true)}
	get.ReturnConsumedCapacity = s.rcc()
	s.explainWhen("GetItem", get, "only if the table exists: reads the recorded shard counts to compare them with the schema")
	s.explainCreateSettings()
	return nil
}

func (s *Store) compareExisting(ctx context.Context, desc *types.TableDescription, wait bool) error {
	diffs := s.Diff(desc)
	hint := s.mismatchHint(desc)
	if len(diffs) == 0 && wait {
		if err := s.waitActive(ctx); err != nil {
			return err
		}
	}
	if len(diffs) == 0 && desc.TableStatus == types.TableStatusActive {
		md, h, err := s.metaDifferences(ctx)
		if err != nil {
			return err
		}
		diffs, hint = md, h
	}
	if len(diffs) == 0 && s.schema.Table.Settings.Managed() {
		sd, err := s.settingDifferences(ctx, desc)
		if err != nil {
			return err
		}
		diffs, hint = sd, applyHint
	}
	if len(diffs) > 0 {
		return &TableMismatchError{Table: s.schema.Table.Name, Differences: diffs, Hint: hint}
	}
	return nil
}

// DescribeTable returns the table's description; a missing table is a
// *TableNotFoundError.
func (s *Store) DescribeTable(ctx context.Context) (*types.TableDescription, error) {
	in := &dynamodb.DescribeTableInput{TableName: aws.String(s.schema.Table.Name)}
	out, err := s.api.DescribeTable(ctx, in)
	if err != nil {
		return nil, s.classify(err)
	}
	return out.Table, nil
}

// DescribeAgainstSchema is the table as the backend describes it and how it
// differs from the schema: Diff, and the shard counts (or an unfinished
// reshard) that the metadata item records, read and never written. Under
// Explain both requests are handed over and the description is nil.
func (s *Store) DescribeAgainstSchema(ctx context.Context) (*types.TableDescription, []string, error) {
	if s.explaining() {
		s.explain("DescribeTable", &dynamodb.DescribeTableInput{TableName: aws.String(s.schema.Table.Name)})
		_, err := s.recordedShardDifferences(ctx)
		return nil, nil, err
	}
	desc, err := s.DescribeTable(ctx)
	if err != nil {
		return nil, nil, err
	}
	diffs := s.Diff(desc)
	pk, sk := tabledef.KeyNames(desc.KeySchema)
	if pk != s.layout.PK || sk != s.layout.SK {
		// The metadata item's key is the schema's: not this table's.
		return desc, diffs, nil
	}
	recorded, err := s.recordedShardDifferences(ctx)
	if err != nil {
		return desc, nil, err
	}
	for _, d := range recorded {
		diffs = append(diffs, d.detail)
	}
	return desc, diffs, nil
}

// DeleteTable deletes the table; with wait it returns once DescribeTable no
// longer finds it.
func (s *Store) DeleteTable(ctx context.Context, wait bool) error {
	in := &dynamodb.DeleteTableInput{TableName: aws.String(s.schema.Table.Name)}
	if s.explaining() {
		s.explain("DeleteTable", in)
		if wait {
			s.explainWhen("DescribeTable", &dynamodb.DescribeTableInput{TableName: in.TableName}, "with --wait, repeated until the table is gone")
		}
		return nil
	}
	attempts := 0
	if _, err := s.api.DeleteTable(ctx, in, countAttempts(&attempts)); err != nil {
		if deletionProtected(err) {
			return &TableProtectedError{Table: s.schema.Table.Name, Err: err}
		}
		err = s.classify(err)
		var nf *TableNotFoundError
		if !errors.As(err, &nf) || attempts < 2 {
			return err
		}
		// DeleteTable is not idempotent: not found on a retry means an
		// earlier attempt deleted the table and its answer was lost.
	}
	s.metaMu.Lock()
	s.metaLoaded = false
	s.metaMu.Unlock()
	if !wait {
		return nil
	}
	return s.poll(ctx, func() (bool, error) {
		_, err := s.DescribeTable(ctx)
		var nf *TableNotFoundError
		if errors.As(err, &nf) {
			return true, nil
		}
		return false, err
	})
}

// waitActive polls until the table and every global index are ACTIVE.
func (s *Store) waitActive(ctx context.Context) error {
	return s.poll(ctx, func() (bool, error) {
		d, err := s.DescribeTable(ctx)
		if err != nil {
			var nf *TableNotFoundError
			if errors.As(err, &nf) {
				return false, nil // not visible yet
			}
			return false, err
		}
		if d.TableStatus != types.TableStatusActive {
			return false, nil
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
				return false, nil
			}
		}
		return true, nil
	})
}

// poll calls done with exponential backoff (100ms doubling to 5s) until it
// reports true, fails, or waitLimit passes.
func (s *Store) poll(ctx context.Context, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	delay := 100 * time.Millisecond
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for table %s: gave up after %s: %w", s.schema.Table.Name, waitLimit, ctx.Err())
		case <-s.sleep(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// Diff lists, in words, how the described table differs from the schema
// in what CreateTable decides: keys, billing mode and the inverted index.
// Provisioned units and deletion protection are settings apply changes in
// place; they are not compared here.
func (s *Store) Diff(desc *types.TableDescription) []string {
	p := &TablePlan{}
	s.planStructure(p, desc)
	var diffs []string
	for _, c := range p.Changes {
		if !c.setting {
			diffs = append(diffs, c.String())
		}
	}
	return diffs
}

func keySchemaString(ks []types.KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	if len(parts) == 0 {
		return "no keys"
	}
	return strings.Join(parts, ", ")
}

// countAttempts makes a call count its HTTP attempts in *n: the SDK's
// retries happen inside the call, and a non-idempotent operation needs to
// know whether the answer it got is to its first attempt.
func countAttempts(n *int) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Insert(middleware.FinalizeMiddlewareFunc("adjlCountAttempts",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					*n++
					return next.HandleFinalize(ctx, in)
				}), "Retry", middleware.After)
		})
	}
}

// TableProtectedError is a DeleteTable refused because the table has
// deletion protection on.
type TableProtectedError struct {
	Table string
	Err   error
}

func (e *TableProtectedError) Error() string {
	return fmt.Sprintf("table %s has deletion protection on; nothing was deleted", e.Table)
}

func (e *TableProtectedError) Unwrap() error { return e.Err }

// deletionProtected reports DeleteTable's refusal of a protected table:
// a ValidationException whose message names the protection (DynamoDB's
// "... protected against deletion ...", moto's "... DeletionProtectionEnabled ...").
func deletionProtected(err error) bool {
	if errorCode(err) != "ValidationException" {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "protected against deletion") || strings.Contains(msg, "DeletionProtectionEnabled")
}
