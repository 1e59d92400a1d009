package local

import (
	"github.com/adjl/adjl/local/internal/kv"
)

// describeTimeToLive is DescribeTimeToLive.
func (e *Engine) describeTimeToLive(in *tableNameIn) ([]byte, error) {
	t, err := e.namedTable(in)
	if err != nil {
		return nil, err
	}
	return encodeResponse(struct{ TimeToLiveDescription ttlDesc }{t.stored.TTL})
}

type ttlSpec struct {
	Enabled       *bool
	AttributeName string
}

type updateTimeToLiveIn struct {
	TableName               string
	TimeToLiveSpecification *ttlSpec
}

// updateTimeToLive is UpdateTimeToLive; the sweeper (sweeper.go) deletes
// expired items.
func (e *Engine) updateTimeToLive(in *updateTimeToLiveIn) ([]byte, error) {
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil || spec.Enabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	if spec.AttributeName == "" {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	}
	_, err := e.alterTable(in.TableName, func(_ kv.Tx, _ *table, st *storedTable) error {
		enabled := st.TTL.TimeToLiveStatus == "ENABLED"
		switch {
		case *spec.Enabled && enabled:
			return validationf("TimeToLive is already enabled")
		case !*spec.Enabled && !enabled:
			return validationf("TimeToLive is already disabled")
		case !*spec.Enabled && spec.AttributeName != st.TTL.AttributeName:
			return validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", st.TTL.AttributeName)
		}
		if *spec.Enabled {
			st.TTL = ttlDesc{AttributeName: spec.AttributeName, TimeToLiveStatus: "ENABLED"}
		} else {
			st.TTL = ttlDesc{TimeToLiveStatus: "DISABLED"}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return encodeResponse(struct{ TimeToLiveSpecification ttlSpec }{*spec})
}
