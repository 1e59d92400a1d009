package local

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/adjl/adjl/local/internal/kv"
)

func init() {
	operations["CreateTable"] = (*Engine).createTable
	operations["DescribeTable"] = (*Engine).describeTable
	operations["ListTables"] = (*Engine).listTables
	operations["DeleteTable"] = (*Engine).deleteTable
}

type tableDescOut struct {
	TableDescription tableDesc
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// requestID returns a unique, DynamoDB-shaped (52 character) request id: a
// random per-process prefix and a counter, cheap enough for every response.
func requestID() string {
	n := requestSeq.Add(1)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var out [52]byte
	copy(out[:], requestPrefix)
	for i := len(out) - 1; i >= len(requestPrefix); i-- {
		out[i] = alphabet[n%36]
		n /= 36
	}
	return string(out[:])
}

var (
	requestSeq    atomic.Uint64
	requestPrefix = func() string {
		var b [40]byte
		rand.Read(b[:])
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for i := range b {
			b[i] = alphabet[int(b[i])%36]
		}
		return string(b[:])
	}()
)

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

type tableNameIn struct {
	TableName string
}

// namedTable reads a request whose only member is TableName and returns
// that table; a missing one is reported naming it, as the control plane
// (DescribeTable, DescribeTimeToLive) does.
func (e *Engine) namedTable(body []byte) (*table, error) {
	var in tableNameIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	t := e.lookup(in.TableName)
	if t == nil {
		return nil, tableNotFound(in.TableName)
	}
	return t, nil
}

func (e *Engine) describeTable(body []byte) ([]byte, error) {
	t, err := e.namedTable(body)
	if err != nil {
		return nil, err
	}
	var d tableDesc
	e.db.View(func(tx kv.Tx) error {
		d = e.describe(tx, t)
		return nil
	})
	return encodeResponse(struct{ Table tableDesc }{d})
}

type listTablesIn struct {
	ExclusiveStartTableName string
	Limit                   *int
}

type listTablesOut struct {
	TableNames             []string
	LastEvaluatedTableName string `json:",omitempty"`
}

func (e *Engine) listTables(body []byte) ([]byte, error) {
	var in listTablesIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			op := "greater than or equal to 1"
			if *in.Limit > 100 {
				op = "less than or equal to 100"
			}
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value %s", *in.Limit, op)
		}
		limit = *in.Limit
	}
	out := listTablesOut{TableNames: []string{}}
	names := e.tableNames()
	for i, n := range names {
		if in.ExclusiveStartTableName != "" && n <= in.ExclusiveStartTableName {
			continue
		}
		out.TableNames = append(out.TableNames, n)
		if len(out.TableNames) == limit {
			if i < len(names)-1 {
				out.LastEvaluatedTableName = n
			}
			break
		}
	}
	return encodeResponse(out)
}

func (e *Engine) deleteTable(body []byte) ([]byte, error) {
	var in tableNameIn
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	var d tableDesc
	err := e.db.Update(func(tx kv.Tx) error {
		t := e.lookup(in.TableName)
		if t == nil {
			return tableNotFound(in.TableName)
		}
		if t.stored.Desc.DeletionProtectionEnabled {
			return validationf("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
		}
		d = e.describe(tx, t)
		for _, x := range t.indexes {
			if err := deleteBucket(tx, x.bucket); err != nil {
				return err
			}
			if err := tx.Bucket(statsBucket).Delete(statsKey(t.name, x.name)); err != nil {
				return err
			}
		}
		if err := deleteBucket(tx, t.bucket); err != nil {
			return err
		}
		if err := tx.Bucket(statsBucket).Delete(statsKey(t.name, "")); err != nil {
			return err
		}
		if err := tx.Bucket(metaBucket).Delete([]byte(t.name)); err != nil {
			return err
		}
		e.setTable(t.name, nil)
		return nil
	})
	if err != nil {
		if _, ok := err.(*apiError); !ok {
			e.resync()
		}
		return nil, err
	}
	d.TableStatus = "DELETING"
	return encodeResponse(tableDescOut{TableDescription: d})
}

func deleteBucket(tx kv.Tx, name []byte) error {
	if err := tx.DeleteBucket(name); err != nil && err != kv.ErrNoBucket {
		return fmt.Errorf("delete bucket %s: %w", name, err)
	}
	return nil
}
