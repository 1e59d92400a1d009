package local

import (
	"github.com/adjl/adjl/local/internal/kv"
)

type tableNameIn struct {
	TableName string
}

// namedTable returns the table a request whose only member is TableName
// names; a missing one is reported naming it, as the control plane
// (DescribeTable, DescribeTimeToLive) does.
func (e *Engine) namedTable(in *tableNameIn) (*table, error) {
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	t := e.lookup(in.TableName)
	if t == nil {
		return nil, tableNotFound(in.TableName)
	}
	return t, nil
}

// describeTable is DescribeTable, with live item counts and sizes.
func (e *Engine) describeTable(in *tableNameIn) ([]byte, error) {
	t, err := e.namedTable(in)
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
