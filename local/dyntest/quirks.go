package dyntest

import (
	"sort"
	"testing"
)

// Quirk names one way a reference implementation departs from DynamoDB's
// documented behaviour. The embedded engine must have none.
type Quirk string

// Quirks is a set of deviations of one target.
type Quirks map[Quirk]bool

// Has reports whether q is in the set; a nil set has no quirks.
func (q Quirks) Has(k Quirk) bool { return q[k] }

// Names lists the quirks in a stable order for reports.
func (q Quirks) Names() []string {
	var out []string
	for k, on := range q {
		if on {
			out = append(out, string(k))
		}
	}
	sort.Strings(out)
	return out
}

// Known quirks. Each constant says what the documentation promises and what
// the quirky target does instead.
const (
	// QuirkNoTransactions: the target has no TransactWriteItems /
	// TransactGetItems (dynalite). The transaction subtests then only check
	// that the operations are refused.
	QuirkNoTransactions Quirk = "NoTransactions"
	// QuirkNoExactLimitLEK: with Limit equal to the number of matching items
	// DynamoDB still returns LastEvaluatedKey (the page stopped at the limit);
	// the target omits it.
	QuirkNoExactLimitLEK Quirk = "NoExactLimitLEK"
	// QuirkScanNoExactLimitLEK: as QuirkNoExactLimitLEK, for Scan.
	QuirkScanNoExactLimitLEK Quirk = "ScanNoExactLimitLEK"
	// QuirkGSILEKMissingTableKeys: a GSI page's LastEvaluatedKey must contain
	// the table's key attributes as well as the index keys; the target
	// returns only some of them.
	QuirkGSILEKMissingTableKeys Quirk = "GSILEKMissingTableKeys"
	// QuirkNumbersNotNormalized: DynamoDB trims leading and trailing zeroes
	// of numbers; the target returns the digits as sent.
	QuirkNumbersNotNormalized Quirk = "NumbersNotNormalized"
	// QuirkNumberLimitsUnchecked: numbers beyond 38 significant digits or the
	// 1E-130..1E+126 magnitude range are accepted instead of refused.
	QuirkNumberLimitsUnchecked Quirk = "NumberLimitsUnchecked"
	// QuirkInexactArithmetic: SET n = n + :v loses precision (floating point)
	// instead of exact 38-digit decimal arithmetic.
	QuirkInexactArithmetic Quirk = "InexactArithmetic"
	// QuirkNoIdempotencyTokens: ClientRequestToken is ignored, so a repeated
	// TransactWriteItems applies twice and a mismatching reuse is accepted.
	QuirkNoIdempotencyTokens Quirk = "NoIdempotencyTokens"
	// QuirkTTLNoReenableCheck: enabling TTL when it is already enabled must
	// be a ValidationException; the target accepts it.
	QuirkTTLNoReenableCheck Quirk = "TTLNoReenableCheck"
	// QuirkCapacityUnitsApprox: ConsumedCapacity is not computed from item
	// sizes as documented (1 WCU per 1 KB written, 0.5 RCU per 4 KB for an
	// eventually consistent read).
	QuirkCapacityUnitsApprox Quirk = "CapacityUnitsApprox"
	// QuirkNoIndexCapacity: writes to an indexed table consume no GSI
	// capacity (ReturnConsumedCapacity=INDEXES shows none for the index).
	QuirkNoIndexCapacity Quirk = "NoIndexCapacity"
	// QuirkLostUpdates: concurrent writes to one item can be lost (the
	// target is not atomic per item). Nondeterministic, so only logged.
	QuirkLostUpdates Quirk = "LostUpdates"
	// QuirkTransactionRollbackLosesWrites: a cancelled TransactWriteItems
	// undoes writes other requests committed meanwhile to the tables it
	// names ("transactions are atomic ... isolated from other
	// transactions"; a cancelled one "makes no changes"). moto deep-copies
	// each table a transaction names before applying its actions one by
	// one, and puts the copies back when the transaction is cancelled; a
	// copy made while another request writes the table can also fail the
	// transaction with HTTP 500 ("dictionary changed size during
	// iteration"). Nondeterministic, so only logged.
	QuirkTransactionRollbackLosesWrites Quirk = "TransactionRollbackLosesWrites"
	// QuirkItemSizeBoundary: an item of exactly 400 KB (names + values) is
	// refused or a 400 KB + 1 byte item is accepted.
	QuirkItemSizeBoundary Quirk = "ItemSizeBoundary"
	// QuirkKeySizeUnchecked: partition keys over 2048 bytes or sort keys over
	// 1024 bytes are accepted.
	QuirkKeySizeUnchecked Quirk = "KeySizeUnchecked"
	// QuirkBatchWriteDuplicatesAccepted: a BatchWriteItem naming the same key
	// twice must be refused as a whole; the target accepts it.
	QuirkBatchWriteDuplicatesAccepted Quirk = "BatchWriteDuplicatesAccepted"
	// QuirkBatchGetDuplicatesAccepted: a BatchGetItem naming the same key
	// twice must be refused; the target accepts it.
	QuirkBatchGetDuplicatesAccepted Quirk = "BatchGetDuplicatesAccepted"
	// QuirkSetListIndexPastEnd: SET l[i] with i past the end must append the
	// element at the end of the list; the target does something else.
	QuirkSetListIndexPastEnd Quirk = "SetListIndexPastEnd"
	// QuirkTableNamesUnchecked: CreateTable accepts names outside 3-255
	// characters of [a-zA-Z0-9_.-].
	QuirkTableNamesUnchecked Quirk = "TableNamesUnchecked"
	// QuirkNoIndexArn: DescribeTable's GlobalSecondaryIndexes lack IndexArn
	// ("The Amazon Resource Name (ARN) that uniquely identifies the index").
	QuirkNoIndexArn Quirk = "NoIndexArn"
	// QuirkKeyValidationLax: a GetItem/BatchGetItem key whose attribute has
	// the wrong type is accepted ("The provided key element does not match
	// the schema").
	QuirkKeyValidationLax Quirk = "KeyValidationLax"
	// QuirkConditionServerError: some valid conditions that must evaluate to
	// false (values of different types compared with <, size() of a missing
	// attribute) fail the request with an HTTP 500 instead.
	QuirkConditionServerError Quirk = "ConditionServerError"
	// QuirkServerErrorOnBadInput: some invalid requests (malformed condition,
	// undefined name placeholder, OR in a key condition, Limit 0, a partial
	// ExclusiveStartKey) fail with an
	// HTTP 500 instead of a ValidationException.
	QuirkServerErrorOnBadInput Quirk = "ServerErrorOnBadInput"
	// QuirkUnusedPlaceholdersOnReads: unused ExpressionAttributeValues are
	// accepted on Query although "every ... must be used".
	QuirkUnusedPlaceholdersOnReads Quirk = "UnusedPlaceholdersOnReads"
	// QuirkEmptySetAccepted: an empty set of some type is accepted ("sets
	// ... cannot be empty").
	QuirkEmptySetAccepted Quirk = "EmptySetAccepted"
	// QuirkSetDuplicatesAccepted: a set with duplicate members is accepted
	// ("All of the elements within a set must be unique").
	QuirkSetDuplicatesAccepted Quirk = "SetDuplicatesAccepted"
	// QuirkEmptyBinaryKeyAccepted: an empty binary key attribute is accepted.
	QuirkEmptyBinaryKeyAccepted Quirk = "EmptyBinaryKeyAccepted"
	// QuirkSelectProjectionUnchecked: Select other than SPECIFIC_ATTRIBUTES
	// together with ProjectionExpression is accepted ("Any other value for
	// Select will return an error").
	QuirkSelectProjectionUnchecked Quirk = "SelectProjectionUnchecked"
	// QuirkQueryValidationLax: invalid key conditions (two sort key
	// conditions, a key value of the wrong type; in KeyConditions a
	// non-indexable operator, a non-key attribute, more than two conditions)
	// or a filter on a key attribute are accepted or fail with HTTP 500.
	QuirkQueryValidationLax Quirk = "QueryValidationLax"
	// QuirkUnknownIndexNotFound: querying an index the table does not have is
	// a ResourceNotFoundException instead of a ValidationException.
	QuirkUnknownIndexNotFound Quirk = "UnknownIndexNotFound"
	// QuirkScanCountReturnsItems: Scan with Select=COUNT returns the items
	// ("Returns the number of matching items, rather than the matching items").
	QuirkScanCountReturnsItems Quirk = "ScanCountReturnsItems"
	// QuirkScanSegmentsUnchecked: a negative Segment is accepted.
	QuirkScanSegmentsUnchecked Quirk = "ScanSegmentsUnchecked"
	// QuirkScanTotalSegmentsUnbounded: TotalSegments above 1,000,000 is
	// accepted.
	QuirkScanTotalSegmentsUnbounded Quirk = "ScanTotalSegmentsUnbounded"
	// QuirkIndexKeyTypeUnchecked: an item whose GSI key attribute has the
	// wrong type is accepted instead of refused.
	QuirkIndexKeyTypeUnchecked Quirk = "IndexKeyTypeUnchecked"
	// QuirkIndexKeyEmptyAccepted: an item whose GSI key attribute is an
	// empty string is accepted ("key attributes ... cannot be empty").
	QuirkIndexKeyEmptyAccepted Quirk = "IndexKeyEmptyAccepted"
	// QuirkIndexSelectUnchecked: Select=ALL_ATTRIBUTES on a GSI that does
	// not project all attributes is accepted.
	QuirkIndexSelectUnchecked Quirk = "IndexSelectUnchecked"
	// QuirkAttributeTypeUnchecked: attribute_type with an unknown type name
	// evaluates to false instead of being a ValidationException.
	QuirkAttributeTypeUnchecked Quirk = "AttributeTypeUnchecked"
	// QuirkEmptyAttributeNameAccepted: an item with an attribute named ""
	// is written by PutItem, BatchWriteItem or a TransactWriteItems Put
	// ("Empty attribute name").
	QuirkEmptyAttributeNameAccepted Quirk = "EmptyAttributeNameAccepted"
	// QuirkEmptyNamePlaceholderAccepted: an ExpressionAttributeNames entry
	// that stands for "" is accepted, and an update writes an attribute
	// named "" ("ExpressionAttributeNames contains invalid value: Empty
	// attribute name for key #n").
	QuirkEmptyNamePlaceholderAccepted Quirk = "EmptyNamePlaceholderAccepted"
	// QuirkNestingUnchecked: documents nested deeper than 32 levels are
	// accepted.
	QuirkNestingUnchecked Quirk = "NestingUnchecked"
	// QuirkBatchWriteLimitUnchecked: more than 25 requests in one
	// BatchWriteItem are accepted.
	QuirkBatchWriteLimitUnchecked Quirk = "BatchWriteLimitUnchecked"
	// QuirkBatchWritePartial: a BatchWriteItem with an invalid request writes
	// the requests before it; DynamoDB rejects the entire batch.
	QuirkBatchWritePartial Quirk = "BatchWritePartial"
	// QuirkTransactGetIgnoresProjection: TransactGetItems ignores a Get's
	// ProjectionExpression.
	QuirkTransactGetIgnoresProjection Quirk = "TransactGetIgnoresProjection"
	// QuirkTTLMissingTableCode: DescribeTimeToLive of a missing table returns
	// the code "ResourceNotFound" instead of ResourceNotFoundException.
	QuirkTTLMissingTableCode Quirk = "TTLMissingTableCode"
	// QuirkTagsNotOverwritten: tagging with an existing key adds a second tag
	// instead of overwriting the value.
	QuirkTagsNotOverwritten Quirk = "TagsNotOverwritten"
	// QuirkNoMegabytePage: Query/Scan pages are not cut at 1 MB of data.
	QuirkNoMegabytePage Quirk = "NoMegabytePage"
	// QuirkNoTransactionSizeLimit: a TransactWriteItems over 4 MB of items
	// is accepted ("The aggregate size of the items in the transaction
	// cannot exceed 4 MB").
	QuirkNoTransactionSizeLimit Quirk = "NoTransactionSizeLimit"
	// QuirkNoReturnValuesOnCCF: ReturnValuesOnConditionCheckFailure=ALL_OLD
	// does not put the item into ConditionalCheckFailedException.
	QuirkNoReturnValuesOnCCF Quirk = "NoReturnValuesOnConditionCheckFailure"
	// QuirkDocumentEqualityUnsupported: = between maps or lists is false even
	// for equal documents.
	QuirkDocumentEqualityUnsupported Quirk = "DocumentEqualityUnsupported"
	// QuirkRemoveListIndexesSequential: REMOVE l[0], l[2] removes the
	// elements one after the other (the second index sees the shifted list)
	// instead of both indexes naming elements of the original list.
	QuirkRemoveListIndexesSequential Quirk = "RemoveListIndexesSequential"
	// QuirkScanSegmentPairUnchecked: Segment without TotalSegments is
	// accepted.
	QuirkScanSegmentPairUnchecked Quirk = "ScanSegmentPairUnchecked"
	// QuirkGSIScanConsistentReadAccepted: Scan of a GSI with ConsistentRead
	// is accepted ("The ConsistentRead parameter is not supported on global
	// secondary indexes").
	QuirkGSIScanConsistentReadAccepted Quirk = "GSIScanConsistentReadAccepted"
	// QuirkGSICreateNeedsThroughput: UpdateTable creating a GSI on an
	// on-demand table demands ProvisionedThroughput.
	QuirkGSICreateNeedsThroughput Quirk = "GSICreateNeedsThroughput"
	// QuirkNoTTL: UpdateTimeToLive is an unknown operation.
	QuirkNoTTL Quirk = "NoTTL"
	// QuirkCreateTableTagsIgnored: CreateTable's Tags are not stored.
	QuirkCreateTableTagsIgnored Quirk = "CreateTableTagsIgnored"
	// QuirkTransactGetLimit25: TransactGetItems refuses more than 25 items
	// (DynamoDB's limit is 100).
	QuirkTransactGetLimit25 Quirk = "TransactGetLimit25"
	// QuirkLegacyValidationLax: malformed legacy parameters (an Expected
	// entry with a wrong number or type of values, Exists with
	// ComparisonOperator, an unknown operator; an AttributeUpdates action
	// the value's type does not allow, or one on a key attribute) are
	// accepted, evaluated anyway, or fail with HTTP 500, instead of a
	// ValidationException.
	QuirkLegacyValidationLax Quirk = "LegacyValidationLax"
	// QuirkLegacyComparisons: some legacy comparisons (API_Condition)
	// evaluate otherwise than documented, or are refused although
	// documented. moto: CONTAINS and BEGINS_WITH on binary values, NE and
	// NOT_CONTAINS on a missing attribute, LT between values of different
	// types (HTTP 500). dynalite: in Expected, EQ compares numbers as
	// written (5 is not 5.0, though "For type Number, value comparisons are
	// numeric") and finds equal maps unequal; in a ScanFilter or QueryFilter,
	// EQ with a map or boolean value is a ValidationException ("EQ is
	// supported for all data types, including lists and maps"; DynamoDB
	// evaluates it, as Alternator's test_query_filter.py records); in both,
	// NOT_CONTAINS holds on a missing attribute, where DynamoDB's is false.
	QuirkLegacyComparisons Quirk = "LegacyComparisons"
	// QuirkLegacyOrIgnored: ConditionalOperator OR joins Expected and
	// ScanFilter entries with AND.
	QuirkLegacyOrIgnored Quirk = "LegacyOrIgnored"
	// QuirkLegacyOrFirstCondition: with ConditionalOperator OR, an Expected,
	// QueryFilter or ScanFilter map takes the outcome of its first entry in
	// the request's JSON, held or not (dynalite returns at the first entry
	// either way); DynamoDB: "If at least one of the conditions evaluates to
	// true, then the entire map evaluates to true". The SDK writes a map's
	// entries in Go's map order, so which entry decides varies between
	// requests; the suite asserts the quirk where every order departs.
	QuirkLegacyOrFirstCondition Quirk = "LegacyOrFirstCondition"
	// QuirkExpectedOperandTypesUnchecked: an Expected entry whose value is
	// of a type its operator does not take (CONTAINS with a list,
	// BEGINS_WITH with a number) is evaluated, and fails the condition,
	// instead of being a ValidationException ("ComparisonOperator CONTAINS
	// is not valid for L AttributeValue type"); dynalite checks those types
	// in ScanFilter and QueryFilter only.
	QuirkExpectedOperandTypesUnchecked Quirk = "ExpectedOperandTypesUnchecked"
	// QuirkUpdateActionUnchecked: an AttributeUpdates Action other than
	// ADD, PUT or DELETE is accepted and changes nothing, instead of a
	// ValidationException ("Member must satisfy enum value set: [ADD, PUT,
	// DELETE]").
	QuirkUpdateActionUnchecked Quirk = "UpdateActionUnchecked"
	// QuirkQueryFilterDuplicates: a QueryFilter with several conditions
	// returns an item once per condition it meets.
	QuirkQueryFilterDuplicates Quirk = "QueryFilterDuplicates"
	// QuirkDeleteItemIgnoresExpected: DeleteItem deletes the item although
	// its Expected conditions do not hold.
	QuirkDeleteItemIgnoresExpected Quirk = "DeleteItemIgnoresExpected"
	// QuirkAttributesToGetIgnored: GetItem, Query, Scan and BatchGetItem
	// return every attribute whatever AttributesToGet names, and accept a
	// name listed twice.
	QuirkAttributesToGetIgnored Quirk = "AttributesToGetIgnored"
	// QuirkLegacyMixingUnchecked: a request mixing legacy and expression
	// parameters is accepted ("Can not use both expression and
	// non-expression parameters in the same request"), as is
	// ExpressionAttributeValues without an expression.
	QuirkLegacyMixingUnchecked Quirk = "LegacyMixingUnchecked"
	// QuirkConditionalOperatorUnchecked: ConditionalOperator without an
	// Expected or filter map, or with a map of one entry, is not refused
	// with a ValidationException ("ConditionalOperator can only be used when
	// Filter or Expected has two or more elements"); dynalite applies the
	// request.
	QuirkConditionalOperatorUnchecked Quirk = "ConditionalOperatorUnchecked"
	// QuirkRequiredMembersUnchecked: a request without a required member
	// (TableName, Key) or with an empty RequestItems is accepted or fails
	// otherwise (HTTP 500, ResourceNotFoundException) instead of a
	// ValidationException.
	QuirkRequiredMembersUnchecked Quirk = "RequiredMembersUnchecked"
	// QuirkTableLookupFirst: an invalid request (update expression, Expected,
	// enum values) naming a missing table is answered
	// ResourceNotFoundException; DynamoDB validates the request first.
	QuirkTableLookupFirst Quirk = "TableLookupFirst"
	// QuirkEmptyTransactionAccepted: TransactWriteItems and TransactGetItems
	// with no actions are accepted (TransactItems has a minimum length of 1).
	QuirkEmptyTransactionAccepted Quirk = "EmptyTransactionAccepted"
	// QuirkUnusedPlaceholdersOnWrites: unused ExpressionAttributeValues are
	// accepted with a PutItem or DeleteItem ConditionExpression or in a
	// transaction's ConditionCheck.
	QuirkUnusedPlaceholdersOnWrites Quirk = "UnusedPlaceholdersOnWrites"
	// QuirkBatchWriteDuplicatesAcrossTables: the same key written to two
	// different tables in one BatchWriteItem is refused as a duplicate.
	QuirkBatchWriteDuplicatesAcrossTables Quirk = "BatchWriteDuplicatesAcrossTables"
	// QuirkTransactionKeyErrorsNotCancelled: a transaction action whose key
	// does not fit the table's schema must cancel the transaction
	// (TransactionCanceledException, reason ValidationError); the target
	// answers otherwise (a ValidationException for the request, another
	// reason).
	QuirkTransactionKeyErrorsNotCancelled Quirk = "TransactionKeyErrorsNotCancelled"
	// QuirkTransactionUpdateErrorsNotCancelled: a transaction's Update that
	// ADDs to an attribute of another type must cancel the transaction
	// (reason ValidationError, "An operand in the update expression has an
	// incorrect data type"), as the fault is found while the transaction
	// runs; the target refuses the request with a ValidationException.
	QuirkTransactionUpdateErrorsNotCancelled Quirk = "TransactionUpdateErrorsNotCancelled"
	// QuirkItemSizeBeforeTableLookup: a PutItem of an item over 400 KB
	// naming a missing table is refused for the item's size
	// (ValidationException) where DynamoDB answers
	// ResourceNotFoundException, having looked the table up first (ExtendDB's
	// test_validation_precedence.py). dynalite keeps the order its own tests
	// recorded from DynamoDB years earlier.
	QuirkItemSizeBeforeTableLookup Quirk = "ItemSizeBeforeTableLookup"
	// QuirkDeleteReturnValuesUnchecked: DeleteItem accepts ReturnValues
	// ALL_NEW, UPDATED_OLD or UPDATED_NEW; DynamoDB "does not recognize any
	// values other than NONE or ALL_OLD" and refuses them ("ReturnValues can
	// only be ALL_OLD or NONE").
	QuirkDeleteReturnValuesUnchecked Quirk = "DeleteReturnValuesUnchecked"
	// QuirkTableARNAsNameRefused: an item operation whose TableName is the
	// table's ARN is a ValidationException (the name must match
	// [a-zA-Z0-9_.-]+); DynamoDB accepts it ("You can also provide the
	// Amazon Resource Name (ARN) of the table in this parameter").
	QuirkTableARNAsNameRefused Quirk = "TableARNAsNameRefused"
	// QuirkUnknownARNNotFound: ListTagsOfResource of an ARN naming no table
	// answers ResourceNotFoundException where DynamoDB denies access.
	QuirkUnknownARNNotFound Quirk = "UnknownARNNotFound"
	// QuirkUpdateTableNoOpsAccepted: UpdateTable with the throughput the
	// table already has, BillingMode PROVISIONED without
	// ProvisionedThroughput, or ProvisionedThroughput on an on-demand table
	// is accepted instead of refused.
	QuirkUpdateTableNoOpsAccepted Quirk = "UpdateTableNoOpsAccepted"
	// QuirkNoItemCollectionMetrics: ReturnItemCollectionMetrics SIZE on a
	// table with local secondary indexes returns no ItemCollectionMetrics.
	QuirkNoItemCollectionMetrics Quirk = "NoItemCollectionMetrics"
	// QuirkNoPartiQL: the target has no ExecuteStatement,
	// BatchExecuteStatement or ExecuteTransaction (dynalite). The PartiQL
	// subtests then only check that a statement is refused.
	QuirkNoPartiQL Quirk = "NoPartiQL"
	// QuirkPartiQLLiterals: PartiQL literals other than strings, booleans
	// and tuples (numbers, lists, <<sets>>, NULL, a doubled quote in a
	// string) fail with HTTP 500 or are stored wrongly.
	QuirkPartiQLLiterals Quirk = "PartiQLLiterals"
	// QuirkPartiQLInsertOverwrites: an INSERT of an existing key replaces
	// the item instead of failing with DuplicateItemException.
	QuirkPartiQLInsertOverwrites Quirk = "PartiQLInsertOverwrites"
	// QuirkPartiQLPathProjection: SELECT of a document path (m.k.z, l[1])
	// does not return the value under the path's last name.
	QuirkPartiQLPathProjection Quirk = "PartiQLPathProjection"
	// QuirkPartiQLWhereLimited: some WHERE operators or functions (<>,
	// BETWEEN, IN, begins_with, contains, size, attribute_exists, NOT) fail
	// or select the wrong items.
	QuirkPartiQLWhereLimited Quirk = "PartiQLWhereLimited"
	// QuirkPartiQLNoOrderBy: ORDER BY is not applied or not checked.
	QuirkPartiQLNoOrderBy Quirk = "PartiQLNoOrderBy"
	// QuirkPartiQLNoPaging: Limit and NextToken are not applied to SELECT.
	QuirkPartiQLNoPaging Quirk = "PartiQLNoPaging"
	// QuirkPartiQLIndexLimited: SELECT from "table"."index" fails, is not
	// in index order, or accepts ConsistentRead on a global index.
	QuirkPartiQLIndexLimited Quirk = "PartiQLIndexLimited"
	// QuirkPartiQLUpdateLimited: some UPDATE forms (arithmetic,
	// list_append, set_add, set_delete, nested paths, REMOVE) or its
	// conditions (the item must exist, conditions beside the key,
	// ReturnValuesOnConditionCheckFailure, the mandatory key) fail with HTTP
	// 500 or change the item wrongly.
	QuirkPartiQLUpdateLimited Quirk = "PartiQLUpdateLimited"
	// QuirkPartiQLNoReturning: RETURNING fails or is ignored.
	QuirkPartiQLNoReturning Quirk = "PartiQLNoReturning"
	// QuirkPartiQLDeleteLimited: DELETE ignores or fails on a condition
	// beside the key, fails on RETURNING ALL OLD *, or deletes by part of
	// the key.
	QuirkPartiQLDeleteLimited Quirk = "PartiQLDeleteLimited"
	// QuirkPartiQLRefusalsMissing: statements DynamoDB refuses (malformed,
	// EXISTS outside a transaction, too few parameters, an unknown table)
	// are accepted or fail with HTTP 500.
	QuirkPartiQLRefusalsMissing Quirk = "PartiQLRefusalsMissing"
	// QuirkPartiQLNoCapacity: ExecuteStatement returns no ConsumedCapacity.
	QuirkPartiQLNoCapacity Quirk = "PartiQLNoCapacity"
	// QuirkPartiQLBatchLimited: BatchExecuteStatement fails with HTTP 500,
	// does not return the items read or per-statement errors as documented,
	// or accepts reads and writes together or more than 25 statements.
	QuirkPartiQLBatchLimited Quirk = "PartiQLBatchLimited"
	// QuirkPartiQLTransactionsLimited: ExecuteTransaction fails with HTTP
	// 500, is not atomic, has no cancellation reasons, or accepts mixed
	// reads and writes, reads not by key or more than 100 statements.
	QuirkPartiQLTransactionsLimited Quirk = "PartiQLTransactionsLimited"
	// QuirkValidationMessages: error types match but the messages differ
	// from DynamoDB's, so message fragments are not compared.
	QuirkValidationMessages Quirk = "ValidationMessages"
	// QuirkNoDeletionProtection: DeletionProtectionEnabled is ignored, so a
	// protected table can be deleted (dynalite).
	QuirkNoDeletionProtection Quirk = "NoDeletionProtection"
	// QuirkNoContinuousBackups: DescribeContinuousBackups and
	// UpdateContinuousBackups are not implemented (dynalite).
	QuirkNoContinuousBackups Quirk = "NoContinuousBackups"
	// QuirkPITRPeriodUnchecked: a RecoveryPeriodInDays outside 1..35 must be
	// a ValidationException; the target accepts it.
	QuirkPITRPeriodUnchecked Quirk = "PITRPeriodUnchecked"
)

// documented checks one documented behaviour. ok says whether the target
// behaved as documented. A target without quirk q must (else the failure is
// reported with msg); a target with q must still deviate, so a fixed
// reference is noticed and its quirk removed.
func (s *suite) documented(t *testing.T, q Quirk, ok bool, format string, args ...any) {
	t.Helper()
	switch {
	case s.quirks.Has(q) && ok:
		t.Errorf("quirk %s no longer reproduces on %s (now documented behaviour): remove it", q, s.name)
	case !s.quirks.Has(q) && !ok:
		t.Errorf(format, args...)
	}
}
