package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// engine is what adjl needs from the embedded engine (local.Engine).
type engine interface {
	http.Handler
	HTTPClient() *http.Client
	Close() error
}

type serveOptions struct {
	addr        string
	data        string
	inMemory    bool
	allowRemote bool
	// ready, when set, receives the listening address (tests use port 0).
	ready func(addr string)
}

func (a *app) newLocalCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "local",
		Short: "Run the embedded DynamoDB-compatible engine for other tools",
		Example: withExamples(
			"adjl local serve",
			"adjl --endpoint http://127.0.0.1:8000 table create",
		),
		Args: groupArgs,
		RunE: groupRun,
	}
	opts := &serveOptions{}
	serve := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8000] [--data FILE | --in-memory]",
		Short: "Serve the embedded engine over HTTP on a loopback address",
		Long: `Serve the embedded engine over HTTP, speaking the DynamoDB JSON protocol, so the
AWS CLI, SDKs, NoSQL Workbench and other adjl processes can share one engine.
It binds a loopback address unless --allow-remote is given, and stops cleanly
on Ctrl-C (SIGINT) or SIGTERM.`,
		Example: withExamples(
			"adjl local serve",
			"adjl local serve --addr 127.0.0.1:8001 --in-memory",
			"aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000",
			"adjl --endpoint http://127.0.0.1:8000 members CRS#math204",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.data = a.set.Data
			if opts.inMemory && c.Flags().Changed("data") {
				return usagef(c, "--data and --in-memory cannot be combined")
			}
			return a.serveRun(c.Context(), opts)
		},
	}
	serve.Flags().StringVar(&opts.addr, "addr", "127.0.0.1:8000", "listen `ADDRESS` (host:port)")
	serve.Flags().BoolVar(&opts.inMemory, "in-memory", false, "keep data in memory only (gone on exit)")
	serve.Flags().BoolVar(&opts.allowRemote, "allow-remote", false, "allow a non-loopback --addr (the engine has no authentication)")
	c.AddCommand(serve)
	return c
}

func (a *app) serveRun(ctx context.Context, opts *serveOptions) error {
	if err := checkLoopback(opts.addr, opts.allowRemote); err != nil {
		return err
	}
	e, err := openEngine(opts.data, opts.inMemory)
	if err != nil {
		return err
	}
	defer e.Close()
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return &listenError{addr: opts.addr, err: err}
	}
	srv := &http.Server{Handler: withServePID(e), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()

	url := "http://" + ln.Addr().String()
	if !opts.inMemory {
		// Commands on the same data file find the server here and talk to it.
		if err := writeServeRecord(opts.data, url); err != nil {
			fmt.Fprintf(a.io.ErrOut, "adjl: warning: cannot record the server's address beside %s (%v): other commands on that data file will wait for it instead\n", opts.data, err)
		}
		defer removeServeRecord(opts.data)
	}
	where := "data " + opts.data
	if opts.inMemory {
		where = "in memory"
	}
	fmt.Fprintf(a.io.Out, "adjl local engine listening on %s (%s)\n", url, where)
	if !a.set.Quiet {
		fmt.Fprintf(a.io.Out, "try: aws dynamodb list-tables --endpoint-url %s\n", url)
		fmt.Fprintf(a.io.Out, "     adjl --endpoint %s table create\n", url)
	}
	a.io.Flush()
	if opts.ready != nil {
		opts.ready(ln.Addr().String())
	}
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(a.notes(), "adjl local engine stopped")
	return nil
}

// listenError is an address local serve cannot listen on (in use, not
// ours): the engine cannot be served there, like a backend that cannot be
// reached (exit 6).
type listenError struct {
	addr string
	err  error
}

func (e *listenError) Error() string {
	return fmt.Sprintf("cannot listen on %s: %s", e.addr, networkCause(e.err))
}

func (e *listenError) Unwrap() error { return e.err }

// checkLoopback refuses an address other processes on the network could
// reach: the engine has no authentication.
func checkLoopback(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &usageError{err: fmt.Errorf("invalid --addr %q: %w", addr, err)}
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return &usageError{err: fmt.Errorf("refusing to listen on %q: not a loopback address (the engine has no authentication); pass --allow-remote to do it anyway", addr)}
}
