package local

import (
	"errors"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The engine stores everything through these small interfaces: walKV (bbolt
// plus a write-ahead log, walkv.go) for data files, and memKV (memkv.go) for
// InMemory engines. They are the subset of bbolt's API the engine uses, with
// bbolt's rules: slices returned by Get and cursors are valid only inside the
// transaction (and must not be modified), slices passed to Put are never
// modified afterwards (both stores keep them), and a bucket is not modified
// while one of its cursors is in use.

type kvDB interface {
	Update(fn func(tx kvTx) error) error
	// Commit is Update that returns before the commit is durable, with a
	// function that waits until it is (group commit overlaps the wait with
	// the next round).
	Commit(fn func(tx kvTx) error) (durable func() error, err error)
	View(fn func(tx kvTx) error) error
	Close() error
}

type kvTx interface {
	Bucket(name []byte) kvBucket // nil when absent
	CreateBucket(name []byte) (kvBucket, error)
	CreateBucketIfNotExists(name []byte) (kvBucket, error)
	DeleteBucket(name []byte) error // errNoBucket when absent
}

type kvBucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	Cursor() kvCursor
	ForEach(fn func(k, v []byte) error) error
}

type kvCursor interface {
	First() (k, v []byte)
	Last() (k, v []byte)
	Seek(key []byte) (k, v []byte)
	Next() (k, v []byte)
	Prev() (k, v []byte)
}

var errNoBucket = errors.New("bucket not found")

// Both stores refuse what bbolt refuses, when it is asked, so the in-memory
// engine behaves as a data file does, and nothing bbolt would reject reaches
// the write-ahead log — where it would fail every checkpoint and every later
// open.

// checkBucketName refuses what bbolt's CreateBucket refuses.
func checkBucketName(name []byte) error {
	if len(name) == 0 {
		return berrors.ErrBucketNameRequired
	}
	return nil
}

// checkPut refuses what bbolt's Put refuses.
func checkPut(key, value []byte) error {
	switch {
	case len(key) == 0:
		return berrors.ErrKeyRequired
	case len(key) > bolt.MaxKeySize:
		return berrors.ErrKeyTooLarge
	case int64(len(value)) > bolt.MaxValueSize:
		return berrors.ErrValueTooLarge
	}
	return nil
}
