//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func permOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestDataFilesAreOwnerOnly: the data directory adjl creates is 0700, the
// data file, its logs and the serve record 0600; a serve record left with
// looser permissions is replaced by a 0600 one.
func TestDataFilesAreOwnerOnly(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	data := filepath.Join(root, "state", "data.db")
	schema := example(t, "school.yaml")
	r := adjl(t, runOpts{dir: root}, "--schema", schema, "--data", data, "table", "create")
	if r.code != ExitOK || strings.Contains(r.err, "warning") {
		t.Fatalf("table create: exit %d: %s", r.code, r.err)
	}
	if m := permOf(t, filepath.Dir(data)); m != 0o700 {
		t.Errorf("data directory mode %04o, want 0700", m)
	}
	for _, f := range []string{data, data + "-wal0", data + "-wal1"} {
		if m := permOf(t, f); m != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", f, m)
		}
	}
	writeFile(t, serveRecordPath(data), `{"url":"http://127.0.0.1:1","pid":1}`)
	os.Chmod(serveRecordPath(data), 0o644)
	startServe(t, &serveOptions{addr: "127.0.0.1:0", data: data}, nil)
	if m := permOf(t, serveRecordPath(data)); m != 0o600 {
		t.Errorf("serve record mode %04o, want 0600", m)
	}
	if rec, ok := readServeRecord(data); !ok || rec.PID != os.Getpid() {
		t.Errorf("serve record %+v not replaced", rec)
	}
}

// TestLooserDataDirectoryIsReported: a data directory other users may write
// is named in a warning with the fix, and left as it is; the command still
// runs.
func TestLooserDataDirectoryIsReported(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data.db")
	schema := example(t, "school.yaml")
	if r := adjl(t, runOpts{dir: dir}, "--schema", schema, "--data", data, "table", "create"); r.code != ExitOK {
		t.Fatalf("table create: exit %d: %s", r.code, r.err)
	}
	os.Chmod(dir, 0o777)
	r := adjl(t, runOpts{dir: dir}, "--schema", schema, "--data", data, "get", "STU#a91")
	want := "adjl: warning: data directory " + dir + " is writable by other users (mode 0777): they could replace the data file or its logs; run chmod go-w " + dir + ", or choose a --data FILE in a directory of your own\n"
	if r.code != ExitFalse || !strings.HasPrefix(r.err, want) {
		t.Errorf("exit %d\n got %q\nwant prefix %q", r.code, r.err, want)
	}
	if m := permOf(t, dir); m != 0o777 {
		t.Errorf("directory mode changed to %04o", m)
	}
}
