package ops

import (
	"context"
	"fmt"
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
		}
		if opt.Progress != nil {
			opt.Progress(rep.Rows, rep.Scanned)
		}
		return nil
	})
	rep.Requests = stats.get(reqScan)
	return rep, err
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
			return row, false, fmt.Errorf("export %s: item %s %s: attribute %s: %w", t.Name(), pk, sk, a.Name, err)
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
