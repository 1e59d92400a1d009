package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
)

func TestExitCodeTable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"check false", &statusError{code: 1}, ExitFalse},
		{"not found", fmt.Errorf("STU#x: %w", ops.ErrItemNotFound), ExitFalse},
		{"usage", &usageError{err: errors.New("missing TO")}, ExitUsage},
		{"no schema", &noSchemaError{path: "adjl.yaml"}, ExitUsage},
		{"key", &schema.KeyError{Input: "CRS#x", Reason: "r", Want: "w"}, ExitUsage},
		{"schema input", &schema.InputError{Msg: "unknown attribute"}, ExitUsage},
		{"ops input", fmt.Errorf("list: %w", &ops.InputError{Msg: "bad cursor"}), ExitUsage},
		{"invalid schema", &schema.Error{File: "f.yaml", Line: 1, Col: 2, Msg: "bad"}, ExitSchema},
		{"invalid schema list", schema.Errors{{File: "f.yaml", Line: 1, Col: 2, Msg: "bad"}}, ExitSchema},
		{"table missing", &ops.TableNotFoundError{Table: "school"}, ExitTable},
		{"table differs", &ops.TableMismatchError{Table: "school", Differences: []string{"x"}}, ExitTable},
		{"has edges", &ops.HasEdgesError{Key: "STU#a", Count: 2}, ExitConflict},
		{"conflict", &ops.ConflictError{Msg: "c"}, ExitConflict},
		{"deletion protection", &ops.TableProtectedError{Table: "t"}, ExitConflict},
		{"unreachable", &ops.UnreachableError{Err: errors.New("refused")}, ExitUnreachable},
		{"unauthorized", &ops.UnauthorizedError{Err: errors.New("bad key")}, ExitUnreachable},
		{"locked", &lockedError{err: errors.New("locked")}, ExitUnreachable},
		{"stdout full", &outputError{err: syscall.ENOSPC}, ExitUnreachable},
		{"throttled", &ops.ThrottledError{Err: errors.New("slow down")}, ExitThrottled},
		{"rejected by the backend", &ops.RejectedError{Err: errors.New("ValidationException")}, ExitUsage},
		{"export: a value CSV cannot carry", withHint(fmt.Errorf("export enrollment: %w", &rowfile.CellError{Row: "STU#a", Msg: "m"}), "h"), ExitUsage},
		// ops classifies every backend error: a raw one reaching cmd is a bug.
		{"unclassified backend error", apiError("ThrottlingException", "x"), ExitInternal},
		{"interrupted", fmt.Errorf("query: %w", context.Canceled), ExitInterrupted},
		{"internal", errors.New("boom"), ExitInternal},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}

// TestExitCodesThroughRun drives whole command lines into each error class.
func TestExitCodesThroughRun(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	cases := []struct {
		name    string
		api     ops.API
		args    []string
		code    int
		stderr  string // substring
		noCalls bool   // the API must not have been called
	}{
		{name: "missing arg", args: []string{"--schema", school, "enroll", "STU#a91"}, code: 2, stderr: "missing COURSE", noCalls: true},
		{name: "extra arg", args: []string{"--schema", school, "enrolled", "a", "b", "c"}, code: 2, stderr: `unexpected argument "c"`, noCalls: true},
		{name: "unknown flag", args: []string{"--schema", school, "members", "x", "--bogus"}, code: 2, stderr: "unknown flag: --bogus", noCalls: true},
		{name: "wrong prefix", args: []string{"--schema", school, "enroll", "CRS#math204", "STU#a91"}, code: 2, stderr: `"CRS#" does not belong here`, noCalls: true},
		{name: "empty id", args: []string{"--schema", school, "enroll", "STU#", "CRS#math204"}, code: 2, stderr: "empty id", noCalls: true},
		{name: "oversized key", args: []string{"--schema", school, "enrolled", "STU#" + strings.Repeat("x", 2000), "m"}, code: 2, stderr: "limit", noCalls: true},
		{name: "unknown set attribute", args: []string{"--schema", school, "enroll", "a91", "math204", "--set", "colour=red"}, code: 2, stderr: "colour", noCalls: true},
		{name: "bad set value", args: []string{"--schema", school, "enroll", "a91", "math204", "--set", "enrolledOn=tomorrow"}, code: 2, stderr: "enrolledOn", noCalls: true},
		{name: "unknown relation", args: []string{"--schema", school, "link", "friendship", "a", "b"}, code: 2, stderr: `unknown relation "friendship"`, noCalls: true},
		{name: "unknown entity", args: []string{"--schema", school, "put", "teacher", "t1"}, code: 2, stderr: `unknown entity "teacher"`, noCalls: true},
		{name: "bad output", args: []string{"--schema", school, "-o", "xml", "courses", "a91"}, code: 2, stderr: `invalid output format "xml"`, noCalls: true},
		{name: "bad endpoint", args: []string{"--schema", school, "--endpoint", "moon", "courses", "a91"}, code: 2, stderr: `invalid endpoint "moon" (flag --endpoint)`},
		{name: "delete table without yes", args: []string{"--schema", school, "table", "delete"}, code: 2, stderr: "without --yes", noCalls: true},
		{name: "unknown subcommand", args: []string{"--schema", school, "table", "drop"}, code: 2, stderr: `unknown command "drop"`, noCalls: true},
		{name: "table missing", api: newFailingAPI(apiError("ResourceNotFoundException", "Requested resource not found")),
			args: []string{"--schema", school, "table", "describe"}, code: 4, stderr: "table school not found — run `adjl table create`"},
		{name: "throttled", api: newFailingAPI(apiError("ProvisionedThroughputExceededException", "slow down")),
			args: []string{"--schema", school, "get", "STU#a91"}, code: 7, stderr: "throttled"},
		{name: "unauthorized", api: newFailingAPI(apiError("UnrecognizedClientException", "The security token included in the request is invalid")),
			args: []string{"--schema", school, "get", "STU#a91"}, code: 6, stderr: "credentials"},
		{name: "conflict", api: newFailingAPI(apiError("TransactionConflictException", "conflict")),
			args: []string{"--schema", school, "unenroll", "a91", "math204"}, code: 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := c.api
			if api == nil {
				api = newFailingAPI(errors.New("must not be called"))
			}
			r := adjl(t, runOpts{api: api}, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, c.code, r.err)
			}
			if !strings.HasPrefix(r.err, "adjl: ") {
				t.Errorf("stderr does not start with \"adjl: \": %q", r.err)
			}
			if !strings.Contains(r.err, c.stderr) {
				t.Errorf("stderr %q does not contain %q", r.err, c.stderr)
			}
			if f, ok := api.(*failingAPI); ok && c.noCalls && len(f.ops) > 0 {
				t.Errorf("requests were sent for an input error: %v", f.ops)
			}
		})
	}
}

