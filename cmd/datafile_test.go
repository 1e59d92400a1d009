package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
)

// TestCommandUsesTheServerHoldingTheDataFile: while `adjl local serve`
// holds a data file, a command on the same --data talks to it instead of
// waiting for the file; once it stops, the command opens the file itself.
func TestCommandUsesTheServerHoldingTheDataFile(t *testing.T) {
	s := newSession(t, "school.yaml")
	stop := make(chan struct{})
	t.Run("served", func(t *testing.T) {
		url := serveInBackground(t, s.data)
		rec, ok := readServeRecord(s.data)
		if !ok || rec.URL != url || rec.PID != os.Getpid() {
			t.Fatalf("serve record %+v %v, want %s", rec, ok, url)
		}
		for _, args := range [][]string{{"table", "create"}, {"enroll", "a91", "math204"}} {
			start := time.Now()
			r := adjl(t, runOpts{dir: s.dir}, append([]string{"--schema", s.schema, "--data", s.data, "--verbose"}, args...)...)
			if r.code != 0 || !strings.Contains(r.err, "backend: local (adjl local serve at "+url+", data file "+s.data+")") {
				t.Fatalf("%v: exit %d: %s", args, r.code, r.err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%v took %v: it waited for the file", args, d)
			}
		}
		close(stop)
	})
	<-stop
	if _, err := os.Stat(serveRecordPath(s.data)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve record left after shutdown: %v", err)
	}
	r := s.run("--verbose", "members", "math204")
	if r.code != 0 || r.out != "STU#a91\t\t\n" || !strings.Contains(r.err, "backend: local (file "+s.data+")") {
		t.Errorf("after serve stopped: exit %d %q %q", r.code, r.out, r.err)
	}
}

// TestStaleServeRecordIsIgnored: a record left by a killed server names
// nobody; the command opens the data file.
func TestStaleServeRecordIsIgnored(t *testing.T) {
	s := newSession(t, "school.yaml")
	writeFile(t, serveRecordPath(s.data), `{"url": "http://127.0.0.1:1", "pid": 999999999}`)
	r := s.run("--verbose", "table", "create")
	if r.code != 0 || !strings.Contains(r.err, "backend: local (file "+s.data+")") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}

// TestServeRecordTrustedOnlyFromItsServer: a command follows a serve
// record only when this user wrote it, nobody else could have, and the
// server answering at its address is the process it names (not another
// adjl local serve started since on the same port, for another file).
func TestServeRecordTrustedOnlyFromItsServer(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	served := filepath.Join(dir, "other.db")
	// A record left with loose permissions is replaced by a private one.
	writeFile(t, serveRecordPath(served), `{"url": "http://127.0.0.1:1", "pid": 1}`)
	if err := os.Chmod(serveRecordPath(served), 0o666); err != nil {
		t.Fatal(err)
	}
	url := serveInBackground(t, served)
	data := filepath.Join(dir, "data.db")
	school := example(t, "school.yaml")
	for _, tc := range []struct {
		name  string
		write func(path string)
	}{
		{"another server on the recorded address", func(path string) {
			writeFile(t, path, fmt.Sprintf(`{"url": %q, "pid": %d}`, url, os.Getppid()))
		}},
		{"a record anyone could have written", func(path string) {
			writeFile(t, path, fmt.Sprintf(`{"url": %q, "pid": %d}`, url, os.Getpid()))
			if err := os.Chmod(path, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's record", func(path string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the record to another user")
			}
			writeFile(t, path, fmt.Sprintf(`{"url": %q, "pid": %d}`, url, os.Getpid()))
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(serveRecordPath(data))
			tc.write(serveRecordPath(data))
			r := adjl(t, runOpts{dir: dir}, "--schema", school, "--data", data, "--verbose", "table", "create")
			if r.code != 0 || !strings.Contains(r.err, "backend: local (file "+data+")") {
				t.Errorf("exit %d: %s", r.code, r.err)
			}
		})
	}
	// The record serve writes itself is followed.
	if got, ok := runningServer(context.Background(), served); !ok || got.URL != url {
		t.Errorf("own record: %+v %v", got, ok)
	}
}

// TestSlowServeIsStillFollowed: a server that takes longer than a moment
// to answer (many clients on a loaded machine) is still the one to use: its
// process holds the data file, so opening the file instead would fail.
func TestSlowServeIsStillFollowed(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		w.Header().Set(servePIDHeader, strconv.Itoa(os.Getpid()))
		io.WriteString(w, serveBanner+"\n")
	}))
	defer srv.Close()
	data := filepath.Join(t.TempDir(), "data.db")
	writeFile(t, serveRecordPath(data), fmt.Sprintf(`{"url": %q, "pid": %d}`, srv.URL, os.Getpid()))
	if got, ok := runningServer(context.Background(), data); !ok || got.URL != srv.URL {
		t.Errorf("slow server not followed: %+v %v", got, ok)
	}
}

