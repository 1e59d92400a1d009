package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The engine creates what it stores with owner-only permissions: the data
// directory (and any missing parent) 0700, the data file and its logs
// 0600. What already exists is the user's to decide: Open changes no
// permission it did not set, and reports through Options.Warn what lets
// other users in.

// dataFiles are the files the engine keeps for the data file at path.
func dataFiles(path string) []string {
	return []string{path, path + "-wal0", path + "-wal1"}
}

// permissionProblems describes each way other users can read or change
// the data at path: a data file or log they may read or write, or one they
// own, and a directory they may write (and so replace a file, or create a
// log before the engine does). A directory they may only read is fine: it
// shows the files' names, not their contents.
func permissionProblems(path string) []string {
	var out []string
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o022 != 0 {
		out = append(out, fmt.Sprintf("data directory %s is writable by other users (mode %04o): they could replace the data file or its logs; run chmod go-w %s, or choose a --data FILE in a directory of your own",
			dir, fi.Mode().Perm(), dir))
	}
	for _, f := range dataFiles(path) {
		fi, err := os.Stat(f)
		if errors.Is(err, fs.ErrNotExist) || err != nil {
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			out = append(out, fmt.Sprintf("%s is open to other users (mode %04o); run chmod 600 %s", f, fi.Mode().Perm(), f))
		}
		if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
			out = append(out, fmt.Sprintf("%s belongs to another user (uid %d), who can read and change it", f, uid))
		}
	}
	return out
}
