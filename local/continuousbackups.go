package local

import (
	"strings"
	"time"

	"github.com/adjl/adjl/local/internal/kv"
)

// pitrState is a table's point-in-time recovery setting. The engine keeps
// no backups: it records the setting and answers as DynamoDB does, so tools
// that manage PITR (adjl table apply, Terraform, CloudFormation) can be
// tested against it.
type pitrState struct {
	Enabled              bool
	RecoveryPeriodInDays int
	// EnabledAt is when recovery was enabled: the earliest restorable time.
	EnabledAt float64
}

// defaultRecoveryDays is DynamoDB's recovery period when none is given.
const defaultRecoveryDays = 35

// pitrLag is how far LatestRestorableDateTime trails the current time
// ("typically 5 minutes before the current time").
const pitrLag = 5 * time.Minute

type continuousBackupsOut struct {
	ContinuousBackupsDescription continuousBackupsDesc
}

type continuousBackupsDesc struct {
	ContinuousBackupsStatus        string
	PointInTimeRecoveryDescription pitrDesc
}

type pitrDesc struct {
	PointInTimeRecoveryStatus  string
	RecoveryPeriodInDays       int     `json:",omitempty"`
	EarliestRestorableDateTime float64 `json:",omitempty"`
	LatestRestorableDateTime   float64 `json:",omitempty"`
}

// continuousBackupsTable resolves TableName, which may also be the table's
// ARN. DynamoDB's backup operations report a missing table as
// TableNotFoundException ("Table not found: NAME"), not as the
// ResourceNotFoundException of DescribeTable.
func (e *Engine) continuousBackupsTable(name string) (*table, error) {
	if strings.Contains(name, ":table/") {
		n, err := e.tableByArn(name)
		if err != nil {
			return nil, &apiError{Type: errTableNotFound, Message: "Table not found: " + name}
		}
		name = n
	} else if err := checkTableName("tableName", name); err != nil {
		return nil, err
	}
	t := e.lookup(name)
	if t == nil {
		return nil, &apiError{Type: errTableNotFound, Message: "Table not found: " + name}
	}
	return t, nil
}

// errTableNotFound is the backup operations' missing-table exception.
const errTableNotFound = "TableNotFoundException"

func (e *Engine) describeContinuousBackups(in *tableNameIn) ([]byte, error) {
	t, err := e.continuousBackupsTable(in.TableName)
	if err != nil {
		return nil, err
	}
	return encodeResponse(continuousBackupsOut{e.continuousBackups(t.stored.PITR)})
}

func (e *Engine) continuousBackups(p *pitrState) continuousBackupsDesc {
	d := continuousBackupsDesc{ContinuousBackupsStatus: "ENABLED", PointInTimeRecoveryDescription: pitrDesc{PointInTimeRecoveryStatus: "DISABLED"}}
	if p == nil || !p.Enabled {
		return d
	}
	latest := max(epoch(e.now().Add(-pitrLag)), p.EnabledAt)
	d.PointInTimeRecoveryDescription = pitrDesc{
		PointInTimeRecoveryStatus:  "ENABLED",
		RecoveryPeriodInDays:       p.RecoveryPeriodInDays,
		EarliestRestorableDateTime: p.EnabledAt,
		LatestRestorableDateTime:   latest,
	}
	return d
}

type updateContinuousBackupsIn struct {
	TableName                        string
	PointInTimeRecoverySpecification *struct {
		PointInTimeRecoveryEnabled *bool
		RecoveryPeriodInDays       *int
	}
}

func (e *Engine) updateContinuousBackups(in *updateContinuousBackupsIn) ([]byte, error) {
	spec := in.PointInTimeRecoverySpecification
	if spec == nil {
		return nil, validationf("1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null")
	}
	if spec.PointInTimeRecoveryEnabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
	}
	days := defaultRecoveryDays
	if spec.RecoveryPeriodInDays != nil {
		days = *spec.RecoveryPeriodInDays
		switch {
		case days < 1:
			return nil, validationf("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value greater than or equal to 1", days)
		case days > defaultRecoveryDays:
			return nil, validationf("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35", days)
		}
	}
	t, err := e.continuousBackupsTable(in.TableName)
	if err != nil {
		return nil, err
	}
	var state *pitrState
	_, err = e.alterTable(t.name, func(_ kv.Tx, _ *table, st *storedTable) error {
		switch {
		case !*spec.PointInTimeRecoveryEnabled:
			st.PITR = nil
		case st.PITR != nil && st.PITR.Enabled:
			// Enabled already: only the recovery period changes.
			p := *st.PITR
			p.RecoveryPeriodInDays = days
			st.PITR = &p
		default:
			st.PITR = &pitrState{Enabled: true, RecoveryPeriodInDays: days, EnabledAt: epoch(e.now())}
		}
		state = st.PITR
		return nil
	})
	if err != nil {
		return nil, err
	}
	return encodeResponse(continuousBackupsOut{e.continuousBackups(state)})
}
