package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDataFileOnAFullDisk puts the data file on a real file system that
// fills up: a small tmpfs mounted in a private mount namespace (the test
// binary runs itself again under `unshare -m`, or `unshare -rm` when not
// root, and skips where neither is allowed). Links are written until the
// disk is full, first by one process after another on the data file, then
// through `adjl local serve`. Every command that fails says so clearly -
// exit 6 and "no space left on device", never exit 10 or a panic - and,
// once there is room again, nothing acknowledged is lost: every link that
// reported "created" is there, every counter equals its edges and no item
// is partial.
func TestDataFileOnAFullDisk(t *testing.T) {
	if os.Getenv("ADJL_DISKFULL_INNER") == "" {
		runInMountNamespace(t)
		return
	}
	mnt := filepath.Join(os.Getenv("ADJL_DISKFULL_DIR"), "disk")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=32m,mode=0755"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	w := newWorkspaceIn(t, mnt, "local")
	w.createTables()
	l := newLedger()
	pad := strings.Repeat("x", 2000)
	next := 0

	// fill takes all but leave bytes of the file system with a file of
	// its own, and returns a function that deletes it.
	fill := func(leave int64) func() {
		var st syscall.Statfs_t
		if err := syscall.Statfs(mnt, &st); err != nil {
			t.Fatal(err)
		}
		size := int64(st.Bavail)*int64(st.Bsize) - leave
		path := filepath.Join(mnt, "filler")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, size); err != nil {
			t.Fatalf("fallocate %d bytes: %v", size, err)
		}
		f.Close()
		return func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
	}

	// linkUntilFull links new edges until four commands in a row fail,
	// and checks how each failure is reported.
	linkUntilFull := func(endpoint string) (created, failed int) {
		for consecutive := 0; consecutive < 4 && next < 20_000; {
			next++
			s, c := fmt.Sprintf("s%05d", next), fmt.Sprintf("c%d", next%5)
			op := stormOp{e: edge{"enrollment", "STU#" + s, "CRS#" + c}, link: true, args: []string{"enroll", s, c, "--set", "grade=" + pad}}
			r := w.runOn(context.Background(), endpoint, op.args...)
			l.record(op, r)
			if r.code == 0 {
				created++
				consecutive = 0
				continue
			}
			if failed++; failed == 1 {
				t.Logf("first failure: exit %d: %s", r.code, strings.TrimSpace(r.stderr))
			}
			consecutive++
			if r.code != 6 || !strings.Contains(r.stderr, "no space left on device") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("a command on the full disk: %v", r)
			}
		}
		return created, failed
	}

	// One process after another on the data file.
	release := fill(128 << 10)
	created, failed := linkUntilFull("local")
	if failed == 0 {
		t.Fatalf("the disk never filled (%d links)", created)
	}
	t.Logf("data file: %d links acknowledged, then %d failed on the full disk", created, failed)
	rows := filepath.Join(os.Getenv("ADJL_DISKFULL_DIR"), "rows.csv")
	var csvText strings.Builder
	csvText.WriteString("from,to,grade\n")
	for i := range 2000 {
		fmt.Fprintf(&csvText, "i%04d,c%d,%s\n", i, i%5, pad)
	}
	writeFile(t, rows, []byte(csvText.String()))
	for _, args := range [][]string{{"courses", "s00001"}, {"counters", "verify"}, {"import", "enrollment", rows, "--quiet"}} {
		start := time.Now()
		r := w.run(context.Background(), args...)
		if r.code != 0 && (r.code != 6 || !strings.Contains(r.stderr, "no space left on device")) {
			t.Errorf("on the full disk: %v", r)
		}
		t.Logf("on the full disk: adjl %s: exit %d in %v: %s", strings.Join(args, " "), r.code, time.Since(start).Round(time.Millisecond), strings.SplitN(r.stderr, "\n", 2)[0])
		if args[0] == "import" {
			// Its edges are in the ledger: written, or perhaps written.
			for i := range 2000 {
				op := stormOp{e: edge{"enrollment", fmt.Sprintf("STU#i%04d", i), fmt.Sprintf("CRS#c%d", i%5)}, link: true}
				l.mu.Lock()
				if r.code == 0 {
					l.tally(op.e).created++
				} else {
					l.tally(op.e).pendingLinks++
				}
				l.mu.Unlock()
			}
		}
	}
	release()
	w.checkStorm("local", l)

	// One server, several requests.
	srv, _ := w.serve()
	release = fill(128 << 10)
	created, failed = linkUntilFull("local")
	t.Logf("adjl local serve: %d links acknowledged, then %d failed on the full disk", created, failed)
	if failed == 0 {
		t.Errorf("the disk never filled under the server (%d links)", created)
	}
	release()
	_ = srv.Process.Signal(os.Interrupt)
	if err := srv.Wait(); err != nil {
		t.Logf("adjl local serve after the full disk: %v", err)
	}
	w.checkStorm("local", l)
	// The file works again.
	if r := w.run(context.Background(), "enroll", "s99999", "c1"); r.code != 0 || !strings.HasPrefix(r.stdout, "created ") {
		t.Errorf("after the disk has room again: %v", r)
	}
}

// runInMountNamespace runs TestDataFileOnAFullDisk again in a private
// mount namespace, where it may mount a tmpfs without touching the host.
func runInMountNamespace(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) not found: cannot make a small file system to fill")
	}
	flags := []string{"-rm"} // a user namespace where we are root
	if os.Geteuid() == 0 {
		flags = []string{"-m"}
	}
	if out, err := exec.Command(unshare, append(flags, "true")...).CombinedOutput(); err != nil {
		t.Skipf("cannot make a private mount namespace (unshare %s: %v %s): the full-disk test needs one", strings.Join(flags, " "), err, out)
	}
	args := append(flags, os.Args[0], "-test.run=^TestDataFileOnAFullDisk$", "-test.v", "-test.count=1")
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), "ADJL_DISKFULL_INNER=1", "ADJL_DISKFULL_DIR="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("in a private mount namespace (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("the full-disk test failed: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP") || !strings.Contains(string(out), "--- PASS: TestDataFileOnAFullDisk") {
		t.Fatal("the full-disk test did not run")
	}
}
