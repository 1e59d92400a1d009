package cmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// servingApp is `adjl local serve` running in process.
type servingApp struct {
	addr        string
	out, errOut *bytes.Buffer
	cancel      context.CancelFunc
	done        chan error
	once        sync.Once
	err         error
}

// runServe runs `adjl local serve` in process with opts, and env as its
// environment when not nil, until stop or the end of the test; it returns
// once the server listens. The test fails if serve does not start, or ends
// in an error.
func runServe(t *testing.T, opts *serveOptions, env map[string]string) *servingApp {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &servingApp{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	a := newApp(&IOStreams{In: strings.NewReader(""), Out: s.out, ErrOut: s.errOut}, nil)
	a.set = &settings{Data: opts.data}
	if env != nil {
		a.getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	}
	ready := make(chan string, 1)
	opts.ready = func(addr string) { ready <- addr }
	go func() { s.done <- a.serveRun(ctx, opts) }()
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case s.addr = <-ready:
	case err := <-s.done:
		t.Fatalf("serve ended early: %v (%s)", err, s.errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	return s
}

// stop cancels serve's context, as SIGINT does through
// signal.NotifyContext, and returns what serveRun returned.
func (s *servingApp) stop() error {
	s.once.Do(func() {
		s.cancel()
		select {
		case s.err = <-s.done:
		case <-time.After(10 * time.Second):
			s.err = errors.New("serve did not stop")
		}
	})
	return s.err
}

// startServe is runServe's address and banner.
func startServe(t *testing.T, opts *serveOptions, env map[string]string) (addr string, out *bytes.Buffer) {
	t.Helper()
	s := runServe(t, opts, env)
	return s.addr, s.out
}

// serveInBackground serves data on a free loopback port until the test
// ends, and returns the server's URL.
func serveInBackground(t *testing.T, data string) string {
	t.Helper()
	addr, _ := startServe(t, &serveOptions{addr: "127.0.0.1:0", data: data}, nil)
	return "http://" + addr
}

// awsCLIEnv is the environment for the AWS CLI in a test: this process's
// without any AWS_ variable, then extra.
func awsCLIEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8000": true, "localhost:8000": true, "[::1]:8000": true, "127.0.0.2:1": true,
		"0.0.0.0:8000": false, ":8000": false, "10.0.0.1:8000": false, "example.internal:80": false,
	} {
		err := checkLoopback(addr, false)
		if (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want ok=%v", addr, err, ok)
		}
		if err != nil && ExitCode(err) != ExitUsage {
			t.Errorf("checkLoopback(%q): exit %d, want 2", addr, ExitCode(err))
		}
		if err := checkLoopback(addr, true); err != nil {
			t.Errorf("--allow-remote %q: %v", addr, err)
		}
	}
	if err := checkLoopback("nonsense", true); err == nil {
		t.Error("an address without a port was accepted")
	}
}

func TestServeRefusesRemote(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "local", "serve", "--addr", "0.0.0.0:0", "--in-memory")
	if r.code != ExitUsage || !strings.Contains(r.err, "--allow-remote") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}

// TestServeAndShutdown starts the engine on a free loopback port, talks
// the DynamoDB protocol to it and stops it by cancelling the context (what
// SIGINT does through signal.NotifyContext).
func TestServeAndShutdown(t *testing.T) {
	isolate(t)
	t.Chdir(t.TempDir())
	srv := runServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true}, nil)
	addr, out := srv.addr, srv.out
	req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "TableNames") {
		t.Errorf("ListTables: %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(out.String(), "listening on http://"+addr) ||
		!strings.Contains(out.String(), "aws dynamodb list-tables --endpoint-url http://"+addr) {
		t.Errorf("banner:\n%s", out.String())
	}
	if err := srv.stop(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if _, err := http.DefaultClient.Do(req.Clone(context.Background())); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// TestServeAddressInUse: a busy port is an unavailable backend (exit 6)
// with a way out.
func TestServeAddressInUse(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := adjl(t, runOpts{}, "local", "serve", "--addr", ln.Addr().String(), "--in-memory")
	want := "adjl: cannot listen on " + ln.Addr().String() + ": bind: address already in use\nhint: pick another address, e.g. --addr 127.0.0.1:8001 (or 127.0.0.1:0 for any free port)\n"
	if r.code != ExitUnreachable || r.err != want {
		t.Errorf("exit %d\n got %q\nwant %q", r.code, r.err, want)
	}
}
