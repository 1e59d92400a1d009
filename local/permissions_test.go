//go:build unix

package local

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// openWarned opens path, collecting the warnings, and writes an item so
// that the logs hold data (creating the table the first time).
func openWarned(t *testing.T, path string) (*Engine, []string) {
	t.Helper()
	var warnings []string
	e, err := Open(path, Options{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	c := clientFor(e)
	c.CreateTable(ctx, graphTableInput("school")) // exists on a second open
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
		Item: map[string]av{"PK": s("a"), "SK": s("a")}}); err != nil {
		t.Fatal(err)
	}
	return e, warnings
}

// TestOpenCreatesOwnerOnlyFiles: whatever the umask, the directories Open
// creates are 0700 and the data file and its logs 0600, during and after
// use, without a warning.
func TestOpenCreatesOwnerOnlyFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	path := filepath.Join(root, "new", "sub", "data.db")
	e, warnings := openWarned(t, path)
	for _, d := range []string{filepath.Join(root, "new"), filepath.Join(root, "new", "sub")} {
		if m := modeOf(t, d); m != 0o700 {
			t.Errorf("%s: mode %04o, want 0700", d, m)
		}
	}
	check := func(when string) {
		for _, f := range dataFiles(path) {
			if m := modeOf(t, f); m != 0o600 {
				t.Errorf("%s %s: mode %04o, want 0600", when, f, m)
			}
		}
	}
	check("open")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	check("closed")
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestOpenWarnsAboutLooserPermissions: a directory others may write and
// files others may read are reported, one sentence each with the fix, and
// left as they were; a directory others may only read is not.
func TestOpenWarnsAboutLooserPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "data.db")
	e, warnings := openWarned(t, path)
	e.Close()
	if len(warnings) != 0 {
		t.Errorf("a directory others can only read: %q", warnings)
	}

	os.Chmod(dir, 0o777)
	os.Chmod(path, 0o644)
	os.Chmod(path+"-wal1", 0o640)
	e, warnings = openWarned(t, path)
	e.Close()
	want := []string{
		"data directory " + dir + " is writable by other users (mode 0777): they could replace the data file or its logs; run chmod go-w " + dir + ", or choose a --data FILE in a directory of your own",
		path + " is open to other users (mode 0644); run chmod 600 " + path,
		path + "-wal1 is open to other users (mode 0640); run chmod 600 " + path + "-wal1",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warnings, want)
	}
	for f, m := range map[string]os.FileMode{dir: 0o777, path: 0o644, path + "-wal1": 0o640, path + "-wal0": 0o600} {
		if got := modeOf(t, f); got != m {
			t.Errorf("%s: mode %04o changed from %04o", f, got, m)
		}
	}
}
