package cmd

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	a := newApp(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb}, nil)
	a.set = &settings{Data: "unused.db"}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- a.serveRun(ctx, &serveOptions{addr: "127.0.0.1:0", inMemory: true, ready: func(addr string) { ready <- addr }})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve ended early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
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
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
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