// TestWaitingForAnotherProcessSaysSo: a command whose data file another
// process holds says, after a second, that it is waiting, and goes on when
// the file is free.
func TestWaitingForAnotherProcessSaysSo(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	// The engine flocks its file: an engine opened here is another holder,
	// as far as the command's own open is concerned.
	holder, err := local.Open(s.data, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(1500*time.Millisecond, func() { holder.Close() })
	r := s.run("members", "math204")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	want := "adjl: waiting for data file " + s.data + ": another adjl process is using it (run `adjl local serve` to share one engine)\n"
	if r.err != want {
		t.Errorf("stderr %q, want %q", r.err, want)
	}
}

// TestNoWaitingNoticeForTheCommandsOwnOpen: an open that has the lock but
// takes over a second (recovering its logs) is not another process, and
// nothing is printed once the open has returned.
func TestNoWaitingNoticeForTheCommandsOwnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	var buf bytes.Buffer
	slowOpen := func(path string, lockTimeout time.Duration) (engine, error) {
		e, err := openEngineWithin(path, lockTimeout)
		time.Sleep(lockNoticeAfter + 300*time.Millisecond) // holds the lock, still opening
		return e, err
	}
	e, err := openDataFile(&buf, path, slowOpen)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	e.Close()
	if buf.Len() > 0 {
		t.Errorf("notice with no other process: %q", buf.String())
	}
}

// TestWaitingForAnotherProcessGivesUpWithTheWholeWait: the lock error after
// the notice names the whole time waited.
func TestWaitingForAnotherProcessGivesUpWithTheWholeWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	holder, err := local.Open(path, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var buf bytes.Buffer
	quick := func(path string, lockTimeout time.Duration) (engine, error) {
		return openEngineWithin(path, min(lockTimeout, 100*time.Millisecond))
	}
	_, err = openDataFile(&buf, path, quick)
	var held *local.LockedError
	if !errors.As(err, &held) || held.Timeout != lockNoticeAfter+100*time.Millisecond {
		t.Errorf("error %v", err)
	}
	if strings.Count(buf.String(), "waiting for data file") != 1 {
		t.Errorf("notice %q", buf.String())
	}
}

// TestSettingsThatDoNotApplyWarn: --region and --profile mean nothing to
// the embedded engine, --data nothing to a server: each says so.
func TestSettingsThatDoNotApplyWarn(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	r := s.expect(ExitFalse, "--region", "eu-west-1", "get", "STU#a91")
	if r.err != "adjl: warning: region (flag --region) does not apply to the embedded engine (--endpoint local); ignored\nadjl: STU#a91: item not found\n" {
		t.Errorf("region on local: %q", r.err)
	}
	t.Setenv("ADJL_PROFILE", "prod")
	r = s.expect(ExitFalse, "get", "STU#a91")
	if !strings.HasPrefix(r.err, "adjl: warning: profile (environment ADJL_PROFILE) does not apply to the embedded engine") {
		t.Errorf("profile on local: %q", r.err)
	}
	os.Unsetenv("ADJL_PROFILE")
	r = adjl(t, runOpts{dir: s.dir}, "--schema", s.schema, "--endpoint", "http://127.0.0.1:1", "--data", "x.db", "get", "STU#a91")
	if r.code != ExitUnreachable || !strings.HasPrefix(r.err, "adjl: warning: data (flag --data) applies only to the embedded engine (--endpoint local); ignored\n") {
		t.Errorf("data on a URL: exit %d %q", r.code, r.err)
	}
}

// TestEngineMemoryLimit: a command that runs the embedded engine on a data
// file sets the process's soft memory limit, unless GOMEMLIMIT is set; one
// on a throw-away in-memory engine does not.
func TestEngineMemoryLimit(t *testing.T) {
	s := newSession(t, "school.yaml")
	var set []int64
	limit := func(n int64) int64 { set = append(set, n); return 0 }
	for _, c := range []struct {
		env  string
		args []string
		want []int64
	}{
		{"", []string{"members", "math204"}, nil}, // no data file yet: in memory
		{"", []string{"table", "create"}, []int64{engineMemoryLimit}},
		{"", []string{"enroll", "a91", "math204"}, []int64{engineMemoryLimit}},
		{"200MiB", []string{"enroll", "a92", "math204"}, nil},
	} {
		set = nil
		t.Setenv("GOMEMLIMIT", c.env)
		r := adjl(t, runOpts{dir: s.dir, memLimit: limit}, append([]string{"--schema", s.schema, "--data", s.data}, c.args...)...)
		if r.code != 0 && c.args[0] != "members" {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.err)
		}
		if !slices.Equal(set, c.want) {
			t.Errorf("GOMEMLIMIT=%q %v: memory limits set %v, want %v", c.env, c.args, set, c.want)
		}
	}
}
