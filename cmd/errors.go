package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	"github.com/spf13/cobra"
)

// usageError is a mistake in how the command was typed (arguments, flags);
// it carries the command so the hint can show the right usage line.
type usageError struct {
	cmd  *cobra.Command
	err  error
	hint string // replaces the usage line as the hint, when set
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(c *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: c, err: fmt.Errorf(format, args...)}
}

// statusError ends the process with a code and no message: a check verb that
// finds no edge has not failed, it has answered "no".
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// noSchemaError reports a command that needs a schema when none was found.
type noSchemaError struct {
	path   string
	source string // "default", "flag", "env", "config", "arg"
}

func (e *noSchemaError) Error() string {
	if e.source == "default" {
		return fmt.Sprintf("no schema loaded (looked for %s)", e.path)
	}
	return fmt.Sprintf("schema file %s not found", e.path)
}

// notFoundError names the key that has no item; it is ops.ErrItemNotFound
// (exit 1) with the key in the message.
type notFoundError struct{ key string }

func (e *notFoundError) Error() string { return e.key + ": " + ops.ErrItemNotFound.Error() }
func (e *notFoundError) Unwrap() error { return ops.ErrItemNotFound }

// lockedError wraps the embedded engine's lock timeout so that the exit-code
// table does not depend on the local package.
type lockedError struct{ err error }

func (e *lockedError) Error() string { return e.err.Error() }
func (e *lockedError) Unwrap() error { return e.err }

// credentialsError is credentials the SDK could not find or load: the
// backend cannot be used, as if it had refused them.
type credentialsError struct{ err error }

func (e *credentialsError) Error() string { return "no usable AWS credentials: " + e.err.Error() }
func (e *credentialsError) Unwrap() error { return e.err }

// outputError is a failed write to stdout: a full disk, a closed file. The
// command did its work (a link was written); its output is lost or cut.
type outputError struct{ err error }

func (e *outputError) Error() string {
	cause := e.err
	var pe *fs.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err // "write /dev/stdout: " says nothing the message does not
	}
	return "cannot write the output to stdout: " + cause.Error()
}
func (e *outputError) Unwrap() error { return e.err }

// brokenPipe reports whether err is stdout's reader having gone away
// (adjl ... | head): as for any Unix tool, that ends the output quietly.
func brokenPipe(err error) bool {
	var out *outputError
	return errors.As(err, &out) && errors.Is(err, syscall.EPIPE)
}

// printError writes "adjl: <message>" and, where it helps, a hint line;
// with color, the two prefixes are coloured.
func printError(w io.Writer, err error, color bool) {
	errPrefix, hintPrefix := paint(color, ansiRed, "adjl:"), paint(color, ansiYellow, "hint:")
	var status *statusError
	if errors.As(err, &status) {
		return
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(w, errPrefix+" interrupted")
		return
	}
	var mismatch *ops.TableMismatchError
	if errors.As(err, &mismatch) {
		fmt.Fprintf(w, "%s table %s differs from the schema:\n", errPrefix, mismatch.Table)
		for _, d := range mismatch.Differences {
			fmt.Fprintf(w, "  - %s\n", d)
		}
		h := mismatch.Hint
		if h == "" {
			h = "change the schema to match, or delete the table (adjl table delete --yes) and create it again"
		}
		fmt.Fprintf(w, "%s %s\n", hintPrefix, h)
		return
	}
	if schema.IsInvalid(err) {
		// One problem per line, each already "file:line:col: msg".
		fmt.Fprintln(w, errPrefix+" invalid schema:")
		for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
		return
	}
	fmt.Fprintf(w, "%s %s\n", errPrefix, clipMessage(message(err)))
	if h := hint(err); h != "" {
		fmt.Fprintf(w, "%s %s\n", hintPrefix, h)
	}
}

