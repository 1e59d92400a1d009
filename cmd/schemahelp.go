package cmd

import (
	"fmt"
	"strings"
)

// schemaField documents one field of the schema file. NAME stands for a
// name the user chooses (an entity, a relation); SIDE for from or to.
// TestSchemaReferenceMatchesTheParser checks this list against the fields
// the schema package accepts, so the help cannot drift from the parser.
type schemaField struct {
	path string
	doc  string
}

var schemaReference = []schemaField{
	{"version", "schema format version; always 1 for now (required)"},
	{"table", "the one DynamoDB table (required)"},
	{"table.name", "table name: 3-255 of a-z A-Z 0-9 _ . - (required)"},
	{"table.billing", "PAY_PER_REQUEST (default) or PROVISIONED"},
	{"table.capacity", "PROVISIONED only: {read: N, write: N}, for the table and its index"},
	{"table.capacity.read", "read capacity units"},
	{"table.capacity.write", "write capacity units"},
	{"table.keys", "the table's key attribute names, {pk: NAME, sk: NAME} (default {pk: PK, sk: SK})"},
	{"table.keys.pk", "partition key attribute"},
	{"table.keys.sk", "sort key attribute"},
	{"table.index", "the inverted index every reverse read uses"},
	{"table.index.name", "index name (default GSI1)"},
	{"table.index.layout", "generic (default: index keys of its own) or inverted (keyed on sk, pk: an existing adjacency list)"},
	{"table.index.keys", "generic only: the index's key attribute names, {pk: NAME, sk: NAME} (default {pk: GSI1PK, sk: GSI1SK})"},
	{"table.index.keys.pk", "index partition key attribute"},
	{"table.index.keys.sk", "index sort key attribute"},
	{"table.index.projection", "ALL (default), KEYS_ONLY, or INCLUDE"},
	{"table.index.include", "INCLUDE only: the projected attributes, [grade, ...]"},
	{"table.ttl", "the attribute holding each item's expiry (epoch seconds), or false for TTL off; left out: not managed"},
	{"table.tags", "the table's tags, {key: value}; {} for none; left out: not managed"},
	{"table.deletionProtection", "true or false; left out: not managed"},
	{"table.pointInTimeRecovery", "true or false (continuous backups); left out: not managed"},
	{"entities", "the entities, by NAME (lower-case word)"},
	{"entities.NAME.prefix", "key prefix: an upper-case word ending in #, unique (STU#)"},
	{"entities.NAME.attributes", "name: kind; kinds string, number, bool, date, datetime, strings"},
	{"relations", "the relations, by NAME"},
	{"relations.NAME.from", "an entity NAME, or {entity, prefix}: the side whose partition holds the edge (PK)"},
	{"relations.NAME.from.entity", "the entity of the from side"},
	{"relations.NAME.from.prefix", "a role prefix for it (ACTOR#); needed when both sides are one entity"},
	{"relations.NAME.to", "an entity NAME, or {entity, prefix}: the side the index lists the edge under (GSI1PK)"},
	{"relations.NAME.to.entity", "the entity of the to side"},
	{"relations.NAME.to.prefix", "a role prefix for it (TARGET#)"},
	{"relations.NAME.edge", `edge sort-key prefix (ENROLL# gives SK ENROLL#CRS#<id>); "" for none`},
	{"relations.NAME.verbs", "the commands the relation adds; each must not be a built-in command"},
	{"relations.NAME.verbs.link", "link verb (enroll)"},
	{"relations.NAME.verbs.unlink", "unlink verb (unenroll)"},
	{"relations.NAME.verbs.check", "check verb, exit 0 linked, 1 not (enrolled)"},
	{"relations.NAME.verbs.forward", "forward list verb, from side to to side, base table (courses)"},
	{"relations.NAME.verbs.reverse", "reverse list verb, to side to from side, index (members)"},
	{"relations.NAME.attributes", "edge attributes, name: kind, set with --set"},
	{"relations.NAME.counters", "counter attributes kept on each side's item, changed in the link's transaction"},
	{"relations.NAME.counters.from", "the from side's counter: a NAME, or {name, shards}"},
	{"relations.NAME.counters.from.name", "counter attribute name"},
	{"relations.NAME.counters.from.shards", "spread a hot counter over N counter items (get shows the sum)"},
	{"relations.NAME.counters.to", "the to side's counter: a NAME, or {name, shards}"},
	{"relations.NAME.counters.to.name", "counter attribute name"},
	{"relations.NAME.counters.to.shards", "spread a hot counter over N counter items"},
	{"relations.NAME.shards", "reverse-index shards for celebrity partitions, 1-64 (default 1); changing it needs adjl reshard"},
	{"relations.NAME.requireEntities", "true: a link (and an import, before it writes) is refused unless both entity items exist (default false)"},
	{"relations.NAME.sort", "order the relation's lists by an edge attribute, then by key (docs/ordered.md)"},
	{"relations.NAME.sort.by", "the edge attribute: a string, date, datetime or number one (required)"},
	{"relations.NAME.sort.default", "now: a link without the attribute gets the link's time (date, datetime and string only); left out: every link must give it"},
	{"relations.NAME.sort.order", "asc (default) or desc: the lists' order; --asc and --desc override it"},
	{"relations.NAME.sort.index", "composite (default: the value leads the index sort key, any backend) or multi-attribute (an index keyed on the attribute itself)"},
	{"relations.NAME.sort.forward", "true: forward lists ordered too, through a local secondary index (a new table only)"},
}

// schemaReferenceHelp renders the reference for adjl help schema.
func schemaReferenceHelp() string {
	var b strings.Builder
	b.WriteString(`The schema file is YAML (--schema FILE, default ./adjl.yaml; adjl init writes a
commented one). Unknown fields, bad values, duplicate or overlapping prefixes,
verbs that collide with commands, and a shard count the table disagrees with
are errors reported as file:line:col (exit 3). Fields:

`)
	width := 0
	for _, f := range schemaReference {
		width = max(width, len(f.path))
	}
	for _, f := range schemaReference {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, f.path, f.doc)
	}
	b.WriteString(`
A minimal schema:

  version: 1
  table: {name: school, index: {name: GSI1, projection: ALL}}
  entities:
    student: {prefix: "STU#", attributes: {name: string}}
    course:  {prefix: "CRS#", attributes: {title: string}}
  relations:
    enrollment:
      from: student
      to: course
      edge: "ENROLL#"
      verbs: {link: enroll, unlink: unenroll, check: enrolled, forward: courses, reverse: members}
      attributes: {grade: string}
      counters: {from: courseCount, to: studentCount}`)
	return b.String()
}
