package local

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

type gsiUpdate struct {
	Create *indexIn
	Delete *struct{ IndexName string }
	Update *struct {
		IndexName             string
		ProvisionedThroughput *throughputIn
	}
}

type updateTableIn struct {
	TableName                   string
	AttributeDefinitions        []attributeDefinition
	BillingMode                 string
	ProvisionedThroughput       *throughputIn
	GlobalSecondaryIndexUpdates []gsiUpdate
	DeletionProtectionEnabled   *bool
	StreamSpecification         map[string]any
}

// updateTable is UpdateTable: billing mode, throughput, and creating or
// deleting global secondary indexes (a new one is backfilled at once).
func (e *Engine) updateTable(in *updateTableIn) ([]byte, error) {
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil && in.GlobalSecondaryIndexUpdates == nil &&
		in.DeletionProtectionEnabled == nil && in.StreamSpecification == nil {
		return nil, validationf("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	switch in.BillingMode {
	case "", "PROVISIONED", "PAY_PER_REQUEST":
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}
	creates := 0
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			creates++
		}
	}
	if creates > 1 {
		return nil, &apiError{Type: errLimitExceeded, Message: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"}
	}
	var d tableDesc
	_, err := e.alterTable(in.TableName, func(tx kv.Tx, t *table, st *storedTable) error {
		desc := &st.Desc
		now := e.now()
		mode := "PROVISIONED"
		if desc.BillingModeSummary != nil {
			mode = desc.BillingModeSummary.BillingMode
		}
		if in.BillingMode != "" && in.BillingMode != mode {
			mode = in.BillingMode
			desc.BillingModeSummary = &billingSummary{BillingMode: mode}
			if mode == "PAY_PER_REQUEST" {
				desc.BillingModeSummary.LastUpdateToPayPerRequestDateTime = epoch(now)
				desc.ProvisionedThroughput = &throughputDesc{}
				for i := range desc.GlobalSecondaryIndexes {
					desc.GlobalSecondaryIndexes[i].ProvisionedThroughput = &throughputDesc{}
				}
			}
		}
		if in.ProvisionedThroughput != nil {
			pt, aerr := checkThroughput(mode, in.ProvisionedThroughput, "")
			if aerr != nil {
				return aerr
			}
			if cur := desc.ProvisionedThroughput; cur != nil && cur.ReadCapacityUnits == pt.ReadCapacityUnits && cur.WriteCapacityUnits == pt.WriteCapacityUnits {
				return unchangedThroughput("table", cur, pt)
			}
			pt.LastIncreaseDateTime = epoch(now)
			desc.ProvisionedThroughput = pt
		} else if in.BillingMode == "PROVISIONED" {
			return invalidParam("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
		}
		if in.DeletionProtectionEnabled != nil {
			desc.DeletionProtectionEnabled = *in.DeletionProtectionEnabled
		}
		for _, u := range in.GlobalSecondaryIndexUpdates {
			switch {
			case u.Create != nil:
				if err := e.createGSI(tx, t, st, mode, in.AttributeDefinitions, *u.Create); err != nil {
					return err
				}
			case u.Delete != nil:
				found := -1
				for i, x := range desc.GlobalSecondaryIndexes {
					if x.IndexName == u.Delete.IndexName {
						found = i
					}
				}
				if found < 0 {
					return &apiError{Type: errNotFound, Message: "Requested resource not found: Index: " + u.Delete.IndexName + " not found"}
				}
				desc.GlobalSecondaryIndexes = append(desc.GlobalSecondaryIndexes[:found], desc.GlobalSecondaryIndexes[found+1:]...)
				if len(desc.GlobalSecondaryIndexes) == 0 {
					desc.GlobalSecondaryIndexes = nil
				}
				if err := deleteBucket(tx, indexBucketName(t.name, u.Delete.IndexName)); err != nil {
					return err
				}
				if err := tx.Bucket(statsBucket).Delete(statsKey(t.name, u.Delete.IndexName)); err != nil {
					return err
				}
				pruneDefinitions(desc)
			case u.Update != nil:
				found := false
				for i, x := range desc.GlobalSecondaryIndexes {
					if x.IndexName == u.Update.IndexName {
						pt, aerr := checkThroughput(mode, u.Update.ProvisionedThroughput, x.IndexName)
						if aerr != nil {
							return aerr
						}
						if cur := x.ProvisionedThroughput; cur != nil && cur.ReadCapacityUnits == pt.ReadCapacityUnits && cur.WriteCapacityUnits == pt.WriteCapacityUnits {
							return unchangedThroughput("index "+x.IndexName, cur, pt)
						}
						desc.GlobalSecondaryIndexes[i].ProvisionedThroughput = pt
						found = true
					}
				}
				if !found {
					return &apiError{Type: errNotFound, Message: "Requested resource not found: Index: " + u.Update.IndexName + " not found"}
				}
			default:
				return validationf("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update, or GlobalSecondaryIndexUpdate.Delete must be specified")
			}
		}
		d = *desc
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.db.View(func(tx kv.Tx) error {
		if t := e.lookup(in.TableName); t != nil {
			d = e.describe(tx, t)
		}
		return nil
	})
	return encodeResponse(tableDescOut{TableDescription: d})
}

// pruneDefinitions drops attribute definitions no key schema uses any more.
func pruneDefinitions(desc *tableDesc) {
	used := map[string]bool{}
	for _, k := range desc.KeySchema {
		used[k.AttributeName] = true
	}
	for _, xs := range [][]indexDesc{desc.GlobalSecondaryIndexes, desc.LocalSecondaryIndexes} {
		for _, x := range xs {
			for _, k := range x.KeySchema {
				used[k.AttributeName] = true
			}
		}
	}
	var kept []attributeDefinition
	for _, ad := range desc.AttributeDefinitions {
		if used[ad.AttributeName] {
			kept = append(kept, ad)
		}
	}
	desc.AttributeDefinitions = kept
}

// createGSI adds a global secondary index and backfills it from the existing
// items in the same transaction, so it is ACTIVE when UpdateTable returns.
func (e *Engine) createGSI(tx kv.Tx, t *table, st *storedTable, mode string, newDefs []attributeDefinition, x indexIn) error {
	desc := &st.Desc
	sameName := func(xd indexDesc) bool { return xd.IndexName == x.IndexName }
	if slices.ContainsFunc(desc.GlobalSecondaryIndexes, sameName) || slices.ContainsFunc(desc.LocalSecondaryIndexes, sameName) {
		return invalidParam("Duplicate index name: %s", x.IndexName)
	}
	if len(desc.GlobalSecondaryIndexes) >= 20 {
		return invalidParam("GlobalSecondaryIndex count exceeds the per-table limit of 20")
	}
	defs := map[string]string{}
	var defNames []string
	for _, ad := range desc.AttributeDefinitions {
		defs[ad.AttributeName] = ad.AttributeType
		defNames = append(defNames, ad.AttributeName)
	}
	for _, ad := range newDefs {
		if old, ok := defs[ad.AttributeName]; ok {
			if old != ad.AttributeType {
				return invalidParam("Cannot change the type of attribute %s", ad.AttributeName)
			}
			continue
		}
		switch ad.AttributeType {
		case "S", "N", "B":
		default:
			return validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", ad.AttributeType)
		}
		defs[ad.AttributeName] = ad.AttributeType
		defNames = append(defNames, ad.AttributeName)
		desc.AttributeDefinitions = append(desc.AttributeDefinitions, ad)
	}
	xd, aerr := newGSI(desc, mode, defs, defNames, x)
	if aerr != nil {
		return aerr
	}
	desc.GlobalSecondaryIndexes = append(desc.GlobalSecondaryIndexes, xd)
	pruneDefinitions(desc)
	nt, err := newTable(*st)
	if err != nil {
		return err
	}
	nx := nt.byName[x.IndexName]
	xb, err := tx.CreateBucket(nx.bucket)
	if err != nil {
		return fmt.Errorf("create index bucket: %w", err)
	}
	var c counts
	var kb []byte
	err = tx.Bucket(t.bucket).ForEach(func(k, v []byte) error {
		it, err := attr.DecodeItem(v)
		if err != nil {
			return err
		}
		kb = nx.indexKey(kb[:0], it, k)
		if kb == nil {
			return nil
		}
		c.items++
		c.bytes += int64(nx.projectedSize(nt, it))
		return xb.Put(append([]byte(nil), kb...), indexEntryValue)
	})
	if err != nil {
		return fmt.Errorf("backfill index %s: %w", x.IndexName, err)
	}
	return addCounts(tx, statsKey(t.name, x.IndexName), c)
}

// unchangedThroughput refuses an UpdateTable that asks for the throughput a
// table or index (what: "table" or "index NAME") already has.
func unchangedThroughput(what string, cur, req *throughputDesc) *apiError {
	scope := what
	if strings.HasPrefix(what, "index ") {
		scope = "index"
	}
	return validationf("The provisioned throughput for the %s will not change. The requested value equals the current value. "+
		"Current ReadCapacityUnits provisioned for the %s: %d. Requested ReadCapacityUnits: %d. "+
		"Current WriteCapacityUnits provisioned for the %s: %d. Requested WriteCapacityUnits: %d. "+
		"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
		what, scope, cur.ReadCapacityUnits, req.ReadCapacityUnits, scope, cur.WriteCapacityUnits, req.WriteCapacityUnits)
}
