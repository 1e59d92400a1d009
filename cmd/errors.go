package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
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
	source string // "default", "flag", "env", "config"
}

func (e *noSchemaError) Error() string {
	if e.source == "default" {
		return fmt.Sprintf("no schema loaded (looked for %s)", e.path)
	}
	return fmt.Sprintf("schema file %s not found", e.path)
}

// lockedError wraps the embedded engine's lock timeout so that the exit-code
// table does not depend on the local package.
type lockedError struct{ err error }

func (e *lockedError) Error() string { return e.err.Error() }
func (e *lockedError) Unwrap() error { return e.err }

// printError writes "adjl: <message>" and, where it helps, a hint line.
func printError(w io.Writer, err error) {
	var status *statusError
	if errors.As(err, &status) {
		return
	}
	var mismatch *ops.TableMismatchError
	if errors.As(err, &mismatch) {
		fmt.Fprintf(w, "adjl: table %s differs from the schema:\n", mismatch.Table)
		for _, d := range mismatch.Differences {
			fmt.Fprintf(w, "  - %s\n", d)
		}
		fmt.Fprintln(w, "hint: change the schema to match, or delete the table (adjl table delete --yes) and create it again")
		return
	}
	if schema.IsInvalid(err) {
		// One problem per line, each already "file:line:col: msg".
		fmt.Fprintln(w, "adjl: invalid schema:")
		for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
		return
	}
	fmt.Fprintf(w, "adjl: %s\n", err)
	if h := hint(err); h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

func hint(err error) string {
	var (
		usage    *usageError
		noSchema *noSchemaError
		unreach  *ops.UnreachableError
		unauth   *ops.UnauthorizedError
		thr      *ops.ThrottledError
	)
	switch {
	case errors.As(err, &usage) && usage.hint != "":
		return usage.hint
	case errors.As(err, &noSchema):
		return "pass --schema FILE (or set ADJL_SCHEMA); see examples/school.yaml"
	case errors.As(err, &usage):
		if usage.cmd != nil {
			return fmt.Sprintf("usage: %s (see '%s --help')", usage.cmd.UseLine(), usage.cmd.CommandPath())
		}
		return "see 'adjl --help'"
	case errors.As(err, &unauth):
		return "check your AWS credentials (--profile, AWS_PROFILE, AWS_ACCESS_KEY_ID)"
	case errors.As(err, &unreach):
		return "check --endpoint (or ADJL_ENDPOINT); for a local server start `adjl local serve`"
	case errors.As(err, &thr):
		return "retry later, or raise the table's capacity"
	}
	return ""
}
