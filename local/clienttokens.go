package local

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/adjl/adjl/local/internal/kv"
)

// tokenWindow is how long a ClientRequestToken makes TransactWriteItems
// idempotent.
const tokenWindow = 10 * time.Minute

// TransactWriteItems' ClientRequestTokens are recorded in the tokens bucket
// of the data file, in the same transaction as the writes they guard, so a
// retry from another process sharing the file is recognised too. Each
// record is the time it was made (8 bytes) and the request's digest (32).

// tokenSeen reports whether token was already used for this request within
// the window; a different request with the same token is an error.
func tokenSeen(tx kv.Tx, token []byte, digest [32]byte, now time.Time) (bool, error) {
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

// recordToken records token for the request with digest.
func recordToken(tx kv.Tx, token []byte, digest [32]byte, now time.Time) error {
	var v [40]byte
	binary.BigEndian.PutUint64(v[:], uint64(now.UnixNano()))
	copy(v[8:], digest[:])
	return tx.Bucket(tokensBucket).Put(token, v[:])
}

// expireTokens deletes tokens older than the window; it writes only when
// there is something to delete.
func expireTokens(db kv.DB, now time.Time) error {
	var old [][]byte
	err := db.View(func(tx kv.Tx) error {
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
	return db.Update(func(tx kv.Tx) error {
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
