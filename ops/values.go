package ops

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// marshalValue turns one typed attribute value (as schema.ParseSets returns
// it) into an AttributeValue: numbers as N, string lists as SS.
func marshalValue(name string, v any) (types.AttributeValue, error) {
	switch x := v.(type) {
	case types.AttributeValue:
		return x, nil
	case string: // what attributevalue.Marshal gives, without its reflection
		return &types.AttributeValueMemberS{Value: x}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case schema.Number:
		return &types.AttributeValueMemberN{Value: string(x)}, nil
	case []string:
		if len(x) == 0 {
			return nil, &InputError{Msg: fmt.Sprintf("attribute %s: a string set cannot be empty in DynamoDB", name)}
		}
		set := slices.Clone(x)
		sort.Strings(set)
		return &types.AttributeValueMemberSS{Value: slices.Compact(set)}, nil
	}
	av, err := attributevalue.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("attribute %s: %w", name, err)
	}
	return av, nil
}

// marshalAttrs marshals user attributes in name order (stable expressions)
// and refuses the attributes the layout manages (keys, type).
func (s *Store) marshalAttrs(attrs map[string]any) ([]string, map[string]types.AttributeValue, error) {
	names := make([]string, 0, len(attrs))
	out := make(map[string]types.AttributeValue, len(attrs))
	for name, v := range attrs {
		if slices.Contains(s.layout.Reserved(), name) {
			return nil, nil, &InputError{Msg: fmt.Sprintf("attribute %s is managed by adjl and cannot be set", name)}
		}
		av, err := marshalValue(name, v)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, name)
		out[name] = av
	}
	sort.Strings(names)
	return names, out, nil
}

// str marshals a string key value.
func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// keyOf is the primary key of an item with the given PK and SK.
func (s *Store) keyOf(pk, sk string) Item {
	return Item{s.layout.PK: str(pk), s.layout.SK: str(sk)}
}

// updateInput is an UpdateItem of the item with the given PK and SK in the
// schema's table, with ex's update, condition (if any), names and values.
func (s *Store) updateInput(pk, sk string, ex expression.Expression) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(pk, sk),
		UpdateExpression: ex.Update(), ConditionExpression: ex.Condition(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}
}

// keyItem is the key attributes of an item with keys k, as the layout
// names them: the table keys, and the index keys when the layout has its own.
func (s *Store) keyItem(k schema.Keys) Item {
	kv := s.layout.KeyValues(k)
	it := make(Item, len(kv))
	for _, v := range kv {
		it[v.Name] = str(v.Value)
	}
	return it
}

// pkName is the table's partition key attribute, for conditions
// (attribute_exists(PK)).
func (s *Store) pkName() expression.NameBuilder { return expression.NameNoDotSplit(s.layout.PK) }

// sOf reads a string attribute, "" when absent or of another type.
func sOf(it Item, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// sameValue compares two attribute values as DynamoDB does: sets ignore
// order, numbers compare numerically ("1.0" equals "1").
func sameValue(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		p, ok1 := new(big.Rat).SetString(x.Value)
		q, ok2 := new(big.Rat).SetString(y.Value)
		if ok1 && ok2 {
			return p.Cmp(q) == 0
		}
		return x.Value == y.Value
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		if !ok {
			return false
		}
		p, q := slices.Clone(x.Value), slices.Clone(y.Value)
		sort.Strings(p)
		sort.Strings(q)
		return slices.Equal(p, q)
	}
	return reflect.DeepEqual(a, b)
}

// holdsAny reports whether item has any of the named attributes.
func holdsAny(item Item, names []string) bool {
	for _, n := range names {
		if _, ok := item[n]; ok {
			return true
		}
	}
	return false
}

// unchangedBy reports whether every value in want already equals old's.
func unchangedBy(old, want Item) bool {
	for name, v := range want {
		o, ok := old[name]
		if !ok || !sameValue(o, v) {
			return false
		}
	}
	return true
}

// PlainValue converts an AttributeValue to a plain Go value. Numbers become
// json.Number so that 12345678901234567890 and 0.1 print exactly as stored.
func PlainValue(av types.AttributeValue) (any, error) {
	var v any
	err := attributevalue.UnmarshalWithOptions(av, &v, func(o *attributevalue.DecoderOptions) { o.UseNumber = true })
	if err != nil {
		return nil, fmt.Errorf("decode attribute value: %w", err)
	}
	return normalizeNumbers(v), nil
}

func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case attributevalue.Number:
		return json.Number(t)
	case []attributevalue.Number:
		out := make([]json.Number, len(t))
		for i, n := range t {
			out[i] = json.Number(n)
		}
		return out
	case []any:
		for i := range t {
			t[i] = normalizeNumbers(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = normalizeNumbers(t[k])
		}
		return t
	}
	return v
}
