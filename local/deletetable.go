package local

import (
	"fmt"

	"github.com/adjl/adjl/local/internal/kv"
)

// deleteTable is DeleteTable: the table, its indexes and its counts go in
// one write; the answer describes it as DELETING.
func (e *Engine) deleteTable(in *tableNameIn) ([]byte, error) {
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	var d tableDesc
	err := e.updateCatalog(func(tx kv.Tx) error {
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
