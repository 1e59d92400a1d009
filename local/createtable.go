package local

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/local/internal/kv"
)

type indexIn struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            *projectionDesc
	ProvisionedThroughput *throughputIn
}

type createTableIn struct {
	TableName                 string
	KeySchema                 []keySchemaElement
	AttributeDefinitions      []attributeDefinition
	BillingMode               string
	ProvisionedThroughput     *throughputIn
	GlobalSecondaryIndexes    []indexIn
	LocalSecondaryIndexes     []indexIn
	Tags                      []tag
	DeletionProtectionEnabled bool
}

// checkKeySchema validates one KeySchema against the attribute definitions.
func checkKeySchema(ks []keySchemaElement, defs map[string]string, defNames []string) *apiError {
	if len(ks) < 1 || len(ks) > 2 {
		return validationf("1 validation error detected: Value '%v' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2", ks)
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.AttributeName
		if k.KeyType != "HASH" && k.KeyType != "RANGE" {
			return validationf("1 validation error detected: Value '%s' at 'keySchema.%d.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]", k.KeyType, i+1)
		}
	}
	for _, n := range names {
		if _, ok := defs[n]; !ok {
			return invalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
				strings.Join(names, ", "), strings.Join(defNames, ", "))
		}
	}
	if len(ks) == 2 && ks[0].AttributeName == ks[1].AttributeName {
		return validationf("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if ks[0].KeyType != "HASH" {
		return validationf("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && ks[1].KeyType != "RANGE" {
		return validationf("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

func checkProjection(name string, p *projectionDesc) (projectionDesc, *apiError) {
	if p == nil {
		return projectionDesc{}, validationf("1 validation error detected: Value null at 'projection' failed to satisfy constraint: Member must not be null")
	}
	switch p.ProjectionType {
	case "ALL", "KEYS_ONLY", "INCLUDE":
	case "":
		return projectionDesc{}, invalidParam("Unknown ProjectionType: null")
	default:
		return projectionDesc{}, validationf("1 validation error detected: Value '%s' at 'projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]", p.ProjectionType)
	}
	if len(p.NonKeyAttributes) > 0 && p.ProjectionType != "INCLUDE" {
		return projectionDesc{}, invalidParam("ProjectionType is %s, but NonKeyAttributes is specified", p.ProjectionType)
	}
	if p.ProjectionType == "INCLUDE" && len(p.NonKeyAttributes) == 0 {
		return projectionDesc{}, invalidParam("NonKeyAttributes must be specified for INCLUDE projection type for index: %s", name)
	}
	return *p, nil
}

// checkThroughput validates ProvisionedThroughput for a billing mode and
// returns its description; PAY_PER_REQUEST tables are described with zero
// units, as DynamoDB does.
func checkThroughput(mode string, pt *throughputIn, indexName string) (*throughputDesc, *apiError) {
	if mode == "PAY_PER_REQUEST" {
		if pt != nil {
			if indexName != "" {
				return nil, invalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", indexName)
			}
			return nil, invalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		return &throughputDesc{}, nil
	}
	if pt == nil {
		if indexName != "" {
			return nil, invalidParam("ProvisionedThroughput must be specified for index: %s", indexName)
		}
		return nil, validationf("No provisioned throughput specified for the table")
	}
	if pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
		return nil, invalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	for _, u := range []struct {
		v    int64
		name string
	}{{*pt.ReadCapacityUnits, "ReadCapacityUnits"}, {*pt.WriteCapacityUnits, "WriteCapacityUnits"}} {
		if u.v < 1 {
			return nil, validationf("1 validation error detected: Value '%d' at 'provisionedThroughput.%s' failed to satisfy constraint: Member must have value greater than or equal to 1",
				u.v, strings.ToLower(u.name[:1])+u.name[1:])
		}
		if u.v > 1000000000000 {
			return nil, validationf("Given value %d for %s is out of bounds", u.v, u.name)
		}
	}
	return &throughputDesc{ReadCapacityUnits: *pt.ReadCapacityUnits, WriteCapacityUnits: *pt.WriteCapacityUnits}, nil
}

// checkIndexName applies an index name's constraints, which are a table
// name's.
func checkIndexName(field, name string) *apiError {
	return checkTableName(field, name)
}

// createTable is CreateTable: the request is checked as DynamoDB checks it
// and the table (and its indexes) is ACTIVE at once.
func (e *Engine) createTable(in *createTableIn) ([]byte, error) {
	if err := checkTableName("tableName", in.TableName); err != nil {
		return nil, err
	}
	if in.AttributeDefinitions == nil {
		return nil, validationf("1 validation error detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null")
	}
	if in.KeySchema == nil {
		return nil, validationf("1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null")
	}
	mode := in.BillingMode
	switch mode {
	case "":
		mode = "PROVISIONED"
	case "PROVISIONED", "PAY_PER_REQUEST":
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", mode)
	}
	pt, aerr := checkThroughput(mode, in.ProvisionedThroughput, "")
	if aerr != nil {
		return nil, aerr
	}
	defs := map[string]string{}
	var defNames []string
	for i, ad := range in.AttributeDefinitions {
		switch ad.AttributeType {
		case "S", "N", "B":
		default:
			return nil, validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.%d.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", ad.AttributeType, i+1)
		}
		if _, dup := defs[ad.AttributeName]; dup {
			return nil, invalidParam("Duplicate AttributeName in AttributeDefinitions: %s", ad.AttributeName)
		}
		defs[ad.AttributeName] = ad.AttributeType
		defNames = append(defNames, ad.AttributeName)
	}
	if len(in.KeySchema) > len(in.AttributeDefinitions) && len(in.KeySchema) <= 2 {
		return nil, validationf("Invalid KeySchema: Some index key attribute have no definition")
	}
	if aerr := checkKeySchema(in.KeySchema, defs, defNames); aerr != nil {
		return nil, aerr
	}
	used := map[string]bool{}
	for _, k := range in.KeySchema {
		used[k.AttributeName] = true
	}
	now := e.now()
	desc := tableDesc{
		TableName:                 in.TableName,
		TableId:                   newUUID(),
		TableArn:                  tableArn(in.TableName),
		TableStatus:               "ACTIVE",
		CreationDateTime:          epoch(now),
		KeySchema:                 in.KeySchema,
		AttributeDefinitions:      in.AttributeDefinitions,
		ProvisionedThroughput:     pt,
		DeletionProtectionEnabled: in.DeletionProtectionEnabled,
	}
	if in.BillingMode != "" {
		desc.BillingModeSummary = &billingSummary{BillingMode: mode}
		if mode == "PAY_PER_REQUEST" {
			desc.BillingModeSummary.LastUpdateToPayPerRequestDateTime = epoch(now)
		}
	}
	seen := map[string]bool{}
	// claim records an index's name (unique across LSIs and GSIs) and the
	// attributes its key uses.
	claim := func(name string, keys []keySchemaElement) *apiError {
		if seen[name] {
			return invalidParam("Duplicate index name: %s", name)
		}
		seen[name] = true
		for _, k := range keys {
			used[k.AttributeName] = true
		}
		return nil
	}
	tableHash, tableRange := splitKeySchema(in.KeySchema)
	if in.LocalSecondaryIndexes != nil {
		if len(in.LocalSecondaryIndexes) == 0 {
			return nil, invalidParam("List of LocalSecondaryIndexes is empty")
		}
		if tableRange == "" {
			return nil, invalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		if len(in.LocalSecondaryIndexes) > 5 {
			return nil, invalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of 5")
		}
	}
	for _, x := range in.LocalSecondaryIndexes {
		if aerr := checkIndexName("localSecondaryIndexes.member.indexName", x.IndexName); aerr != nil {
			return nil, aerr
		}
		if aerr := checkKeySchema(x.KeySchema, defs, defNames); aerr != nil {
			return nil, aerr
		}
		if len(x.KeySchema) != 2 {
			return nil, invalidParam("Index KeySchema does not have a range key for index: %s", x.IndexName)
		}
		if x.KeySchema[0].AttributeName != tableHash {
			return nil, invalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
				x.IndexName, x.KeySchema[0].AttributeName, tableHash)
		}
		proj, aerr := checkProjection(x.IndexName, x.Projection)
		if aerr != nil {
			return nil, aerr
		}
		if aerr := claim(x.IndexName, x.KeySchema); aerr != nil {
			return nil, aerr
		}
		desc.LocalSecondaryIndexes = append(desc.LocalSecondaryIndexes, indexDesc{
			IndexName: x.IndexName, KeySchema: x.KeySchema, Projection: proj,
			IndexArn: desc.TableArn + "/index/" + x.IndexName,
		})
	}
	if in.GlobalSecondaryIndexes != nil {
		if len(in.GlobalSecondaryIndexes) == 0 {
			return nil, invalidParam("List of GlobalSecondaryIndexes is empty")
		}
		if len(in.GlobalSecondaryIndexes) > 20 {
			return nil, invalidParam("GlobalSecondaryIndex count exceeds the per-table limit of 20")
		}
	}
	for _, x := range in.GlobalSecondaryIndexes {
		xd, aerr := newGSI(&desc, mode, defs, defNames, x)
		if aerr != nil {
			return nil, aerr
		}
		if aerr := claim(x.IndexName, x.KeySchema); aerr != nil {
			return nil, aerr
		}
		desc.GlobalSecondaryIndexes = append(desc.GlobalSecondaryIndexes, xd)
	}
	if len(used) != len(defs) {
		if in.LocalSecondaryIndexes == nil && in.GlobalSecondaryIndexes == nil {
			return nil, invalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
		var keys []string
		for _, n := range defNames {
			if used[n] {
				keys = append(keys, n)
			}
		}
		return nil, invalidParam("Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]",
			strings.Join(defNames, ", "), strings.Join(keys, ", "))
	}
	if len(in.Tags) > 0 {
		if aerr := checkTags(in.Tags); aerr != nil {
			return nil, aerr
		}
	}
	st := storedTable{Desc: desc, TTL: ttlDesc{TimeToLiveStatus: "DISABLED"}, Tags: in.Tags}
	t, err := newTable(st)
	if err != nil {
		return nil, err
	}
	err = e.updateCatalog(func(tx kv.Tx) error {
		if e.lookup(in.TableName) != nil || tx.Bucket(metaBucket).Get([]byte(in.TableName)) != nil {
			return &apiError{Type: errInUse, Message: "Table already exists: " + in.TableName}
		}
		if _, err := tx.CreateBucket(t.bucket); err != nil {
			return fmt.Errorf("create table bucket: %w", err)
		}
		for _, x := range t.indexes {
			if _, err := tx.CreateBucket(x.bucket); err != nil {
				return fmt.Errorf("create index bucket: %w", err)
			}
		}
		if err := putTable(tx, &st); err != nil {
			return err
		}
		e.setTable(t.name, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return encodeResponse(tableDescOut{TableDescription: desc})
}

// newGSI validates one GlobalSecondaryIndex definition (CreateTable or
// UpdateTable Create) and returns its ACTIVE description.
func newGSI(desc *tableDesc, mode string, defs map[string]string, defNames []string, x indexIn) (indexDesc, *apiError) {
	if aerr := checkIndexName("globalSecondaryIndexes.member.indexName", x.IndexName); aerr != nil {
		return indexDesc{}, aerr
	}
	if aerr := checkKeySchema(x.KeySchema, defs, defNames); aerr != nil {
		return indexDesc{}, aerr
	}
	proj, aerr := checkProjection(x.IndexName, x.Projection)
	if aerr != nil {
		return indexDesc{}, aerr
	}
	pt, aerr := checkThroughput(mode, x.ProvisionedThroughput, x.IndexName)
	if aerr != nil {
		return indexDesc{}, aerr
	}
	return indexDesc{
		IndexName: x.IndexName, KeySchema: x.KeySchema, Projection: proj,
		IndexStatus: "ACTIVE", ProvisionedThroughput: pt,
		IndexArn: desc.TableArn + "/index/" + x.IndexName,
	}, nil
}
