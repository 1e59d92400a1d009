// Package dyntest is a reusable behaviour suite for DynamoDB-compatible
// servers, in the spirit of testing/fstest.TestFS: every implementation adjl
// talks to (the embedded engine, moto, dynalite) runs the same subtests, which
// assert the behaviour documented in the Amazon DynamoDB Developer Guide and
// API Reference. Where a reference server departs from the documentation the
// deviation is named in a Quirk, so the suite keeps asserting the deviation
// and notices when it changes.
//
// Every subtest creates its own uniquely named tables and deletes them, so a
// target can be shared with other tests and runs are independent.
//
// The entry points live in package local (conformance_test.go):
//
//	go test ./local -run TestConformanceEmbedded
//	ADJL_TEST_ENDPOINT=http://127.0.0.1:5000 go test ./local -run TestConformanceMoto
//	ADJL_TEST_DYNALITE=http://127.0.0.1:4567 go test ./local -run TestConformanceDynalite
package dyntest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Target is one DynamoDB-compatible implementation under test.
type Target struct {
	// Name labels failures ("embedded", "moto").
	Name string
	// Client talks to the implementation; it should not retry, so errors
	// surface as the server sent them.
	Client *dynamodb.Client
	// Quirks names the documented behaviours this target is known to break.
	Quirks Quirks
}

// Run runs the whole behaviour suite against target.
func Run(t *testing.T, target Target) {
	t.Helper()
	s := &suite{
		name:   target.Name,
		c:      target.Client,
		quirks: target.Quirks,
		run:    fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffff^int64(os.Getpid())),
	}
	t.Run("Tables", s.testTables)
	t.Run("Items", s.testItems)
	t.Run("Conditions", s.testConditions)
	t.Run("UpdateExpressions", s.testUpdateExpressions)
	t.Run("ExpressionErrors", s.testExpressionErrors)
	t.Run("Types", s.testTypes)
	t.Run("Numbers", s.testNumbers)
	t.Run("Limits", s.testLimits)
	t.Run("Query", s.testQuery)
	t.Run("Scan", s.testScan)
	t.Run("Indexes", s.testIndexes)
	t.Run("Batch", s.testBatch)
	t.Run("Transactions", s.testTransactions)
	t.Run("Concurrency", s.testConcurrency)
	t.Run("Capacity", s.testCapacity)
	t.Run("TTLAndTags", s.testTTLAndTags)
	t.Run("LegacyWrites", s.testLegacyWrites)
	t.Run("LegacyReads", s.testLegacyReads)
	t.Run("LegacyMixing", s.testLegacyMixing)
	t.Run("Validation", s.testValidation)
	t.Run("ItemCollections", s.testItemCollections)
	t.Run("TableSettings", s.testTableSettings)
	t.Run("PartiQL", s.testPartiQL)
}

// suite carries the target through the subtests.
type suite struct {
	name   string
	c      *dynamodb.Client
	quirks Quirks
	run    string // distinguishes table names of concurrent runs
	seq    atomic.Int64
}

// ctx bounds each call so a hung server fails one subtest instead of the run.
func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var nameClean = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// tableName returns a name unique to this run and subtest; DynamoDB allows
// 3-255 characters of [a-zA-Z0-9_.-].
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
func (s *suite) tableName(t *testing.T) string {
	base := nameClean.ReplaceAllString(t.Name(), "-")
	if len(base) > 80 {
		base = base[len(base)-80:]
	}
	return fmt.Sprintf("dyntest-%s-%d-%s", s.run, s.seq.Add(1), base)
}
