package kv

import (
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Format is the layout of the buckets and logs, recorded in the store so
// that an engine never misreads a file a newer one wrote. 1 (no record):
// index entry values hold the table key; 2: index entries are key-only, and
// the engine reads either kind right. A file store upgrades the record when
// it opens an older file and refuses a newer one before it reads the logs,
// whose records a newer engine may have framed differently.
const Format = 2

// versionBucket holds the format record; a name no bucket of the engine's
// can have.
var versionBucket, formatKey = []byte("version"), []byte("format")

// FormatError reports a data file written by a newer engine, in a layout
// this one could misread.
type FormatError struct {
	Path              string
	Format, Supported int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("data file %s has format %d, newer than this adjl reads (%d)", e.Path, e.Format, e.Supported)
}

// ReadFormat returns the format tx's store records (1 when none).
func ReadFormat(tx Tx) int {
	if b := tx.Bucket(versionBucket); b != nil {
		return formatOf(b.Get(formatKey))
	}
	return 1
}

// writeFormat records the current format.
func writeFormat(tx Tx) error {
	b, err := tx.CreateBucketIfNotExists(versionBucket)
	if err == nil {
		err = b.Put(formatKey, formatRecord())
	}
	if err != nil {
		return fmt.Errorf("record data file format: %w", err)
	}
	return nil
}

// formatRecord encodes the current format.
func formatRecord() []byte { return binary.BigEndian.AppendUint64(nil, Format) }

// formatOf decodes a format record; none (nil) is format 1.
func formatOf(v []byte) int {
	if len(v) == 8 {
		return int(binary.BigEndian.Uint64(v))
	}
	return 1
}

// checkFileFormat refuses a file of a newer format before its logs are
// replayed (a newer engine may frame their records differently; replaying
// them here would retire what this engine cannot read) and records the
// current format in the bbolt file itself when it is older or missing —
// one bbolt commit when a file is created or upgraded, none otherwise.
func checkFileFormat(db *bolt.DB, path string) error {
	format := 1
	if err := db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(versionBucket); b != nil {
			format = formatOf(b.Get(formatKey))
		}
		return nil
	}); err != nil {
		return fmt.Errorf("read data file %s: %w", path, err)
	}
	switch {
	case format > Format:
		return &FormatError{Path: path, Format: format, Supported: Format}
	case format == Format:
		return nil
	}
	err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(versionBucket)
		if err != nil {
			return err
		}
		return b.Put(formatKey, formatRecord())
	})
	if err != nil {
		return fmt.Errorf("record data file format in %s: %w", path, err)
	}
	return nil
}

// FileFormat returns the format recorded in the bbolt file at path (0 when
// none), read without its write-ahead logs: what a file holds on its own
// after a checkpoint or a crash. The file must not be open.
func FileFormat(path string) (int, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("open data file %s: %w", path, err)
	}
	defer db.Close()
	format := 0
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(versionBucket); b != nil {
			if v := b.Get(formatKey); v != nil {
				format = formatOf(v)
			}
		}
		return nil
	})
	return format, err
}
