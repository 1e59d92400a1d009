// Package cmd is adjl's command line: cobra commands, settings (flag > ADJL_*
// environment > config file > default), backends, output printers and the
// exit-code table. Nothing imports it but main.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/adjl/adjl/ops"
)

// Main runs adjl with the process's arguments and streams and returns the
// exit code; main only passes it to os.Exit.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, a second one kills the process as usual.
		<-ctx.Done()
		stop()
	}()
	a := newApp(NewIOStreams(os.Stdin, os.Stdout, os.Stderr), os.Args[1:])
	a.setMemoryLimit = debug.SetMemoryLimit
	return a.run(ctx)
}

// Run runs adjl with args and the given streams, for tests.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(context.Background(), NewIOStreams(stdin, stdout, stderr), args)
}

func run(ctx context.Context, ios *IOStreams, args []string) int {
	return newApp(ios, args).run(ctx)
}

func newApp(ios *IOStreams, args []string) *app {
	return &app{io: ios, args: args, getenv: os.LookupEnv, secrets: &secrets{}}
}

// run executes the command line and turns the outcome into an exit code,
// printing the error (and a hint) on stderr.
func (a *app) run(ctx context.Context) int {
	ios := a.io
	a.secrets.fromEnv(a.getenv)
	ios.Out = redactingWriter{w: ios.Out, s: a.secrets, shapes: []shape{credentialShapes}}
	ios.ErrOut = redactingWriter{w: ios.ErrOut, s: a.secrets, shapes: []shape{credentialShapes, errorShapes}}
	err := a.execute(ctx)
	if a.capacity != nil && !a.explaining() {
		a.capacity.printTotal()
	}
	err = a.storageError(err)
	var closeErr *closeDataFileError
	switch cerr := a.close(); {
	case cerr == nil:
	case errors.As(cerr, &closeErr):
		if err == nil {
			fmt.Fprintf(ios.ErrOut, "adjl: warning: %v\n", cerr)
		}
	case err == nil:
		err = cerr
	}
	if ferr := ios.Flush(); ferr != nil && err == nil {
		err = ferr // an outputError
	}
	if err == nil {
		return ExitOK
	}
	if brokenPipe(err) {
		return ExitCode(err) // no message, as any Unix tool whose reader left
	}
	var nf *ops.TableNotFoundError
	if errors.As(err, &nf) && nf.Where == "" {
		nf.Where = a.where
	}
	if !a.started && !isClassified(err) {
		// cobra's own complaints (unknown flag, bad flag value) come before
		// any command ran: they are usage errors.
		err = &usageError{err: err}
	}
	if !a.started {
		a.setColor()
	}
	printError(ios.ErrOut, err, ios.ErrColor)
	return ExitCode(err)
}

// isClassified reports whether err already has an exit code of its own.
func isClassified(err error) bool {
	var u *usageError
	return errors.As(err, &u) || ExitCode(err) != ExitInternal
}
