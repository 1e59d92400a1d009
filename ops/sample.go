package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// samplePage is the Limit of each Scan page of a sample.
const samplePage = 500

// Sample reads what `adjl schema infer` proposes a schema from: the
// table's description (DescribeTable) and at most n of its items, Scan
// page by page (eventually consistent) until n items or the table's end.
// Besides reshard it is the only Scan adjl sends (see scanAPI): inferring a
// schema means reading items whose keys nobody knows yet, and n bounds
// what it costs. Under Explain both requests are handed over.
func (s *Store) Sample(ctx context.Context, n int) (*types.TableDescription, []Item, error) {
	if n < 1 {
		return nil, nil, &InputError{Msg: fmt.Sprintf("--sample must be at least 1, not %d", n)}
	}
	scan := &dynamodb.ScanInput{TableName: aws.String(s.schema.Table.Name), Limit: aws.Int32(int32(min(n, samplePage)))}
	if s.explaining() {
		s.explain("DescribeTable", &dynamodb.DescribeTableInput{TableName: scan.TableName})
		scan.ReturnConsumedCapacity = s.rcc()
		s.explainWhen("Scan", scan, fmt.Sprintf("repeated with the previous page's LastEvaluatedKey until %d items are read or the table ends", n))
		return nil, nil, nil
	}
	desc, err := s.DescribeTable(ctx)
	if err != nil {
		return nil, nil, err
	}
	scanner, ok := s.api.(scanAPI)
	if !ok {
		return desc, nil, errors.New("schema infer: the backend client cannot Scan")
	}
	var items []Item
	for len(items) < n {
		page := *scan
		page.Limit = aws.Int32(int32(min(n-len(items), samplePage)))
		out, err := s.scanPage(ctx, scanner, &page)
		if err != nil {
			return desc, items, fmt.Errorf("scan table %s: %w", s.schema.Table.Name, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		scan.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return desc, items, nil
}
