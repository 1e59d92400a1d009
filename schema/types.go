// Package schema parses and validates adjl's YAML schema and derives every
// DynamoDB key from it. It is pure: no AWS imports, no I/O beyond reading the
// schema file, so every key layout decision can be unit-tested in isolation.
package schema

import "strings"

// Billing modes accepted in table.billing.
const (
	BillingOnDemand    = "PAY_PER_REQUEST"
	BillingProvisioned = "PROVISIONED"
)

// Projection types accepted in table.index.projection.
const (
	ProjectionAll      = "ALL"
	ProjectionKeysOnly = "KEYS_ONLY"
	ProjectionInclude  = "INCLUDE"
)

// Schema is a validated adjl schema file.
type Schema struct {
	// File is the path the schema was read from; errors quote it.
	File      string
	Version   int
	Table     Table
	Entities  []*Entity   // in file order
	Relations []*Relation // in file order
}

// Table describes the single DynamoDB table and its inverted index.
type Table struct {
	Name       string
	Billing    string // BillingOnDemand or BillingProvisioned
	ReadUnits  int64  // provisioned only; also used for the index
	WriteUnits int64  // provisioned only; also used for the index
	Index      Index
	// Layout names the key attributes of the table and the index (layout.go).
	// Read it through Schema.Layout, which gives hand-built schemas the default.
	Layout   Layout
	Settings Settings // TTL, tags, deletion protection, PITR (tablespec.go)
}

// Index is the inverted global secondary index.
type Index struct {
	Name       string   // default "GSI1"
	Projection string   // ProjectionAll, ProjectionKeysOnly or ProjectionInclude
	Include    []string // non-key attributes, INCLUDE only
}

// AttrKind is the declared type of an entity or edge attribute.
type AttrKind string

// Attribute kinds. Dates and datetimes are stored as strings so that they sort
// correctly in DynamoDB; they are validated on input.
const (
	KindString   AttrKind = "string"
	KindNumber   AttrKind = "number"
	KindBool     AttrKind = "bool"
	KindDate     AttrKind = "date"     // YYYY-MM-DD
	KindDatetime AttrKind = "datetime" // RFC 3339
	KindStrings  AttrKind = "strings"  // string set, comma separated on input
)

// Noun names the kind for messages: "a number", "a set of strings".
func (k AttrKind) Noun() string {
	if k == KindStrings {
		return "a set of strings"
	}
	return "a " + string(k)
}

// Attribute is one declared attribute.
type Attribute struct {
	Name string
	Kind AttrKind
}

// Entity is a kind of node: student, course, user.
type Entity struct {
	Name       string
	Prefix     string // e.g. "STU#"; always ends with Delimiter
	Attributes []Attribute

	prefixes prefixOwners // every prefix of the schema, for key messages
}

// Delimiter ends every prefix.
const Delimiter = "#"

// Side is one end of a relation: an entity, seen through a role prefix.
// Without a role the prefix is the entity's own.
type Side struct {
	Entity *Entity
	Prefix string // role prefix, e.g. "ACTOR#"; equals Entity.Prefix when no role
}

// EntityKey is the key of the entity item behind key, a key of this side:
// ACTOR#alice is USER#alice's.
func (s Side) EntityKey(key string) string {
	return s.Entity.Prefix + strings.TrimPrefix(key, s.Prefix)
}

// Verbs are the command names a relation adds to the CLI.
type Verbs struct {
	Link    string // enroll
	Unlink  string // unenroll
	Check   string // enrolled
	Forward string // courses  (from -> to, base table)
	Reverse string // members  (to -> from, GSI1)
}

// Counters name the counter attributes kept on each side's item. Empty means
// the relation keeps no counter on that side.
type Counters struct {
	From string // on the from-side item, counts its edges: courseCount
	To   string // on the to-side item, counts its edges: studentCount
	// FromShards and ToShards spread a side's counter over that many counter
	// items (a celebrity's follower count is a hot item otherwise). 1 (or 0,
	// in schemas built by hand) keeps the counter on the side item itself.
	FromShards, ToShards int
}

// Relation is a many-to-many relation stored as one edge item per pair.
type Relation struct {
	Name       string
	From       Side
	To         Side
	Edge       string // edge SK prefix, e.g. "ENROLL#"; may be empty (social graph)
	Verbs      Verbs
	Attributes []Attribute
	Counters   Counters
	// Shards spreads the reverse (GSI1) partition of each to-key over this many
	// partitions. 1 means unsharded.
	Shards int
	// RequireEntities makes every link refuse, in its own transaction, when
	// either side's entity item does not exist.
	RequireEntities bool
	// Sort orders the relation's lists by an edge attribute (sort.go); nil
	// lists in key order.
	Sort *Sort

	prefixes prefixOwners // every prefix of the schema, for key messages
}

// Keys are the key values of an item: its table keys and its index keys.
// Which attributes hold them is the Layout's business (Layout.KeyValues):
// in the inverted layout the index keys are the table keys themselves.
type Keys struct {
	PK, SK, IndexPK, IndexSK string
}

// DynamoDB key size limits, in bytes of UTF-8.
const (
	MaxPartitionKeyBytes = 2048
	MaxSortKeyBytes      = 1024
)
