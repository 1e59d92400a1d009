package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestPageSizeCrashRecovery: files made with the page sizes of earlier
// versions (4 KiB, then 64 KiB) and a new file all recover a crash from the
// logs (records spanning checkpoints, values larger than a page), keep their
// page size, and still open when their first meta page is damaged (bbolt
// must find the second meta one page in).
func TestPageSizeCrashRecovery(t *testing.T) {
	for _, oldPage := range []int{4096, 64 << 10, 0} {
		name := "new"
		if oldPage != 0 {
			name = fmt.Sprintf("old %d-byte pages", oldPage)
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			wantPage := dataPageSize
			if oldPage != 0 {
				wantPage = oldPage
				db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: oldPage})
				if err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			val := func(i int) string { return strings.Repeat(fmt.Sprintf("v%05d.", i), 1+(i%7)*3000) }
			kv := openTestWAL(t, path, 256<<10)
			for i := range 300 {
				mustPut(t, kv, "b", fmt.Sprintf("k%05d", i), val(i))
			}
			kv.Crash()
			for round := range 2 {
				kv = openTestWAL(t, path, 256<<10)
				for i := range 300 {
					if got := walGet(t, kv, "b", fmt.Sprintf("k%05d", i)); got != val(i) {
						t.Fatalf("round %d: k%05d has %d bytes, want %d", round, i, len(got), len(val(i)))
					}
				}
				if got := kv.Stats().PageSize; got != wantPage {
					t.Fatalf("page size %d, want %d", got, wantPage)
				}
				if err := kv.Close(); err != nil {
					t.Fatal(err)
				}
			}
			// Damage the first meta page: bbolt falls back to the second.
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(make([]byte, 64), 16); err != nil {
				t.Fatal(err)
			}
			f.Close()
			kv, err = OpenFile(path, Options{LockTimeout: 5 * time.Second})
			if err != nil {
				t.Fatalf("open with a damaged first meta page: %v", err)
			}
			if got := kv.Stats().PageSize; got != wantPage {
				t.Fatalf("page size %d after meta fallback, want %d", got, wantPage)
			}
			kv.Close()
		})
	}
}

// TestDataFilePageSize: new data files use dataPageSize; a file made with
// another page size (as data files were before) keeps it and works as ever:
// what is written reads back after a clean close and reopen.
func TestDataFilePageSize(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	db, err := bolt.Open(old, 0o600, &bolt.Options{PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tc := range []struct {
		path string
		want int
	}{{filepath.Join(dir, "new.db"), dataPageSize}, {old, 4096}} {
		for round := range 2 {
			kv := openTestWAL(t, tc.path, 1<<20)
			if round == 0 {
				mustPut(t, kv, "x/school/GSI1", "CRS#m/STU#a", "v")
			}
			if got := walGet(t, kv, "x/school/GSI1", "CRS#m/STU#a"); got != "v" {
				t.Fatalf("%s round %d: read %q", tc.path, round, got)
			}
			if err := kv.Close(); err != nil {
				t.Fatal(err)
			}
		}
		db, err := bolt.Open(tc.path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := db.Info().PageSize; got != tc.want {
			t.Errorf("%s: page size %d, want %d", tc.path, got, tc.want)
		}
		db.Close()
	}
}
