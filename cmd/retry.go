package cmd

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// adjl's retry policy, the same on every backend: the SDK's standard
// retryer with the values the SDK gives DynamoDB clients, pinned here so
// that an SDK upgrade cannot change them unnoticed (TestRetryPolicy and the
// README state them):
//
//   - each request is tried at most retryMaxAttempts times (3 retries);
//   - a retry waits a random time (full jitter) up to base·2^n: base
//     retryBaseDelay for transient errors, 1 s for throttling, never more
//     than retryMaxBackoff;
//   - retried: throttling (ThrottlingException,
//     ProvisionedThroughputExceededException, RequestLimitExceeded,
//     TransactionInProgressException, ...), HTTP 500, 502, 503 and 504,
//     and transport errors (refused, reset, or closed before an answer),
//     with the same request: a transaction keeps its ClientRequestToken;
//   - not retried: answers (a failed condition, a cancelled transaction,
//     a validation error);
//   - the SDK's client-side retry quota (500 tokens; a retry costs 5
//     after throttling and 14 otherwise, refunded when it succeeds).
//
// When the retries are spent, throttling is exit 7 and a server error or
// an unreachable backend exit 6. Bulk commands (import, counters) go on
// with their own backoff on top until two minutes pass without progress.
// A retry mode or attempt count set in the AWS configuration
// (AWS_RETRY_MODE, AWS_MAX_ATTEMPTS, retry_mode, max_attempts) is honoured
// instead (retryEnv brings the environment's to the backends whose
// configuration adjl builds itself).
const (
	retryMaxAttempts = 4
	retryBaseDelay   = 25 * time.Millisecond
	retryMaxBackoff  = 20 * time.Second
)

// retryPolicy sets adjl's retryer on a DynamoDB client.
func retryPolicy(o *dynamodb.Options) {
	if o.RetryMaxAttempts != 0 || o.RetryMode == aws.RetryModeAdaptive {
		return // the user's AWS configuration chose (standard is the default mode)
	}
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = retryMaxAttempts
		so.BaseDelay = retryBaseDelay
		so.MaxBackoff = retryMaxBackoff
	})
}

// retryEnv sets on cfg the retry mode and attempt count the environment
// names (AWS_RETRY_MODE, AWS_MAX_ATTEMPTS), as the SDK does when it loads
// the AWS configuration: the embedded engine and a server at a URL get a
// configuration adjl builds, which the SDK never reads them into. Values
// the SDK would not accept are left out (the policy then applies).
func retryEnv(cfg aws.Config, getenv func(string) (string, bool)) aws.Config {
	if n, err := strconv.Atoi(envValue(getenv, "AWS_MAX_ATTEMPTS")); err == nil && n > 0 && cfg.RetryMaxAttempts == 0 {
		cfg.RetryMaxAttempts = n
	}
	if mode, err := aws.ParseRetryMode(envValue(getenv, "AWS_RETRY_MODE")); err == nil && mode != "" && cfg.RetryMode == "" {
		cfg.RetryMode = mode
	}
	return cfg
}
