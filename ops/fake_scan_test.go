package ops

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Scan gives the fake the one operation only reshard uses: items in key
// order, Limit counted before the filter (as DynamoDB does), a
// LastEvaluatedKey whenever the limit is reached, and a projection of
// top-level names.
func (m *memAPI) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := m.record("Scan", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([][2]string, 0, len(m.items))
	for k := range m.items {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return slices.Compare(keys[i][:], keys[j][:]) < 0 })
	if in.ExclusiveStartKey != nil {
		start := keyPair(in.ExclusiveStartKey)
		i := sort.Search(len(keys), func(i int) bool { return slices.Compare(keys[i][:], start[:]) > 0 })
		keys = keys[i:]
	}
	out := &dynamodb.ScanOutput{ConsumedCapacity: cc(in.ReturnConsumedCapacity)}
	if in.Limit != nil && int(*in.Limit) <= len(keys) {
		keys = keys[:*in.Limit]
		last := keys[len(keys)-1]
		out.LastEvaluatedKey = Item{"PK": str(last[0]), "SK": str(last[1])}
	}
	for _, k := range keys {
		it := m.items[k]
		if in.FilterExpression != nil && !evalCond(*in.FilterExpression, it, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
			continue
		}
		if p := aws.ToString(in.ProjectionExpression); p != "" {
			proj := Item{}
			for _, alias := range strings.Split(p, ",") {
				name := in.ExpressionAttributeNames[strings.TrimSpace(alias)]
				if v, ok := it[name]; ok {
					proj[name] = v
				}
			}
			it = proj
		}
		out.Items = append(out.Items, clone(it))
	}
	out.Count = int32(len(out.Items))
	return out, nil
}

var _ scanAPI = (*memAPI)(nil)
