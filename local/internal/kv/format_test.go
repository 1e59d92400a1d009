package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// readFormatOf returns the format kv records.
func readFormatOf(t *testing.T, kv DB) int {
	t.Helper()
	var f int
	if err := kv.View(func(tx Tx) error { f = ReadFormat(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	return f
}

// The file records its format: a store upgrades an older record (or none,
// as files from before the record have) and refuses a newer format, whose
// layout it could misread (an older adjl would read key-only index entries
// as entries without items and answer index queries with nothing).
func TestDataFormatRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	format := func() int {
		kv := openTestWAL(t, path, 1<<20)
		defer kv.Close()
		return readFormatOf(t, kv)
	}
	setFormat := func(fn func(tx Tx) error) {
		kv := openTestWAL(t, path, 1<<20)
		if err := kv.Update(fn); err != nil {
			t.Fatal(err)
		}
		if err := kv.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if f := format(); f != Format {
		t.Fatalf("a new file records format %d, want %d", f, Format)
	}
	setFormat(func(tx Tx) error { return tx.DeleteBucket(versionBucket) }) // as before the record
	if f := format(); f != Format {
		t.Fatalf("a file without a format record was not upgraded: %d", f)
	}
	setFormat(func(tx Tx) error {
		return tx.Bucket(versionBucket).Put(formatKey, binary.BigEndian.AppendUint64(nil, Format+1))
	})
	_, err := OpenFile(path, Options{LockTimeout: time.Second})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Format != Format+1 || fe.Supported != Format || fe.Path != path ||
		!strings.Contains(err.Error(), fmt.Sprintf("has format %d, newer than this adjl reads (%d)", Format+1, Format)) {
		t.Fatalf("a newer format opened: %v", err)
	}
}

// An in-memory store starts with the current format recorded, as a new
// data file does.
func TestMemRecordsFormat(t *testing.T) {
	if f := readFormatOf(t, NewMem()); f != Format {
		t.Fatalf("a new in-memory store records format %d, want %d", f, Format)
	}
}

// A new file's format record goes straight into the bbolt file, before any
// log is read or written; buckets created next go through the log. A crash
// right after leaves the record in the bbolt file, and the next open has
// both.
func TestFormatRecordedBeforeTheLogs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	if err := kv.Update(func(tx Tx) error {
		_, err := tx.CreateBucket([]byte("meta"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	kv.Crash()
	if f, err := FileFormat(path); err != nil || f != Format {
		t.Fatalf("format record in the bbolt file before replay: %d, %v (0: in the log only), want %d", f, err, Format)
	}
	kv = openTestWAL(t, path, 1<<20)
	missing := false
	kv.View(func(tx Tx) error { missing = tx.Bucket([]byte("meta")) == nil; return nil })
	f := readFormatOf(t, kv)
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	if f != Format || missing {
		t.Fatalf("after a crash on creation: format %d, bucket missing: %v", f, missing)
	}
	if f, err := FileFormat(path); err != nil || f != Format {
		t.Fatalf("after a clean close the bbolt file records format %d (%v)", f, err)
	}
}

// openAsNewer opens path's bbolt file and logs as a newer adjl would: no
// format check of this adjl's.
func openAsNewer(t *testing.T, path string) *File {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		t.Fatal("the data file is still locked")
	} else if err != nil {
		t.Fatal(err)
	}
	kv, err := openWAL(db, path, Options{})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return kv
}

// A store that refuses a newer data file refuses it before it touches
// anything: a newer adjl may frame its log records differently (a new op
// byte fails validPayload, so replay would stop there; a new logMagic reads
// as a torn header, so openLog would truncate the log), and replaying them
// would lose its acknowledged writes. The refused open leaves the bbolt
// file and both logs byte for byte as they were and releases the lock.
func TestRefusedFormatLeavesFilesUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	// A newer adjl takes the file over: its record, then writes that a
	// crash leaves in its log only.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(versionBucket).Put(formatKey, binary.BigEndian.AppendUint64(nil, Format+1))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	kv = openAsNewer(t, path)
	mustPut(t, kv, "newer", "k", "v")
	kv.Crash()
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		for _, p := range []string{path, path + "-wal0", path + "-wal1"} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = b
		}
		return m
	}
	before := snapshot()

	_, err = OpenFile(path, Options{LockTimeout: time.Second})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Format != Format+1 {
		t.Fatalf("open of a newer file: %v", err)
	}
	for p, b := range snapshot() {
		if !bytes.Equal(b, before[p]) {
			t.Errorf("the refused open changed %s", filepath.Base(p))
		}
	}
	// The lock is released: the newer adjl can go on.
	kv2 := openAsNewer(t, path)
	defer kv2.Close()
	if got := walGet(t, kv2, "newer", "k"); got != "v" {
		t.Fatalf("the newer adjl's acknowledged write: %q", got)
	}
}