// quoteArg quotes a command-line argument for a message, cut to its first
// 60 characters: a megabyte argument makes a one-line message, not a
// megabyte of them.
func quoteArg(s string) string {
	const keep = 60
	n := 0
	for i := range s {
		if n == keep {
			return fmt.Sprintf("%q... (%d bytes)", s[:i], len(s))
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}

// maxMessageBytes bounds one error message: past it, the message (holding
// some input it quotes, or a server's answer) is cut, so no input floods
// the terminal.
const maxMessageBytes = 4096

func clipMessage(m string) string {
	if len(m) <= maxMessageBytes {
		return m
	}
	cut := maxMessageBytes
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes)", m[:cut], len(m)-cut)
}

// message is the error as the user should read it. The operation context
// ops adds ("read table metadata: ...") is dropped where the cause says it
// all, and an unreachable backend is reduced to the network failure rather
// than the SDK's retry report.
func message(err error) string {
	var (
		notFound *ops.TableNotFoundError
		absent   *tableAbsentError
		noTable  *noTableToReadError
		unreach  *ops.UnreachableError
	)
	switch {
	case errors.As(err, &absent):
		return absent.Error()
	case errors.As(err, &noTable):
		return noTable.Error()
	case errors.As(err, &notFound):
		return notFound.Error()
	case errors.As(err, &unreach):
		where := "the backend"
		if unreach.Endpoint != "" {
			where += " at " + unreach.Endpoint
		}
		var badBody *smithy.DeserializationError
		var resp *awshttp.ResponseError
		if errors.As(err, &badBody) && errors.As(err, &resp) {
			return fmt.Sprintf("%s did not answer like DynamoDB: HTTP %d with a body that is not DynamoDB's JSON (%v)", where, resp.HTTPStatusCode(), badBody.Err)
		}
		return fmt.Sprintf("cannot reach %s: %s", where, networkCause(unreach.Err))
	}
	return err.Error()
}

// networkCause is the innermost network failure of err ("connect: connection
// refused", "lookup x: no such host"), or err itself.
func networkCause(err error) string {
	var (
		dnsErr *net.DNSError
		opErr  *net.OpError
	)
	switch {
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.As(err, &opErr) && opErr.Timeout():
		return "timed out"
	case errors.As(err, &opErr) && opErr.Err != nil:
		return opErr.Err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return err.Error()
}

// tableAbsentError is a table delete of a table that does not exist: exit 4
// like any missing table, without the advice to create it.
type tableAbsentError struct{ err *ops.TableNotFoundError }

func (e *tableAbsentError) Error() string {
	if e.err.Where != "" {
		return fmt.Sprintf("table %s does not exist in %s; nothing to delete", e.err.Table, e.err.Where)
	}
	return fmt.Sprintf("table %s does not exist; nothing to delete", e.err.Table)
}
func (e *tableAbsentError) Unwrap() error { return e.err }

// noTableToReadError is a missing table that a command reads without a
// schema (schema infer): exit 4, with no advice to create it.
type noTableToReadError struct{ err *ops.TableNotFoundError }

func (e *noTableToReadError) Error() string {
	where := ""
	if e.err.Where != "" {
		where = " in " + e.err.Where
	}
	return fmt.Sprintf("table %s not found%s; schema infer reads an existing table: check its name, and --endpoint and --region", e.err.Table, where)
}

func (e *noTableToReadError) Unwrap() error { return e.err }

func hint(err error) string {
	var (
		listen   *listenError
		missing  *ops.MissingEntityError
		usage    *usageError
		noSchema *noSchemaError
		unreach  *ops.UnreachableError
		unauth   *ops.UnauthorizedError
		noCreds  *credentialsError
		thr      *ops.ThrottledError
		server   *ops.ServerError
		dataFile *dataFileError
		format   *local.FormatError
		protect  *ops.TableProtectedError
		hinted   *hintedError
		output   *outputError
		rejected *ops.RejectedError
	)
	switch {
	case errors.As(err, &hinted):
		return hinted.hint
	case errors.As(err, &listen):
		return "pick another address, e.g. --addr 127.0.0.1:8001 (or 127.0.0.1:0 for any free port)"
	case errors.As(err, &missing):
		return fmt.Sprintf("create it first (adjl put %s %s), or link without --require-entities if the schema does not require entities",
			missing.Entity, shellQuote(missing.Key))
	case errors.As(err, &usage) && usage.hint != "":
		return usage.hint
	case errors.As(err, &noSchema) && noSchema.source == "arg":
		return "check the path; adjl schema validate with no FILE checks --schema"
	case errors.As(err, &noSchema):
		return "pass --schema FILE (or set ADJL_SCHEMA), or write a starter ./adjl.yaml with adjl init"
	case errors.As(err, &usage):
		if usage.cmd != nil {
			return fmt.Sprintf("usage: %s (see '%s --help')", usage.cmd.UseLine(), usage.cmd.CommandPath())
		}
		return "see 'adjl --help'"
	case errors.As(err, &unauth), errors.As(err, &noCreds):
		return "check your AWS credentials (--profile, AWS_PROFILE, AWS_ACCESS_KEY_ID)"
	case errors.As(err, &unreach):
		return "check --endpoint (or ADJL_ENDPOINT); for a local server start `adjl local serve`"
	case errors.As(err, &format):
		return "a newer adjl wrote this data file: use that adjl (or a later one), or another --data FILE"
	case errors.As(err, &dataFile):
		return dataFile.hint()
	case errors.As(err, &thr):
		return "retry later, or raise the table's capacity"
	case errors.As(err, &server):
		return "the backend kept failing; its message above says why: retry later"
	case errors.As(err, &rejected) && rejected.ItemTooLarge:
		return "keep a large value elsewhere (a file, an S3 object) and store its name or address; adjl checks each --set value, only the backend the whole item"
	case errors.As(err, &output):
		return "stdout's file or device took no more (is the disk full?): free space or send the output elsewhere; whatever the command changed in the table is done, only its output is lost"
	case errors.As(err, &protect):
		return "set deletionProtection: false in the schema's table block and run adjl table apply --yes, then delete the table"
	}
	return ""
}
