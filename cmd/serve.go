package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/adjl/adjl/local"
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
	auth        bool
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
on Ctrl-C (SIGINT) or SIGTERM.

With --auth, every request must carry an AWS Signature Version 4 made with
the access key pair in ADJL_SERVE_ACCESS_KEY_ID and
ADJL_SERVE_SECRET_ACCESS_KEY (the environment, not flags, so that the secret
stays out of process listings and shell history); other requests are
refused with DynamoDB's errors. --allow-remote requires --auth.`,
		Example: withExamples(
			"adjl local serve",
			"adjl local serve --addr 127.0.0.1:8001 --in-memory",
			"aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000",
			"adjl --endpoint http://127.0.0.1:8000 members CRS#math204",
			"adjl local serve --auth --allow-remote --addr 0.0.0.0:8000",
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
	serve.Flags().StringVar(&opts.addr, "addr", defaultServeAddr, "listen `ADDRESS` (host:port)")
	serve.Flags().BoolVar(&opts.inMemory, "in-memory", false, "keep data in memory only (gone on exit)")
	serve.Flags().BoolVar(&opts.allowRemote, "allow-remote", false, "allow a non-loopback --addr (requires --auth)")
	serve.Flags().BoolVar(&opts.auth, "auth", false, "require requests signed (SigV4) with the key pair in ADJL_SERVE_ACCESS_KEY_ID and ADJL_SERVE_SECRET_ACCESS_KEY")
	c.AddCommand(serve)
	return c
}

func (a *app) serveRun(ctx context.Context, opts *serveOptions) error {
	if opts.allowRemote && !opts.auth {
		return &usageError{err: errors.New("--allow-remote requires --auth: anyone who can reach the address could read and change every table"),
			hint: "set ADJL_SERVE_ACCESS_KEY_ID and ADJL_SERVE_SECRET_ACCESS_KEY and add --auth; clients sign with that pair as their AWS credentials"}
	}
	if err := checkLoopback(opts.addr, opts.allowRemote); err != nil {
		return err
	}
	var verifier *local.SigV4Verifier
	if opts.auth {
		creds, err := serveCredentials(a.getenv)
		if err != nil {
			return err
		}
		verifier = &local.SigV4Verifier{Credentials: creds}
	}
	e, err := openEngineOptions(opts.data, local.Options{InMemory: opts.inMemory, Warn: warnTo(a.io.ErrOut)})
	if err != nil {
		return err
	}
	defer e.Close()
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return &listenError{addr: opts.addr, err: err}
	}
	handler := loopbackGuard(e)
	if verifier != nil {
		handler = verifier.Wrap(e)
	}
	// Bounds for clients that are slow or never finish: a 16 MB request
	// has a minute, an idle connection two.
	srv := &http.Server{Handler: withServePID(handler), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()

	url := "http://" + ln.Addr().String()
	if !opts.inMemory {
		// Commands on the same data file find the server here and talk to it.
		if err := writeServeRecord(opts.data, url, opts.auth); err != nil {
			fmt.Fprintf(a.io.ErrOut, "adjl: warning: cannot record the server's address beside %s (%v): other commands on that data file will wait for it instead\n", opts.data, err)
		}
		defer removeServeRecord(opts.data)
	}
	where := "data " + opts.data
	if opts.inMemory {
		where = "in memory"
	}
	fmt.Fprintf(a.io.Out, "adjl local engine listening on %s (%s)\n", url, where)
	if verifier != nil {
		// Neither half of the pair is printed: adjl hides every credential
		// it knows of from its output, the key id included.
		fmt.Fprintf(a.io.Out, "requests must be signed with the key pair in %s and %s\n", envServeKeyID, envServeSecret)
	}
	if !a.set.Quiet {
		if verifier != nil {
			fmt.Fprintf(a.io.Out, "try: AWS_ACCESS_KEY_ID=\"$ADJL_SERVE_ACCESS_KEY_ID\" AWS_SECRET_ACCESS_KEY=\"$ADJL_SERVE_SECRET_ACCESS_KEY\" aws dynamodb list-tables --endpoint-url %s\n", url)
		} else {
			fmt.Fprintf(a.io.Out, "try: aws dynamodb list-tables --endpoint-url %s\n", url)
		}
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

// Environment variables holding the access key pair of `local serve --auth`.
const (
	envServeKeyID  = "ADJL_SERVE_ACCESS_KEY_ID"
	envServeSecret = "ADJL_SERVE_SECRET_ACCESS_KEY"
)

// serveCredentials reads the key pair --auth verifies signatures with.
func serveCredentials(getenv func(string) (string, bool)) (local.Credentials, error) {
	id, secret := envValue(getenv, envServeKeyID), envValue(getenv, envServeSecret)
	var missing []string
	if id == "" {
		missing = append(missing, envServeKeyID)
	}
	if secret == "" {
		missing = append(missing, envServeSecret)
	}
	if len(missing) > 0 {
		return local.Credentials{}, &usageError{err: fmt.Errorf("--auth needs the access key pair requests are signed with: %s not set", strings.Join(missing, " and ")),
			hint: "export " + envServeKeyID + " and " + envServeSecret + " (a key id and a secret of your choosing), then run adjl local serve --auth again"}
	}
	return local.Credentials{AccessKeyID: id, SecretAccessKey: secret}, nil
}

// checkLoopback refuses an address other processes on the network could
// reach unless allowRemote (which needs --auth).
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
	return &usageError{err: fmt.Errorf("refusing to listen on %q: not a loopback address; pass --auth --allow-remote to serve it to others with signed requests only", addr)}
}
