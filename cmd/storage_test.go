package cmd

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestStorageFailureIsAClearExitSix: a command the embedded engine failed
// because its data file could not be written (a full disk) is reported as
// that, exit 6, with what to do and that nothing answered is lost - not as
// the engine's internal error (exit 10).
func TestStorageFailureIsAClearExitSix(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: ".adjl/data.db-wal1", Err: syscall.ENOSPC}
	var failure error
	a := &app{be: &backend{data: ".adjl/data.db", failure: func() error { return failure }}}
	engineErr := errors.New("dynamodb: api error InternalServerError: The server encountered an internal error")
	if got := a.storageError(engineErr); got != engineErr {
		t.Errorf("with no storage failure the error became %v", got)
	}
	failure = full
	err := a.storageError(engineErr)
	if code := ExitCode(err); code != ExitUnreachable {
		t.Errorf("exit %d, want %d", code, ExitUnreachable)
	}
	var out bytes.Buffer
	printError(&out, err, false)
	want := "adjl: cannot write data file .adjl/data.db: write .adjl/data.db-wal1: no space left on device\n" +
		"hint: free space on the file system holding .adjl/data.db (df -h .adjl) and run the command again: nothing adjl answered is lost, the write-ahead logs beside the file keep every answered write\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
	// Opening on a full disk says the same.
	out.Reset()
	printError(&out, &dataFileError{path: ".adjl/data.db", err: full}, false)
	if !strings.HasPrefix(out.String(), "adjl: cannot open data file .adjl/data.db: write .adjl/data.db-wal1: no space left on device\nhint: free space") {
		t.Errorf("open on a full disk printed\n%s", out.String())
	}
}
