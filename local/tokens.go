package local

import (
	"bytes"
	"encoding/binary"
	"time"
)

// tokenWindow is how long a ClientRequestToken makes TransactWriteItems
// idempotent.
const tokenWindow = 10 * time.Minute

// tokenCache records ClientRequestTokens in the data file (in the same
// transaction as the writes they guard), so a retry from another process
// sharing the file is recognised too.
type tokenCache struct{}

func newTokenCache() *tokenCache { return &tokenCache{} }

// check reports whether token was already used for this request within the
// window; a different request with the same token is an error.
func (c *tokenCache) check(tx kvTx, token []byte, digest [32]byte, now time.Time) (bool, error) {
	v := tx.Bucket(tokensBucket).Get(token)
	if len(v) != 40 {
		return false, nil
	}
	at := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
	if now.Sub(at) > tokenWindow {
		return false, nil
	}
	if !bytes.Equal(v[8:], digest[:]) {
		return false, &apiError{Type: errIdempotent, Message: "The request uses the same client token as a previous, but non-identical request."}
	}
	return true, nil
}

func (c *tokenCache) record(tx kvTx, token []byte, digest [32]byte, now time.Time) error {
	var v [40]byte
	binary.BigEndian.PutUint64(v[:], uint64(now.UnixNano()))
	copy(v[8:], digest[:])
	return tx.Bucket(tokensBucket).Put(token, v[:])
}

// expire deletes tokens older than the window; it writes only when there is
// something to delete.
func (c *tokenCache) expire(db kvDB, now time.Time) error {
	var old [][]byte
	err := db.View(func(tx kvTx) error {
		return tx.Bucket(tokensBucket).ForEach(func(k, v []byte) error {
			if len(v) != 40 || now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v)))) > tokenWindow {
				old = append(old, bytes.Clone(k))
			}
			return nil
		})
	})
	if err != nil || len(old) == 0 {
		return err
	}
	return db.Update(func(tx kvTx) error {
		b := tx.Bucket(tokensBucket)
		for _, k := range old {
			v := b.Get(k)
			if len(v) == 40 && now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v)))) <= tokenWindow {
				continue // reused since the look
			}
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}
