package dyntest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTables covers the control plane: CreateTable, DescribeTable,
// ListTables paging, DeleteTable and UpdateTable billing.
func (s *suite) testTables(t *testing.T) {
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html
	t.Run("CreateDescribe", func(t *testing.T) {
		name := s.table(t, withGSI)
		d := s.waitActive(t, name)
		if aws.ToString(d.TableName) != name {
			t.Errorf("TableName = %q, want %q", aws.ToString(d.TableName), name)
		}
		if aws.ToString(d.TableArn) == "" {
			t.Errorf("TableArn empty")
		}
		if d.CreationDateTime == nil || time.Since(*d.CreationDateTime) > time.Hour || time.Until(*d.CreationDateTime) > time.Minute {
			t.Errorf("CreationDateTime = %v, want about now", d.CreationDateTime)
		}
		if len(d.KeySchema) != 2 || aws.ToString(d.KeySchema[0].AttributeName) != "pk" || d.KeySchema[0].KeyType != types.KeyTypeHash ||
			aws.ToString(d.KeySchema[1].AttributeName) != "sk" || d.KeySchema[1].KeyType != types.KeyTypeRange {
			t.Errorf("KeySchema = %+v, want pk HASH, sk RANGE", d.KeySchema)
		}
		if len(d.AttributeDefinitions) != 4 {
			t.Errorf("AttributeDefinitions has %d entries, want 4 (pk, sk, gpk, gsk)", len(d.AttributeDefinitions))
		}
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("BillingModeSummary = %+v, want PAY_PER_REQUEST", d.BillingModeSummary)
		}
		if len(d.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("GlobalSecondaryIndexes = %d, want 1", len(d.GlobalSecondaryIndexes))
		}
		g := d.GlobalSecondaryIndexes[0]
		if aws.ToString(g.IndexName) != "gsi1" || g.IndexStatus != types.IndexStatusActive ||
			g.Projection == nil || g.Projection.ProjectionType != types.ProjectionTypeAll {
			t.Errorf("GSI description = name %q status %s projection %+v arn %q", aws.ToString(g.IndexName), g.IndexStatus, g.Projection, aws.ToString(g.IndexArn))
		}
		s.documented(t, QuirkNoIndexArn, aws.ToString(g.IndexArn) != "", "GSI IndexArn empty")
		if len(g.KeySchema) != 2 || aws.ToString(g.KeySchema[0].AttributeName) != "gpk" || aws.ToString(g.KeySchema[1].AttributeName) != "gsk" {
			t.Errorf("GSI KeySchema = %+v, want gpk HASH, gsk RANGE", g.KeySchema)
		}
	})

	// CreateTable: "ResourceInUseException ... you tried to recreate an existing table".
	t.Run("CreateExisting", func(t *testing.T) {
		name := s.table(t, hashOnly)
		_, err := s.c.CreateTable(s.ctx(t), createInput(name, hashOnly))
		if _, ok := wantTyped[*types.ResourceInUseException](t, err); ok {
			s.wantAPIError(t, err, "ResourceInUseException", "Table already exists")
		}
	})

	// DescribeTable / DeleteTable / PutItem on a missing table:
	// ResourceNotFoundException ("The operation tried to access a nonexistent table").
	t.Run("MissingTable", func(t *testing.T) {
		name := s.tableName(t)
		ctx := s.ctx(t)
		_, err := s.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if _, ok := wantTyped[*types.ResourceNotFoundException](t, err); ok {
			s.wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
		}
		_, err = s.c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		wantTyped[*types.ResourceNotFoundException](t, err)
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": vS("a")}})
		wantTyped[*types.ResourceNotFoundException](t, err)
		_, err = s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": vS("a")}})
		wantTyped[*types.ResourceNotFoundException](t, err)
		_, err = s.c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("a")}})
		wantTyped[*types.ResourceNotFoundException](t, err)
	})

	// CreateTable: every AttributeDefinitions entry must be used by a key schema.
	t.Run("UnusedAttributeDefinition", func(t *testing.T) {
		name := s.tableName(t)
		in := createInput(name, hashOnly)
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String("extra"), AttributeType: types.ScalarAttributeTypeS})
		_, err := s.c.CreateTable(s.ctx(t), in)
		if err == nil {
			s.dropLater(t, name)
		}
		s.wantValidation(t, err, "AttributeDefinitions")
	})

	// Table names: 3-255 characters of a-z A-Z 0-9 _ - .
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
	t.Run("InvalidNames", func(t *testing.T) {
		for _, name := range []string{"ab", "bad name", "bad/name", strings.Repeat("x", 256)} {
			_, err := s.c.CreateTable(s.ctx(t), createInput(name, hashOnly))
			if err == nil {
				s.dropLater(t, name)
			}
			s.refused(t, QuirkTableNamesUnchecked, err)
		}
	})

	// ListTables: Limit bounds a page; LastEvaluatedTableName continues via
	// ExclusiveStartTableName; names come back in order.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
	t.Run("ListTablesPaging", func(t *testing.T) {
		mine := map[string]int{}
		for range 3 {
			mine[s.table(t, hashOnly)] = 0
		}
		var prev string
		in := &dynamodb.ListTablesInput{Limit: aws.Int32(2)}
		for pages := 0; pages < 10000; pages++ {
			out, err := s.c.ListTables(s.ctx(t), in)
			must(t, err, "ListTables")
			if len(out.TableNames) > 2 {
				t.Fatalf("page of %d names with Limit 2", len(out.TableNames))
			}
			for _, n := range out.TableNames {
				if n <= prev {
					t.Errorf("ListTables order: %q after %q", n, prev)
				}
				prev = n
				if _, ok := mine[n]; ok {
					mine[n]++
				}
			}
			if out.LastEvaluatedTableName == nil {
				break
			}
			if len(out.TableNames) == 0 || aws.ToString(out.LastEvaluatedTableName) != out.TableNames[len(out.TableNames)-1] {
				t.Errorf("LastEvaluatedTableName %q is not the page's last name %v", aws.ToString(out.LastEvaluatedTableName), out.TableNames)
			}
			in.ExclusiveStartTableName = out.LastEvaluatedTableName
		}
		for n, seen := range mine {
			if seen != 1 {
				t.Errorf("table %s listed %d times, want once", n, seen)
			}
		}
	})

	// DeleteTable returns the description; afterwards the table is gone.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
	t.Run("Delete", func(t *testing.T) {
		name := s.table(t, hashOnly)
		s.put(t, name, item{"pk": vS("a")})
		out, err := s.c.DeleteTable(s.ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err, "DeleteTable")
		if out.TableDescription == nil || aws.ToString(out.TableDescription.TableName) != name {
			t.Errorf("DeleteTable description = %+v", out.TableDescription)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err = s.c.DescribeTable(s.ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			var nf *types.ResourceNotFoundException
			if errors.As(err, &nf) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("table still described 30s after DeleteTable: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// A new table with the same name starts empty.
		_, err = s.c.CreateTable(s.ctx(t), createInput(name, hashOnly))
		must(t, err, "re-CreateTable")
		s.waitActive(t, name)
		if got := s.get(t, name, item{"pk": vS("a")}); got != nil {
			t.Errorf("recreated table still holds %s", showItem(got))
		}
	})

	// UpdateTable switches billing mode; DescribeTable reflects it.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
	t.Run("UpdateBilling", func(t *testing.T) {
		name := s.table(t, hashOnly)
		_, err := s.c.UpdateTable(s.ctx(t), &dynamodb.UpdateTableInput{
			TableName:             aws.String(name),
			BillingMode:           types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(3)},
		})
		must(t, err, "UpdateTable")
		d := s.waitActive(t, name)
		if d.ProvisionedThroughput == nil || aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 7 ||
			aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 3 {
			t.Errorf("ProvisionedThroughput = %+v, want 7/3", d.ProvisionedThroughput)
		}
		if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("BillingMode = %s, want PROVISIONED", d.BillingModeSummary.BillingMode)
		}
	})

	// BillingMode PAY_PER_REQUEST takes no ProvisionedThroughput; PROVISIONED
	// requires it.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html#DDB-CreateTable-request-ProvisionedThroughput
	t.Run("BillingModes", func(t *testing.T) {
		pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(4)}
		prov := s.tableName(t)
		in := createInput(prov, hashOnly)
		in.BillingMode, in.ProvisionedThroughput = types.BillingModeProvisioned, pt
		_, err := s.c.CreateTable(s.ctx(t), in)
		must(t, err, "CreateTable PROVISIONED")
		s.dropLater(t, prov)
		d := s.waitActive(t, prov)
		if d.ProvisionedThroughput == nil || aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 2 ||
			aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 4 {
			t.Errorf("ProvisionedThroughput = %+v, want 2/4", d.ProvisionedThroughput)
		}
		for name, mut := range map[string]func(*dynamodb.CreateTableInput){
			"OnDemandWithThroughput": func(in *dynamodb.CreateTableInput) { in.ProvisionedThroughput = pt },
			"ProvisionedWithout":     func(in *dynamodb.CreateTableInput) { in.BillingMode = types.BillingModeProvisioned },
		} {
			n := s.tableName(t)
			in := createInput(n, hashOnly)
			mut(in)
			_, err := s.c.CreateTable(s.ctx(t), in)
			if err == nil {
				s.dropLater(t, n)
			}
			if !s.wantValidation(t, err) {
				t.Logf("(%s)", name)
			}
		}
	})

	// LSIs are created with the table and share its partition key.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html
	t.Run("LocalSecondaryIndex", func(t *testing.T) {
		spec := composite
		spec.LSIs = []indexSpec{{Name: "bynum", Hash: keyAttr{"pk", types.ScalarAttributeTypeS},
			Range: &keyAttr{"num", types.ScalarAttributeTypeN}, Projection: types.ProjectionTypeAll}}
		name := s.table(t, spec)
		d := s.waitActive(t, name)
		if len(d.LocalSecondaryIndexes) != 1 || aws.ToString(d.LocalSecondaryIndexes[0].IndexName) != "bynum" {
			t.Fatalf("LocalSecondaryIndexes = %+v", d.LocalSecondaryIndexes)
		}
		s.put(t, name,
			item{"pk": vS("p"), "sk": vS("a"), "num": vN("30")},
			item{"pk": vS("p"), "sk": vS("b"), "num": vN("-2")},
			item{"pk": vS("p"), "sk": vS("c")}, // sparse: no num
			item{"pk": vS("p"), "sk": vS("d"), "num": vN("4")},
		)
		// LSIs support strongly consistent reads.
		items, _ := s.queryAll(t, dynamodb.QueryInput{
			TableName: aws.String(name), IndexName: aws.String("bynum"), ConsistentRead: aws.Bool(true),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": vS("p")},
		})
		if got := sortKeys(items); got != "b,d,a" {
			t.Errorf("LSI order by num = %s, want b,d,a (sparse c absent)", got)
		}
	})
}
