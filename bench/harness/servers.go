package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// target is one DynamoDB-compatible endpoint under test.
type target struct {
	Name     string // adjl, moto, dynalite
	Endpoint string // http://127.0.0.1:PORT
	Detail   string // how it was started, for the report
	stop     func() error
	cpu      func() time.Duration // CPU used so far by the server's processes; nil in process
	pid      int                  // server process (and group) id; 0 in process
}

// Stop ends the target's server and waits for it.
func (t *target) Stop() error {
	if t.stop == nil {
		return nil
	}
	err := t.stop()
	t.stop = nil
	return err
}

// freePort asks the kernel for an unused loopback port. The port is released
// before the server binds it; on a quiet machine nothing takes it in between.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startProcess runs a server in its own process group (so its children die
// with it), logging to logPath, and waits until ready answers or the process
// exits.
func startProcess(ctx context.Context, name string, logPath string, ready func(context.Context) error, argv ...string) (stop func() error, pid int, err error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, 0, fmt.Errorf("create %s log: %w", name, err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Own process group (so its children die with it); killed if the harness dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, 0, fmt.Errorf("start %s: %w", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() error {
		defer logf.Close()
		select {
		case <-exited:
			return nil
		default:
		}
		// Negative pid: the whole process group (npm/pyenv shims spawn children).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		return nil
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			logf.Close()
			return nil, 0, fmt.Errorf("%s exited before it was ready (%v); see %s", name, err, logPath)
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ready(rctx)
		cancel()
		if err == nil {
			return stop, cmd.Process.Pid, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return nil, 0, fmt.Errorf("%s not ready after 60s: %w; see %s", name, err, logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sdkReady reports whether a DynamoDB endpoint answers ListTables.
func sdkReady(endpoint string) func(context.Context) error {
	hc := &http.Client{Transport: newTransport(1)}
	c := newClient(endpoint, hc)
	return func(ctx context.Context) error {
		_, err := c.ListTables(ctx, nil)
		return err
	}
}

// startMoto starts moto's moto_server on a free loopback port (in memory).
func startMoto(ctx context.Context, outDir string) (*target, error) {
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		return nil, errors.New("moto_server not on PATH (bench/install.sh installs the pinned moto)")
	}
	return startOnLoopback(ctx, "moto", "moto_server", "moto_server "+motoVersion(), filepath.Join(outDir, "moto.log"), func(port string) []string {
		return []string{bin, "-H", "127.0.0.1", "-p", port}
	})
}

// motoVersion asks the installed moto for its version, for the report.
func motoVersion() string {
	out, err := exec.Command("python3", "-c", "import moto; print(moto.__version__)").Output()
	if err != nil {
		return "(version unknown)"
	}
	return string(bytes.TrimSpace(out))
}

// startDynalite starts dynalite (installed by bench/install.sh) in memory.
// Table state changes are instant so that setup does not wait 500 ms per table.
func startDynalite(ctx context.Context, benchDir, outDir string) (*target, error) {
	script := filepath.Join(benchDir, "node_modules", "dynalite", "cli.js")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("dynalite not installed (run bench/install.sh): %w", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node not on PATH")
	}
	detail := "dynalite " + dynaliteVersion(benchDir) + " (memory)"
	return startOnLoopback(ctx, "dynalite", "dynalite", detail, filepath.Join(outDir, "dynalite.log"), func(port string) []string {
		return []string{node, script, "--host", "127.0.0.1", "--port", port,
			"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"}
	})
}

// startAdjlServe starts `adjl local serve --in-memory` from the built binary.
func startAdjlServe(ctx context.Context, bin, outDir, logName string) (*target, error) {
	return startOnLoopback(ctx, "adjl", "adjl local serve", "adjl local serve --in-memory", filepath.Join(outDir, logName), func(port string) []string {
		return []string{bin, "local", "serve", "--in-memory", "--addr", "127.0.0.1:" + port}
	})
}

// startOnLoopback starts the server of target name (process, for messages)
// on a free loopback port (argv returns its command line for the port) and
// returns once it answers the SDK, with its output in logPath.
func startOnLoopback(ctx context.Context, name, process, detail, logPath string, argv func(port string) []string) (*target, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	ep := "http://127.0.0.1:" + strconv.Itoa(port)
	args := argv(strconv.Itoa(port))
	stop, pid, err := startProcess(ctx, process, logPath, sdkReady(ep), args...)
	if err != nil {
		return nil, err
	}
	return &target{Name: name, Endpoint: ep, Detail: detail, stop: stop, cpu: groupCPU(pid), pid: pid}, nil
}

// hasServe reports whether the adjl binary has the `local serve` command.
func hasServe(bin string) bool {
	if _, err := os.Stat(bin); err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "local", "serve", "--help").CombinedOutput()
	return err == nil && bytes.Contains(out, []byte("--in-memory")) && bytes.Contains(out, []byte("--addr"))
}

// dynaliteVersion reads the installed dynalite's package.json.
func dynaliteVersion(benchDir string) string {
	b, err := os.ReadFile(filepath.Join(benchDir, "node_modules", "dynalite", "package.json"))
	if err != nil {
		return "?"
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return "?"
	}
	return p.Version
}
