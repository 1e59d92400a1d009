package dyntest

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient returns a DynamoDB client for a test endpoint: static dummy
// credentials, region us-east-1 and no retries, so every error reaches the
// assertions exactly as the server sent it. hc may be nil (default
// transport) or an in-process client such as local.Engine.HTTPClient().
func NewClient(endpoint string, hc *http.Client) *dynamodb.Client {
	opts := dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dyntest", "dyntest", ""),
		BaseEndpoint: aws.String(endpoint),
		Retryer:      aws.NopRetryer{},
	}
	if hc != nil {
		opts.HTTPClient = hc
	}
	return dynamodb.New(opts)
}

// MotoQuirks are the documented behaviours moto_server is known to break
// (recorded by running this suite against moto 5.x).
var MotoQuirks = Quirks{
	QuirkEmptyAttributeNameAccepted:   true,
	QuirkEmptyNamePlaceholderAccepted: true,
	QuirkNoIndexArn:                   true,
	QuirkTableNamesUnchecked:          true,
	QuirkKeyValidationLax:             true,
	QuirkValidationMessages:           true,
	QuirkConditionServerError:         true,
	QuirkServerErrorOnBadInput:        true,
	QuirkUnusedPlaceholdersOnReads:    true,
	QuirkEmptySetAccepted:             true,
	QuirkSetDuplicatesAccepted:        true,
	QuirkEmptyBinaryKeyAccepted:       true,
	QuirkNumbersNotNormalized:         true,
	QuirkNumberLimitsUnchecked:        true,
	QuirkItemSizeBoundary:             true,
	QuirkSelectProjectionUnchecked:    true,
	QuirkQueryValidationLax:           true,
	QuirkUnknownIndexNotFound:         true,
	QuirkScanCountReturnsItems:        true,
	QuirkScanSegmentsUnchecked:        true,
	QuirkScanTotalSegmentsUnbounded:   true,
	QuirkIndexKeyTypeUnchecked:        true,
	QuirkBatchWriteLimitUnchecked:     true,
	QuirkBatchWriteDuplicatesAccepted: true,
	QuirkBatchWritePartial:            true,
	QuirkNoIdempotencyTokens:          true,
	QuirkTransactGetIgnoresProjection: true,
	QuirkCapacityUnitsApprox:          true,
	QuirkTTLNoReenableCheck:           true,
	QuirkTTLMissingTableCode:          true,
	QuirkTagsNotOverwritten:           true,
	QuirkScanNoExactLimitLEK:          true,
	QuirkNoTransactionSizeLimit:       true,
	QuirkTransactGetLimit25:           true,
	QuirkLostUpdates:                  true,
	QuirkAttributeTypeUnchecked:       true,
	QuirkNestingUnchecked:             true,
	QuirkIndexSelectUnchecked:         true,
	QuirkPITRPeriodUnchecked:          true,
	QuirkPartiQLLiterals:              true,
	QuirkPartiQLInsertOverwrites:      true,
	QuirkPartiQLPathProjection:        true,
	QuirkPartiQLWhereLimited:          true,
	QuirkPartiQLNoOrderBy:             true,
	QuirkPartiQLNoPaging:              true,
	QuirkPartiQLIndexLimited:          true,
	QuirkPartiQLUpdateLimited:         true,
	QuirkPartiQLNoReturning:           true,
	QuirkPartiQLDeleteLimited:         true,
	QuirkPartiQLRefusalsMissing:       true,
	QuirkPartiQLNoCapacity:            true,
	QuirkPartiQLBatchLimited:          true,
	QuirkPartiQLTransactionsLimited:   true,
	// Legacy parameters, request validation, item collections.
	QuirkLegacyValidationLax:                 true,
	QuirkLegacyComparisons:                   true,
	QuirkLegacyOrIgnored:                     true,
	QuirkQueryFilterDuplicates:               true,
	QuirkDeleteItemIgnoresExpected:           true,
	QuirkAttributesToGetIgnored:              true,
	QuirkLegacyMixingUnchecked:               true,
	QuirkConditionalOperatorUnchecked:        true,
	QuirkRequiredMembersUnchecked:            true,
	QuirkTableLookupFirst:                    true,
	QuirkEmptyTransactionAccepted:            true,
	QuirkUnusedPlaceholdersOnWrites:          true,
	QuirkBatchWriteDuplicatesAcrossTables:    true,
	QuirkTransactionKeyErrorsNotCancelled:    true,
	QuirkTransactionUpdateErrorsNotCancelled: true,
	QuirkUnknownARNNotFound:                  true,
	QuirkUpdateTableNoOpsAccepted:            true,
	QuirkNoItemCollectionMetrics:             true,

	// Concurrent requests (moto_server serves each on its own thread).
	QuirkTransactionRollbackLosesWrites: true,
}

// DynaliteQuirks are dynalite 4.x's known deviations (it has no
// transactions and no TTL).
var DynaliteQuirks = Quirks{
	QuirkEmptyAttributeNameAccepted:    true,
	QuirkNoTransactions:                true,
	QuirkNoPartiQL:                     true,
	QuirkValidationMessages:            true,
	QuirkNoReturnValuesOnCCF:           true,
	QuirkDocumentEqualityUnsupported:   true,
	QuirkRemoveListIndexesSequential:   true,
	QuirkNumberLimitsUnchecked:         true,
	QuirkKeySizeUnchecked:              true,
	QuirkSelectProjectionUnchecked:     true,
	QuirkScanSegmentPairUnchecked:      true,
	QuirkScanTotalSegmentsUnbounded:    true,
	QuirkGSIScanConsistentReadAccepted: true,
	QuirkIndexKeyEmptyAccepted:         true,
	QuirkGSICreateNeedsThroughput:      true,
	QuirkNoTTL:                         true,
	QuirkCreateTableTagsIgnored:        true,
	QuirkNoIndexCapacity:               true,
	QuirkNestingUnchecked:              true,
	QuirkNoDeletionProtection:          true,
	QuirkNoContinuousBackups:           true,
	// Legacy parameters, request validation, item collections.
	QuirkLegacyComparisons:             true,
	QuirkLegacyOrFirstCondition:        true,
	QuirkExpectedOperandTypesUnchecked: true,
	QuirkUpdateActionUnchecked:         true,
	QuirkConditionalOperatorUnchecked:  true,
	QuirkDeleteReturnValuesUnchecked:   true,
	QuirkItemSizeBeforeTableLookup:     true,
	QuirkUnknownARNNotFound:            true,
	QuirkTableARNAsNameRefused:         true,
	QuirkNoItemCollectionMetrics:       true,
}
