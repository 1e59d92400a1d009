package iac

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hcl is a small writer of HCL blocks laid out the way `terraform fmt`
// lays them out: two-space indents, and the "=" of consecutive one-line
// attributes aligned.
type hcl struct {
	b      strings.Builder
	indent int
	run    []hclAttr // consecutive one-line attributes, written on flush
}

type hclAttr struct{ name, value string }

func (h *hcl) attr(name, value string) { h.run = append(h.run, hclAttr{name, value}) }

func (h *hcl) flush() {
	width := 0
	for _, a := range h.run {
		width = max(width, len(a.name))
	}
	for _, a := range h.run {
		fmt.Fprintf(&h.b, "%s%-*s = %s\n", strings.Repeat("  ", h.indent), width, a.name, a.value)
	}
	h.run = nil
}

func (h *hcl) line(s string) {
	h.flush()
	if s == "" {
		h.b.WriteString("\n")
		return
	}
	fmt.Fprintf(&h.b, "%s%s\n", strings.Repeat("  ", h.indent), s)
}

func (h *hcl) open(head string) {
	h.line(head + " {")
	h.indent++
}

func (h *hcl) close() {
	h.flush()
	h.indent--
	h.line("}")
}

// hclString quotes s as an HCL string literal: JSON escapes, plus "${" and
// "%{" doubled so they are not read as template sequences.
func hclString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}

var hclIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// hclKey is a map key: bare when it is an identifier, else quoted.
func hclKey(s string) string {
	if hclIdentRE.MatchString(s) {
		return s
	}
	return hclString(s)
}

// ResourceName is the Terraform resource's name: the table name with every
// character an identifier cannot hold replaced by "_".
func ResourceName(tableName string) string {
	var b strings.Builder
	for i, r := range tableName {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '-' && i > 0, r >= '0' && r <= '9' && i > 0:
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			b.WriteString("t_")
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Terraform is an aws_dynamodb_table resource for the table, its index and
// the settings the schema manages, with the arguments of the hashicorp/aws
// provider (deletion_protection_enabled needs v4.56 or later).
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table
func Terraform(s *schema.Schema) []byte {
	in := tabledef.CreateTableInput(s)
	st := s.Table.Settings
	h := &hcl{}
	h.line("# " + generatedBy(s, "terraform"))
	h.open(fmt.Sprintf("resource %q %q", "aws_dynamodb_table", ResourceName(s.Table.Name)))
	h.attr("name", hclString(s.Table.Name))
	h.attr("billing_mode", hclString(string(in.BillingMode)))
	h.attr("hash_key", hclString(aws.ToString(in.KeySchema[0].AttributeName)))
	h.attr("range_key", hclString(aws.ToString(in.KeySchema[1].AttributeName)))
	if pt := in.ProvisionedThroughput; pt != nil {
		h.attr("read_capacity", strconv.FormatInt(aws.ToInt64(pt.ReadCapacityUnits), 10))
		h.attr("write_capacity", strconv.FormatInt(aws.ToInt64(pt.WriteCapacityUnits), 10))
	}
	if dp := st.DeletionProtection; dp != nil {
		h.attr("deletion_protection_enabled", strconv.FormatBool(*dp))
	}
	for _, a := range in.AttributeDefinitions {
		h.line("")
		h.open("attribute")
		h.attr("name", hclString(aws.ToString(a.AttributeName)))
		h.attr("type", hclString(string(a.AttributeType)))
		h.close()
	}
	for _, g := range in.GlobalSecondaryIndexes {
		h.line("")
		h.open("global_secondary_index")
		h.attr("name", hclString(aws.ToString(g.IndexName)))
		if len(g.KeySchema) > 2 {
			keySchemaBlocks(h, g.KeySchema)
		} else {
			h.attr("hash_key", hclString(aws.ToString(g.KeySchema[0].AttributeName)))
			h.attr("range_key", hclString(aws.ToString(g.KeySchema[1].AttributeName)))
		}
		h.attr("projection_type", hclString(string(g.Projection.ProjectionType)))
		if nk := g.Projection.NonKeyAttributes; len(nk) > 0 {
			quoted := make([]string, len(nk))
			for i, n := range nk {
				quoted[i] = hclString(n)
			}
			h.attr("non_key_attributes", "["+strings.Join(quoted, ", ")+"]")
		}
		if pt := g.ProvisionedThroughput; pt != nil {
			h.attr("read_capacity", strconv.FormatInt(aws.ToInt64(pt.ReadCapacityUnits), 10))
			h.attr("write_capacity", strconv.FormatInt(aws.ToInt64(pt.WriteCapacityUnits), 10))
		}
		h.close()
	}
	for _, l := range in.LocalSecondaryIndexes {
		h.line("")
		h.open("local_secondary_index")
		h.attr("name", hclString(aws.ToString(l.IndexName)))
		h.attr("range_key", hclString(aws.ToString(l.KeySchema[1].AttributeName)))
		h.attr("projection_type", hclString(string(l.Projection.ProjectionType)))
		h.close()
	}
	if st.TTL != nil {
		h.line("")
		h.open("ttl")
		if st.TTL.Attribute != "" {
			h.attr("attribute_name", hclString(st.TTL.Attribute))
		}
		h.attr("enabled", strconv.FormatBool(st.TTL.Attribute != ""))
		h.close()
	}
	if p := st.PointInTimeRecovery; p != nil {
		h.line("")
		h.open("point_in_time_recovery")
		h.attr("enabled", strconv.FormatBool(*p))
		h.close()
	}
	if st.ManageTags {
		h.line("")
		if len(st.Tags) == 0 {
			h.attr("tags", "{}")
		} else {
			h.open("tags =")
			for _, t := range st.Tags {
				h.attr(hclKey(t.Key), hclString(t.Value))
			}
			h.close()
		}
	}
	h.close()
	return []byte(h.b.String())
}

// keySchemaBlocks writes a multi-attribute index's keys as the provider's
// key_schema blocks (one per element, in the API's order: the HASH
// elements, then the RANGE ones), which hash_key and range_key cannot say.
func keySchemaBlocks(h *hcl, ks []types.KeySchemaElement) {
	for _, k := range ks {
		h.open("key_schema")
		h.attr("attribute_name", hclString(aws.ToString(k.AttributeName)))
		h.attr("key_type", hclString(string(k.KeyType)))
		h.close()
	}
}
