// Package infer proposes an adjl schema for an existing table from its
// description and a sample of its items (what `adjl schema infer` reads):
// the key names and the index layout from the description; entity prefixes
// from the items whose partition and sort keys are equal; relations from
// the other items, by the prefixes of their keys; attribute kinds from the
// values. The proposal is a starting point the user edits: names are
// guessed from prefixes (or from adjl's own type attribute when the table
// has one), and whatever could not be placed is listed in Notes. It reads
// nothing itself.
package infer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is one sampled item, as the SDK returns it.
type Item = map[string]types.AttributeValue

// Proposal is a proposed schema.
type Proposal struct {
	Table string
	Items int // items sampled
	// Layout names the key attributes; Index is the index's name.
	Layout schema.Layout
	Index  string
	// NewIndex is set when the table has no index adjl can use: the
	// proposal's (inverted, backfilled from the items as they are) is one
	// `adjl table apply` creates.
	NewIndex   bool
	Projection string
	Include    []string
	Billing    string
	Read       int64 // provisioned units, PROVISIONED only
	Write      int64
	Entities   []*Entity   // by name
	Relations  []*Relation // by name
	// Notes say what was guessed or left out, one sentence each.
	Notes []string
}

// Entity is a proposed entity.
type Entity struct {
	Name, Prefix string
	Items        int // its items in the sample
	Attributes   []schema.Attribute
}

// Relation is a proposed relation.
type Relation struct {
	Name     string
	From, To Side
	Edge     string
	Edges    int // its edges in the sample
	// Attributes are the edge attributes seen.
	Attributes []schema.Attribute
	From1, To1 Counter // the counters kept on each side ("" for none)
	Shards     int
}

// Side is one end of a proposed relation: an entity, and a role prefix when
// the side's keys carry another prefix than the entity's own.
type Side struct {
	Entity string
	Role   string // role prefix, or ""
}

// Counter is a counter kept on a side's items.
type Counter struct {
	Name   string
	Shards int // counter items it is spread over; 1 on the item itself
}

// ErrNoSortKey refuses a table keyed by a partition key alone: an
// adjacency list needs both keys.
var ErrNoSortKey = errors.New("the table has no sort key: adjl's adjacency list stores an edge under its from-key (partition key) and to-key (sort key), so it needs a table with both")

// Propose proposes a schema for the described table from a sample of its
// items.
func Propose(desc *types.TableDescription, items []Item) (*Proposal, error) {
	if desc == nil {
		return nil, errors.New("no table description")
	}
	p := &Proposal{Table: aws.ToString(desc.TableName), Items: len(items)}
	pk, sk := tabledef.KeyNames(desc.KeySchema)
	if sk == "" {
		return nil, ErrNoSortKey
	}
	p.layout(desc, pk, sk, items)
	p.billing(desc)
	s := newSample(p.Layout)
	for _, it := range items {
		s.add(it)
	}
	s.resolve(p)
	if s.skipped > 0 {
		p.note("%d of the %d items sampled have keys that do not start with an upper-case word and %q (e.g. STU#a91) and were left out", s.skipped, len(items), schema.Delimiter)
	}
	return p, nil
}

