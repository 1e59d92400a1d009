package ops

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// MissingEntities returns those of keys (entity item keys, such as STU#a91)
// that have no item, in the order given: an import into a relation with
// requireEntities checks them all before it writes an edge, as each link
// does in its own transaction. It reads only the keys, with strongly
// consistent BatchGetItems of 100.
func (s *Store) MissingEntities(ctx context.Context, keys []string) ([]string, error) {
	proj := expression.NamesList(expression.NameNoDotSplit(s.layout.PK), expression.NameNoDotSplit(s.layout.SK))
	ex, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		return nil, fmt.Errorf("build entity read: %w", err)
	}
	items := make([][2]string, len(keys))
	for i, k := range keys {
		items[i] = [2]string{k, k}
	}
	found := make(map[[2]string]Item, len(keys))
	if err := s.batchGetAll(ctx, "look for entity items", items, ex, found, recountOptions{}, ""); err != nil {
		return nil, err
	}
	var missing []string
	for _, k := range keys {
		if _, ok := found[[2]string{k, k}]; !ok {
			missing = append(missing, k)
		}
	}
	return missing, nil
}
