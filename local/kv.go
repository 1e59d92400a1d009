package local

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// The engine stores everything through these small interfaces: bbolt for data
// files, and memKV for InMemory engines (see memkv.go). They are the subset of
// bbolt's API the engine uses, with bbolt's rules: slices returned by Get and
// cursors are valid only inside the transaction (and must not be modified),
// slices passed to Put are never modified afterwards (memKV keeps them), and
// a bucket is not modified while one of its cursors is in use.

type kvDB interface {
	Update(fn func(tx kvTx) error) error
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

// boltKV adapts a bbolt database.
type boltKV struct{ db *bolt.DB }

func (s boltKV) Update(fn func(kvTx) error) error {
	return s.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (s boltKV) View(fn func(kvTx) error) error {
	return s.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (s boltKV) Close() error { return s.db.Close() }

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Bucket(name []byte) kvBucket {
	if b := t.tx.Bucket(name); b != nil {
		return boltBucket{b}
	}
	return nil
}

func (t boltTx) CreateBucket(name []byte) (kvBucket, error) {
	b, err := t.tx.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{b}, nil
}

func (t boltTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{b}, nil
}

func (t boltTx) DeleteBucket(name []byte) error {
	err := t.tx.DeleteBucket(name)
	if errors.Is(err, errNoBucket) {
		return errNoBucket
	}
	return err
}

type boltBucket struct{ *bolt.Bucket }

func (b boltBucket) Cursor() kvCursor { return b.Bucket.Cursor() }
