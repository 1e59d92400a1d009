// Package iac renders the table a schema asks for as infrastructure code:
// create-table JSON for the AWS CLI, a CloudFormation template and a
// Terraform aws_dynamodb_table resource. Each is rendered from the same
// definition ops creates tables from (package tabledef), so an exported
// template and `adjl table create` make the same table. It is pure: no
// client, no I/O.
package iac

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Formats are the export formats, in the order help lists them.
var Formats = []string{"create-table-json", "cloudformation", "terraform"}

// Export renders s in format (one of Formats).
func Export(s *schema.Schema, format string) ([]byte, error) {
	switch format {
	case "create-table-json":
		return CreateTableJSON(s)
	case "cloudformation":
		return CloudFormation(s)
	case "terraform":
		return Terraform(s), nil
	}
	return nil, fmt.Errorf("unknown export format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// FollowUp lists the AWS CLI commands that give a table created from the
// create-table JSON what CreateTable cannot carry: TTL and point-in-time
// recovery. The CloudFormation and Terraform exports carry them.
func FollowUp(s *schema.Schema) []string {
	var out []string
	name := shellWord(s.Table.Name)
	if ttl := tabledef.TimeToLive(s); ttl != nil {
		out = append(out, fmt.Sprintf("aws dynamodb update-time-to-live --table-name %s --time-to-live-specification Enabled=true,AttributeName=%s",
			name, shellWord(aws.ToString(ttl.AttributeName))))
	}
	if tabledef.PointInTimeRecovery(s) != nil {
		out = append(out, fmt.Sprintf("aws dynamodb update-continuous-backups --table-name %s --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true", name))
	}
	return out
}

// shellWord quotes s for a POSIX shell unless it is plainly safe (table and
// attribute names usually are).
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The shapes below are CreateTable's request members with the names
// DynamoDB's JSON protocol (and CloudFormation, which uses the same names)
// gives them; members the table does not use are omitted.

type keyElement struct {
	AttributeName string `json:"AttributeName" yaml:"AttributeName"`
	KeyType       string `json:"KeyType" yaml:"KeyType"`
}

type attributeDefinition struct {
	AttributeName string `json:"AttributeName" yaml:"AttributeName"`
	AttributeType string `json:"AttributeType" yaml:"AttributeType"`
}

type throughput struct {
	ReadCapacityUnits  int64 `json:"ReadCapacityUnits" yaml:"ReadCapacityUnits"`
	WriteCapacityUnits int64 `json:"WriteCapacityUnits" yaml:"WriteCapacityUnits"`
}

type projection struct {
	ProjectionType   string   `json:"ProjectionType" yaml:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty" yaml:"NonKeyAttributes,omitempty"`
}

type globalIndex struct {
	IndexName             string       `json:"IndexName" yaml:"IndexName"`
	KeySchema             []keyElement `json:"KeySchema" yaml:"KeySchema"`
	Projection            projection   `json:"Projection" yaml:"Projection"`
	ProvisionedThroughput *throughput  `json:"ProvisionedThroughput,omitempty" yaml:"ProvisionedThroughput,omitempty"`
}

// localIndex is the local secondary index of ordered forward lists.
type localIndex struct {
	IndexName  string       `json:"IndexName" yaml:"IndexName"`
	KeySchema  []keyElement `json:"KeySchema" yaml:"KeySchema"`
	Projection projection   `json:"Projection" yaml:"Projection"`
}

type tag struct {
	Key   string `json:"Key" yaml:"Key"`
	Value string `json:"Value" yaml:"Value"`
}

// table is the CreateTable request, in the order the API reference lists
// its members.
type table struct {
	TableName                 string                `json:"TableName" yaml:"TableName"`
	AttributeDefinitions      []attributeDefinition `json:"AttributeDefinitions" yaml:"AttributeDefinitions"`
	KeySchema                 []keyElement          `json:"KeySchema" yaml:"KeySchema"`
	GlobalSecondaryIndexes    []globalIndex         `json:"GlobalSecondaryIndexes" yaml:"GlobalSecondaryIndexes"`
	LocalSecondaryIndexes     []localIndex          `json:"LocalSecondaryIndexes,omitempty" yaml:"LocalSecondaryIndexes,omitempty"`
	BillingMode               string                `json:"BillingMode" yaml:"BillingMode"`
	ProvisionedThroughput     *throughput           `json:"ProvisionedThroughput,omitempty" yaml:"ProvisionedThroughput,omitempty"`
	DeletionProtectionEnabled *bool                 `json:"DeletionProtectionEnabled,omitempty" yaml:"DeletionProtectionEnabled,omitempty"`
	Tags                      []tag                 `json:"Tags,omitempty" yaml:"Tags,omitempty"`
}

// tableOf converts the SDK's CreateTable input into the wire shapes.
func tableOf(in *dynamodb.CreateTableInput) table {
	t := table{
		TableName:                 aws.ToString(in.TableName),
		BillingMode:               string(in.BillingMode),
		ProvisionedThroughput:     throughputOf(in.ProvisionedThroughput),
		DeletionProtectionEnabled: in.DeletionProtectionEnabled,
	}
	for _, a := range in.AttributeDefinitions {
		t.AttributeDefinitions = append(t.AttributeDefinitions, attributeDefinition{aws.ToString(a.AttributeName), string(a.AttributeType)})
	}
	t.KeySchema = keysOf(in.KeySchema)
	for _, g := range in.GlobalSecondaryIndexes {
		gi := globalIndex{IndexName: aws.ToString(g.IndexName), KeySchema: keysOf(g.KeySchema), ProvisionedThroughput: throughputOf(g.ProvisionedThroughput)}
		if g.Projection != nil {
			gi.Projection = projection{ProjectionType: string(g.Projection.ProjectionType), NonKeyAttributes: g.Projection.NonKeyAttributes}
		}
		t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, gi)
	}
	for _, l := range in.LocalSecondaryIndexes {
		t.LocalSecondaryIndexes = append(t.LocalSecondaryIndexes, localIndex{IndexName: aws.ToString(l.IndexName), KeySchema: keysOf(l.KeySchema),
			Projection: projection{ProjectionType: string(l.Projection.ProjectionType)}})
	}
	for _, tg := range in.Tags {
		t.Tags = append(t.Tags, tag{aws.ToString(tg.Key), aws.ToString(tg.Value)})
	}
	return t
}

func keysOf(ks []types.KeySchemaElement) []keyElement {
	out := make([]keyElement, len(ks))
	for i, k := range ks {
		out[i] = keyElement{aws.ToString(k.AttributeName), string(k.KeyType)}
	}
	return out
}

func throughputOf(pt *types.ProvisionedThroughput) *throughput {
	if pt == nil {
		return nil
	}
	return &throughput{aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits)}
}