func TestInvalidSchemaExit3(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	bad := dir + "/bad.yaml"
	writeFile(t, bad, "version: 1\ntable: {name: t}\nentities:\n  student: {prefix: \"STU\", colour: red}\n")
	for _, args := range [][]string{
		{"--schema", bad, "schema", "validate"},
		{"--schema", bad, "get", "STU#a"},
		{"--schema", bad, "enroll", "a", "b"}, // a verb that cannot exist
		{"--schema", bad, "table", "create"},
	} {
		r := adjl(t, runOpts{dir: dir, api: newFailingAPI(errors.New("must not be called"))}, args...)
		if r.code != ExitSchema {
			t.Errorf("%v: exit %d, want 3\n%s", args, r.code, r.err)
		}
		if !strings.Contains(r.err, "bad.yaml:4:") {
			t.Errorf("%v: stderr lacks file:line:col: %q", args, r.err)
		}
	}
	// Commands that need no schema still work.
	if r := adjl(t, runOpts{dir: dir}, "--schema", bad, "version"); r.code != 0 {
		t.Errorf("version with an invalid schema: exit %d: %s", r.code, r.err)
	}
}

func TestNoSchema(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "enroll", "a", "b")
	if r.code != ExitUsage {
		t.Errorf("exit %d, want 2", r.code)
	}
	want := `adjl: unknown command "enroll": no schema loaded (looked for ./adjl.yaml); pass --schema FILE`
	if first, _, _ := strings.Cut(r.err, "\n"); first != want {
		t.Errorf("stderr first line:\n got %q\nwant %q", first, want)
	}
	for _, args := range [][]string{{"version"}, {"completion", "bash"}, {"--help"}, {"schema", "--help"}} {
		if r := adjl(t, runOpts{}, args...); r.code != 0 {
			t.Errorf("%v without a schema: exit %d: %s", args, r.code, r.err)
		}
	}
	if r := adjl(t, runOpts{}, "get", "STU#a"); r.code != ExitUsage || !strings.Contains(r.err, "no schema loaded") {
		t.Errorf("get without schema: exit %d: %s", r.code, r.err)
	}
}

func TestUnknownCommandWithSchema(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "enrol", "a", "b")
	if r.code != ExitUsage || !strings.Contains(r.err, `unknown command "enrol"`) || !strings.Contains(r.err, "enroll") {
		t.Errorf("exit %d, stderr %q: want 2 with a suggestion", r.code, r.err)
	}
}

func TestUnreachableEndpoint(t *testing.T) {
	isolate(t)
	// A port nothing listens on: connection refused.
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", "http://127.0.0.1:1", "get", "STU#a91")
	if r.code != ExitUnreachable {
		t.Errorf("exit %d, want 6\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "hint: check --endpoint") {
		t.Errorf("no hint: %q", r.err)
	}
}
