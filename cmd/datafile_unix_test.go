//go:build unix

package cmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestServeRecordOfAnotherUsersProcessIsIgnored: the server that wrote a
// record ran as this user (only this user's records are read), so when the
// process id it names now belongs to another user, the id was reused and
// whoever answers on the recorded address is not that server.
func TestServeRecordOfAnotherUsersProcessIsIgnored(t *testing.T) {
	isolate(t)
	pid := 1 // init: root's
	if os.Getuid() == 0 {
		sleep := exec.Command("sleep", "60")
		sleep.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if err := sleep.Start(); err != nil {
			t.Skipf("cannot start a process as another user: %v", err)
		}
		defer func() { sleep.Process.Kill(); sleep.Wait() }()
		pid = sleep.Process.Pid
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(servePIDHeader, strconv.Itoa(pid))
		io.WriteString(w, serveBanner+"\n")
	}))
	defer srv.Close()
	data := filepath.Join(t.TempDir(), "data.db")
	writeFile(t, serveRecordPath(data), fmt.Sprintf(`{"url": %q, "pid": %d}`, srv.URL, pid))
	if got, ok := runningServer(context.Background(), data); ok {
		t.Errorf("record naming process %d of another user followed to %s", pid, got.URL)
	}
}