func (p *Proposal) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// layout picks the index adjl reads: an inverted one (the table's keys
// swapped) first, then a generic one with string keys, GSI1 by name first,
// whose keys the items hold as adjl would write them (see adjlShaped): a
// generic index the table uses otherwise is left alone, since adjl would
// overwrite its keys. A table with none of these gets a proposed inverted
// index.
func (p *Proposal) layout(desc *types.TableDescription, pk, sk string, items []Item) {
	strKeys := map[string]bool{}
	for _, d := range desc.AttributeDefinitions {
		strKeys[aws.ToString(d.AttributeName)] = d.AttributeType == types.ScalarAttributeTypeS
	}
	type candidate struct {
		l schema.Layout
		g types.GlobalSecondaryIndexDescription
	}
	var found []candidate
	for _, g := range desc.GlobalSecondaryIndexes {
		ipk, isk := tabledef.KeyNames(g.KeySchema)
		l, ok := schema.RecognizeLayout(pk, sk, ipk, isk)
		if !ok || !strKeys[ipk] || !strKeys[isk] {
			continue
		}
		if !l.Inverted() {
			if odd, seen := adjlShaped(l, items); odd*10 > seen {
				p.note("index %s is keyed %s, %s, but %d of the %d sampled items holding them hold other values than adjl writes there (the item's own key, or for an edge its to-key and from-key), so adjl would overwrite them; the proposal does not use it", aws.ToString(g.IndexName), ipk, isk, odd, seen)
				continue
			}
		}
		found = append(found, candidate{l, g})
	}
	slices.SortStableFunc(found, func(a, b candidate) int {
		rank := func(c candidate) int {
			switch {
			case c.l.Inverted():
				return 0
			case strings.EqualFold(aws.ToString(c.g.IndexName), schema.DefaultIndexName):
				return 1
			}
			return 2
		}
		return cmp.Compare(rank(a), rank(b))
	})
	if !strKeys[pk] || !strKeys[sk] {
		p.note("the table's keys %s and %s are not both strings; adjl writes string keys", pk, sk)
	}
	if len(found) == 0 {
		p.Layout, p.Index, p.NewIndex, p.Projection = schema.InvertedLayout(pk, sk), "inverted", true, schema.ProjectionAll
		p.note("the table has no global index on string keys that adjl can read (its own keys swapped, or keys of its own): the proposal names an inverted index on %s, %s, which `adjl table apply` creates and DynamoDB fills from the items as they are", sk, pk)
		return
	}
	c := found[0]
	p.Layout, p.Index = c.l, aws.ToString(c.g.IndexName)
	p.Projection = schema.ProjectionAll
	if c.g.Projection != nil && c.g.Projection.ProjectionType != "" {
		p.Projection = string(c.g.Projection.ProjectionType)
		p.Include = slices.Clone(c.g.Projection.NonKeyAttributes)
	}
	if len(found) > 1 {
		p.note("the table has %d indexes adjl could read; the proposal uses %s", len(found), p.Index)
	}
}

// adjlShaped counts, among the items holding both of the generic layout
// l's index keys, those (odd) whose values are not what adjl writes: an
// entity item's key in both, or an edge's to-key (or a shard of it) and
// from-key. adjl's own metadata and counter items hold no index keys.
func adjlShaped(l schema.Layout, items []Item) (odd, seen int) {
	for _, it := range items {
		pk, sk := str(it[l.PK]), str(it[l.SK])
		ipk, isk := str(it[l.IndexPK]), str(it[l.IndexSK])
		if ipk == "" || isk == "" {
			continue
		}
		seen++
		base := ipk
		if i := strings.LastIndex(ipk, schema.Delimiter); i >= 0 {
			if _, err := strconv.Atoi(ipk[i+1:]); err == nil && pk != sk {
				base = ipk[:i]
			}
		}
		if isk != pk || !strings.HasSuffix(sk, base) && !strings.HasSuffix(sk, ipk) {
			odd++
		}
	}
	return odd, seen
}

func (p *Proposal) billing(desc *types.TableDescription) {
	p.Billing = schema.BillingOnDemand
	if desc.BillingModeSummary != nil && desc.BillingModeSummary.BillingMode == types.BillingModeProvisioned ||
		desc.BillingModeSummary == nil && desc.ProvisionedThroughput != nil && aws.ToInt64(desc.ProvisionedThroughput.ReadCapacityUnits) > 0 {
		p.Billing = schema.BillingProvisioned
		p.Read = aws.ToInt64(desc.ProvisionedThroughput.ReadCapacityUnits)
		p.Write = aws.ToInt64(desc.ProvisionedThroughput.WriteCapacityUnits)
	}
}
