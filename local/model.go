package local

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/adjl/adjl/local/internal/attr"
)

// The wire shapes of table descriptions. They double as the persisted form in
// the meta bucket, so a description survives restarts byte for byte.

type keySchemaElement struct {
	AttributeName string
	KeyType       string
}

type attributeDefinition struct {
	AttributeName string
	AttributeType string
}

type projectionDesc struct {
	ProjectionType   string   `json:",omitempty"`
	NonKeyAttributes []string `json:",omitempty"`
}

type throughputIn struct {
	ReadCapacityUnits  *int64 `json:",omitempty"`
	WriteCapacityUnits *int64 `json:",omitempty"`
}

type throughputDesc struct {
	LastDecreaseDateTime   float64 `json:",omitempty"`
	LastIncreaseDateTime   float64 `json:",omitempty"`
	NumberOfDecreasesToday int64
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
}

type billingSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime float64 `json:",omitempty"`
}

type indexDesc struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            projectionDesc
	IndexStatus           string          `json:",omitempty"` // GSIs only
	Backfilling           *bool           `json:",omitempty"`
	ProvisionedThroughput *throughputDesc `json:",omitempty"`
	IndexSizeBytes        int64
	ItemCount             int64
	IndexArn              string
}

type ttlDesc struct {
	AttributeName    string `json:",omitempty"`
	TimeToLiveStatus string
}

type tag struct {
	Key   string
	Value string
}

// tableDesc is DescribeTable's TableDescription.
type tableDesc struct {
	TableName              string
	TableId                string
	TableArn               string
	TableStatus            string
	CreationDateTime       float64
	KeySchema              []keySchemaElement
	AttributeDefinitions   []attributeDefinition
	ProvisionedThroughput  *throughputDesc `json:",omitempty"`
	BillingModeSummary     *billingSummary `json:",omitempty"`
	GlobalSecondaryIndexes []indexDesc     `json:",omitempty"`
	LocalSecondaryIndexes  []indexDesc     `json:",omitempty"`
	TableSizeBytes         int64
	ItemCount              int64

	DeletionProtectionEnabled bool
}

// storedTable is what the meta bucket holds for a table.
type storedTable struct {
	Desc tableDesc
	TTL  ttlDesc
	Tags []tag
	// PITR is point-in-time recovery (continuousbackups.go); nil while off.
	PITR *pitrState `json:",omitempty"`
}

// table is the in-memory, ready-to-use form of a table's description.
type table struct {
	stored   storedTable
	name     string
	hash     string
	rng      string // "" when the table has no sort key
	hashKind attr.Kind
	rngKind  attr.Kind
	defs     map[string]attr.Kind // AttributeDefinitions
	indexes  []*index
	byName   map[string]*index
	bucket   []byte
}

// index is one GSI or LSI.
type index struct {
	name     string
	global   bool
	hash     string
	rng      string
	hashKind attr.Kind
	rngKind  attr.Kind
	projType string          // ALL, KEYS_ONLY, INCLUDE
	include  map[string]bool // INCLUDE: non-key attributes projected
	bucket   []byte
}

// projects reports whether attribute name is stored in the index for t.
func (x *index) projects(t *table, name string) bool {
	switch {
	case x.projType == "ALL":
		return true
	case name == t.hash || name == t.rng || name == x.hash || name == x.rng:
		return true
	case x.projType == "INCLUDE":
		return x.include[name]
	}
	return false
}

type tableDescOut struct {
	TableDescription tableDesc
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }
