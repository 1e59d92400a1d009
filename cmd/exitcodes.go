package cmd

import (
	"context"
	"errors"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
)

// Exit codes. They are a contract with scripts (and documented in the README),
// so they are decided here and nowhere else, from typed errors:
//
//	code  meaning                                         typical error
//	----  ----------------------------------------------  -----------------------------------------
//	 0    success; check verb: linked                     -
//	 1    check verb: not linked; get/delete: not found;  ops.ErrItemNotFound (ops.MissingEntityError), silent status
//	      link requiring entities: one is missing
//	 2    usage or input error (nothing was written);     usageError, schema.KeyError, schema.InputError, ops.InputError,
//	      a request refused as malformed;                 ops.RejectedError (ops.CounterNotNumberError), rowfile.CellError
//	      export: a value it cannot write (stdout
//	      incomplete)
//	 3    invalid schema file                             schema.IsInvalid
//	 4    table missing or different from the schema      ops.TableNotFoundError, ops.TableMismatchError
//	 5    conditional conflict; table deletion-protected  ops.HasEdgesError, ops.ConflictError, ops.TableProtectedError
//	 6    backend unreachable, unauthorised or failing    ops.UnreachableError, ops.UnauthorizedError, ops.ServerError (5xx after retries),
//	      (5xx); no usable credentials; local serve       credentialsError, listenError; local data file locked, unopenable or unwritable (ops.StorageFailureError)
//	      cannot listen on its address; stdout        outputError
//	      cannot be written (a full disk)
//	 7    throttled after the SDK's retries               ops.ThrottledError
//	 8    import done, but lines were rejected            statusError from import --skip-invalid
//	10    internal error (a bug: please report it)        anything else
//	130   interrupted (Ctrl-C, SIGTERM)                   context.Canceled
const (
	ExitOK          = 0
	ExitFalse       = 1
	ExitUsage       = 2
	ExitSchema      = 3
	ExitTable       = 4
	ExitConflict    = 5
	ExitUnreachable = 6
	ExitThrottled   = 7
	ExitRejected    = 8
	ExitInternal    = 10
	ExitInterrupted = 130
)

// ExitCode maps an error returned by a command to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var (
		status    *statusError
		usage     *usageError
		noSchema  *noSchemaError
		keyErr    *schema.KeyError
		inErr     *schema.InputError
		opsIn     *ops.InputError
		notFound  *ops.TableNotFoundError
		listen    *listenError
		mismatch  *ops.TableMismatchError
		edges     *ops.HasEdgesError
		protected *ops.TableProtectedError
		conflict  *ops.ConflictError
		unreach   *ops.UnreachableError
		unauth    *ops.UnauthorizedError
		throttled *ops.ThrottledError
		server    *ops.ServerError
		storage   *ops.StorageFailureError
		locked    *lockedError
		noCreds   *credentialsError
		dataFile  *dataFileError
		rejected  *ops.RejectedError
		cell      *rowfile.CellError
		output    *outputError
	)
	switch {
	case errors.As(err, &status):
		return status.code
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case schema.IsInvalid(err):
		return ExitSchema
	case errors.As(err, &usage), errors.As(err, &noSchema), errors.As(err, &keyErr),
		errors.As(err, &inErr), errors.As(err, &opsIn), errors.As(err, &rejected), errors.As(err, &cell):
		return ExitUsage
	case errors.Is(err, ops.ErrItemNotFound):
		return ExitFalse
	case errors.As(err, &notFound), errors.As(err, &mismatch):
		return ExitTable
	case errors.As(err, &edges), errors.As(err, &conflict), errors.As(err, &protected):
		return ExitConflict
	case errors.As(err, &throttled):
		return ExitThrottled
	case errors.As(err, &unreach), errors.As(err, &unauth), errors.As(err, &server), errors.As(err, &storage), errors.As(err, &noCreds), errors.As(err, &locked), errors.As(err, &dataFile), errors.As(err, &listen),
		errors.As(err, &output):
		return ExitUnreachable
	}
	// ops classifies every backend error into its types above (ops.classify
	// is the one classifier): anything else is a bug.
	return ExitInternal
}
