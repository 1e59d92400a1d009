package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ExportOptions tune Export.
type ExportOptions struct {
	Segments int // parallel Scan segments (default 4)
	// Progress, when set, is called after every Scan page with the rows
	// emitted and the items scanned so far.
	Progress func(rows, scanned int64)
}

// ExportReport says what Export read.
type ExportReport struct {
	Rows     int64 // rows emitted
	Scanned  int64 // items the Scan returned (after its type filter)
	Requests int64 // Scan pages
	// UndeclaredRows are the rows whose item holds attributes the schema
	// does not declare (written around adjl), which rows leave out;
	// Undeclared are those attributes' names, sorted.
	UndeclaredRows int64
	Undeclared     []string
}

// Export emits every edge of t.Relation, or every item of t.Entity, as the
// row import reads: full keys and the declared attributes, typed. Listing a
// whole relation has no key to Query by, so it is a parallel Scan of the
// table filtered on the type attribute; on DynamoDB that reads (and bills)
// every item of the table (see itemsOf). Rows come in no particular order; emit is called
// from one goroutine at a time.
func (s *Store) Export(ctx context.Context, t rowfile.Target, opt ExportOptions, emit func(rowfile.Row) error) (*ExportReport, error) {
	if opt.Segments <= 0 {
		opt.Segments = 4
	}
	if t.Relation != nil {
		if err := s.checkRecordedShards(ctx, t.Relation); err != nil {
			return nil, err
		}
	}
	ex, err := expression.NewBuilder().WithFilter(s.itemsOf(t)).Build()
	if err != nil {
		return nil, fmt.Errorf("build scan: %w", err)
	}
	in := &dynamodb.ScanInput{
		TableName: aws.String(s.schema.Table.Name), ConsistentRead: aws.Bool(true),
		FilterExpression: ex.Filter(), ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}
	rep := &ExportReport{}
	stats := &counterStats{}
	known := s.exportKnown(t)
	undeclared := map[string]bool{}
	var mu sync.Mutex
	err = s.scanSegments(ctx, in, opt.Segments, stats, func(page []Item) error {
		mu.Lock()
		defer mu.Unlock()
		rep.Scanned += int64(len(page))
		for _, it := range page {
			row, ok, err := s.exportRow(t, it)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := emit(row); err != nil {
				return err
			}
			rep.Rows++
			extra := false
			for name := range it {
				if !known[name] && !schema.IsReservedAttribute(name) {
					undeclared[name], extra = true, true
				}
			}
			if extra {
				rep.UndeclaredRows++
			}
		}
		if opt.Progress != nil {
			opt.Progress(rep.Rows, rep.Scanned)
		}
		return nil
	})
	rep.Requests = stats.get(reqScan)
	rep.Undeclared = slices.Sorted(maps.Keys(undeclared))
	return rep, err
}

// exportKnown are the attribute names an item of t may hold that are not
// undeclared: the layout's keys and type, t's declared attributes, and on
// an entity item the counters relations keep there (export leaves them out
// because import recounts them). adjl's reserved attributes (shard stamps)
// are known by their prefix.
func (s *Store) exportKnown(t rowfile.Target) map[string]bool {
	known := map[string]bool{}
	for _, n := range s.layout.Reserved() {
		known[n] = true
	}
	for _, a := range t.Attributes() {
		known[a.Name] = true
	}
	if t.Entity != nil {
		for _, r := range s.schema.Relations {
			for _, end := range []schema.End{schema.FromEnd, schema.ToEnd} {
				if name, _ := r.Counter(end); name != "" {
					known[name] = true
				}
			}
		}
	}
	return known
}

// exportRow turns an item into a row; ok is false for an item of the type
// that is not shaped like one (written by hand).
func (s *Store) exportRow(t rowfile.Target, it Item) (rowfile.Row, bool, error) {
	pk, sk := sOf(it, s.layout.PK), sOf(it, s.layout.SK)
	var row rowfile.Row
	if rel := t.Relation; rel != nil {
		if pk == sk || !strings.HasPrefix(pk, rel.From.Prefix) || !strings.HasPrefix(sk, rel.EdgeSKPrefix()) {
			return row, false, nil
		}
		row.From, row.To = pk, sk[len(rel.Edge):]
	} else {
		if pk != sk || !strings.HasPrefix(pk, t.Entity.Prefix) {
			return row, false, nil
		}
		row.ID = pk
	}
	for _, a := range t.Attributes() {
		av, ok := it[a.Name]
		if !ok {
			continue
		}
		v, err := typedOf(a.Kind, av)
		if err != nil {
			return row, false, &InputError{Msg: fmt.Sprintf("export %s: item %s %s: attribute %s: %v", t.Name(), pk, sk, a.Name, err)}
		}
		row.Attrs = append(row.Attrs, rowfile.Attr{Name: a.Name, Value: v})
	}
	return row, true, nil
}

// typedOf is the value of a stored attribute as rowfile types it.
func typedOf(kind schema.AttrKind, av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		if kind == schema.KindString || kind == schema.KindDate || kind == schema.KindDatetime {
			return x.Value, nil
		}
	case *types.AttributeValueMemberN:
		if kind == schema.KindNumber {
			return schema.Number(x.Value), nil
		}
	case *types.AttributeValueMemberBOOL:
		if kind == schema.KindBool {
			return x.Value, nil
		}
	case *types.AttributeValueMemberSS:
		if kind == schema.KindStrings {
			return x.Value, nil
		}
	}
	return nil, fmt.Errorf("holds a %s, but the schema declares it %s; fix the item (or the schema) and export again", avType(av), kind)
}

func avType(av types.AttributeValue) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", av), "*types.AttributeValueMember")
}
