package kv

import (
	"errors"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DB is a store: transactions over named buckets of ordered keys.
type DB interface {
	// Update runs fn in a write transaction and returns once its changes
	// are durable; an error from fn rolls every change back.
	Update(fn func(tx Tx) error) error
	// Commit is Update that returns before the commit is durable, with a
	// function that waits until it is: group commit overlaps the wait with
	// the next round's work.
	Commit(fn func(tx Tx) error) (durable func() error, err error)
	// View runs fn in a read-only transaction.
	View(fn func(tx Tx) error) error
	Close() error
}

// Tx is a transaction. Its buckets are valid only inside it.
type Tx interface {
	Bucket(name []byte) Bucket // nil when absent
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error // ErrNoBucket when absent
}

// Bucket is an ordered map of byte keys to byte values.
type Bucket interface {
	Get(key []byte) []byte // nil when absent
	Put(key, value []byte) error
	Delete(key []byte) error
	Cursor() Cursor
	ForEach(fn func(k, v []byte) error) error
}

// Cursor walks a bucket in key order; every move returns nil keys once it
// leaves the bucket.
type Cursor interface {
	First() (k, v []byte)
	Last() (k, v []byte)
	Seek(key []byte) (k, v []byte) // the first key >= key
	Next() (k, v []byte)
	Prev() (k, v []byte)
}

var (
	// ErrNoBucket is DeleteBucket's error for a bucket that does not exist.
	ErrNoBucket    = errors.New("bucket not found")
	errReadOnly    = errors.New("write in a read-only transaction")
	errBucketExist = errors.New("bucket already exists")
)

// Both stores refuse what bbolt refuses, when it is asked, so the in-memory
// store behaves as a data file does, and nothing bbolt would reject reaches
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

// runOrRollback runs a transaction's body and calls rollback unless it
// succeeds — on an error, and on a panic, which must not leave half a
// transaction behind for the next one to see.
func runOrRollback(rollback func(), body func() error) error {
	ok := false
	defer func() {
		if !ok {
			rollback()
		}
	}()
	if err := body(); err != nil {
		return err
	}
	ok = true
	return nil
}

// noWait is the durable function of a commit that waits for nothing.
func noWait() error { return nil }
