package ops

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// listOrder is how a list reads an ordered relation, or applies --where
// and --filter: which index serves the direction, the key condition on
// the sort attribute, the filter, and the order.
type listOrder struct {
	rel *schema.Relation
	dir Direction
	// sorted: the relation's sort orders this direction's index (reverse
	// always, forward with sort.forward).
	sorted bool
	where  *schema.Condition
	filter []schema.Condition
	desc   bool
}

// listOrderOf checks a list's order flags against its relation.
func listOrderOf(q ListQuery) (*listOrder, error) {
	rel := q.Relation
	o := &listOrder{rel: rel, dir: q.Direction, where: q.Where, filter: q.Filter}
	o.sorted = rel.Sort != nil && (q.Direction == Reverse || rel.Sort.Forward)
	if q.Ascending && q.Descending {
		return nil, &InputError{Msg: "--asc and --desc contradict each other; give one"}
	}
	o.desc = q.Descending || o.sorted && rel.Sort.Desc && !q.Ascending
	if o.where != nil && !o.sorted {
		return nil, &InputError{Msg: fmt.Sprintf("--where %q: the forward lists of %s are in key order (only sort.forward: true orders them, through a local secondary index, on a new table); use --filter %q, or list the reverse side", o.where, rel.Name, o.where)}
	}
	return o, nil
}

// plain reports whether the list is the one adjl always sent: key order,
// no condition but the relation's prefix.
func (o *listOrder) plain() bool { return !o.sorted && o.where == nil && len(o.filter) == 0 }

// multi reports whether the list reads the relation's multi-attribute index.
func (o *listOrder) multi() bool { return o.sorted && o.dir == Reverse && o.rel.IsMultiAttribute() }

// forwardIndex reports whether the list reads the local secondary index.
func (o *listOrder) forwardIndex() bool { return o.sorted && o.dir == Forward }

// indexName is the index the list reads ("" for the base table).
func (o *listOrder) indexName(s *Store) string {
	switch {
	case o.forwardIndex():
		return schema.ForwardIndexName
	case o.multi():
		return schema.SortIndexName(s.indexName(), o.rel.Sort.By)
	case o.dir == Reverse:
		return s.indexName()
	}
	return ""
}

// sortKey is the attribute the list's order is read from (after the
// partition attributes): the composite or forward key, or in the
// multi-attribute index the attribute itself.
func (o *listOrder) sortKey(l schema.Layout) string {
	switch {
	case o.forwardIndex():
		return schema.ForwardSK
	case o.multi():
		return o.rel.Sort.By
	case o.dir == Reverse:
		return l.IndexSK
	}
	return l.SK
}

// prefix is what every sort key of the list starts with (composite and
// forward keys; key order).
func (o *listOrder) prefix() string {
	if o.dir == Reverse {
		return o.rel.From.Prefix
	}
	return o.rel.EdgeSKPrefix()
}

// cursorKeys are the attributes of a position in the list: the index's
// keys, then the table's.
func (o *listOrder) cursorKeys(l schema.Layout) []string {
	switch {
	case o.forwardIndex():
		return []string{l.PK, schema.ForwardSK, l.SK}
	case o.multi():
		return []string{l.IndexPK, l.Type, o.rel.Sort.By, l.IndexSK, l.PK, l.SK}
	}
	return l.CursorKeys(o.dir == Reverse)
}

// numeric reports whether name holds a number in the list's positions.
func (o *listOrder) numeric(name string) bool {
	return o.multi() && name == o.rel.Sort.By && o.rel.Sort.Kind == schema.KindNumber
}

// orderedInput builds the Query of one partition of a list that is not
// plain: the partition, then the sort attribute's key condition (the
// --where range, or the relation's prefix), and the --filter.
func (s *Store) orderedInput(o *listOrder, part string) (*dynamodb.QueryInput, error) {
	l := s.layout
	in := &dynamodb.QueryInput{TableName: aws.String(s.schema.Table.Name)}
	if ix := o.indexName(s); ix != "" {
		in.IndexName = aws.String(ix)
	}
	pk := l.PK
	if o.dir == Reverse {
		pk = l.IndexPK
	}
	conds := []expression.KeyConditionBuilder{expression.Key(pk).Equal(expression.Value(part))}
	if o.multi() {
		conds = append(conds, expression.Key(l.Type).Equal(expression.Value(o.rel.Name)))
	}
	skc, err := s.sortKeyCondition(o)
	if err != nil {
		return nil, err
	}
	if skc != nil {
		conds = append(conds, *skc)
	}
	key := conds[0]
	if len(conds) > 1 {
		key = expression.KeyAnd(conds...)
	}
	b := expression.NewBuilder().WithKeyCondition(key)
	if f, ok, err := filterCondition(o.filter); err != nil {
		return nil, err
	} else if ok {
		b = b.WithFilter(f)
	}
	ex, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	in.KeyConditionExpression, in.FilterExpression = ex.KeyCondition(), ex.Filter()
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = ex.Names(), ex.Values()
	return in, nil
}

// sortKeyCondition is the condition on the list's sort key: the --where
// range (on the attribute itself in the multi-attribute index, on the
// composite key's bounds otherwise), or begins_with the relation's prefix;
// nil in the multi-attribute index without --where (the partition and
// type select the relation's edges).
func (s *Store) sortKeyCondition(o *listOrder) (*expression.KeyConditionBuilder, error) {
	name := o.sortKey(s.layout)
	var kc expression.KeyConditionBuilder
	switch {
	case o.multi() && o.where == nil:
		return nil, nil
	case o.multi():
		kc = attributeKeyCondition(name, *o.where)
	case o.where != nil:
		kr, err := o.rel.Sort.CompositeRange(o.prefix(), *o.where)
		if err != nil {
			return nil, err
		}
		kc = expression.Key(name).Between(expression.Value(kr.Lo), expression.Value(kr.Hi))
		if kr.BeginsWith != "" {
			kc = expression.Key(name).BeginsWith(kr.BeginsWith)
		}
	default:
		kc = expression.Key(name).BeginsWith(o.prefix())
	}
	return &kc, nil
}

// attributeKeyCondition is c on the attribute itself, its values typed.
func attributeKeyCondition(name string, c schema.Condition) expression.KeyConditionBuilder {
	k := expression.Key(name)
	v := func(i int) expression.ValueBuilder { return expression.Value(typedValue(c.Values[i])) }
	switch c.Op {
	case schema.OpEq:
		return k.Equal(v(0))
	case schema.OpLt:
		return k.LessThan(v(0))
	case schema.OpLe:
		return k.LessThanEqual(v(0))
	case schema.OpGt:
		return k.GreaterThan(v(0))
	case schema.OpGe:
		return k.GreaterThanEqual(v(0))
	case schema.OpBetween:
		return k.Between(v(0), v(1))
	}
	s, _ := c.Values[0].(string)
	return k.BeginsWith(s)
}

// typedValue is a condition value as an AttributeValue: numbers as N.
func typedValue(v any) types.AttributeValue {
	if n, ok := v.(schema.Number); ok {
		return &types.AttributeValueMemberN{Value: string(n)}
	}
	av, _ := marshalValue("", v)
	return av
}

// filterCondition is the --filter as a condition (ok false without one).
func filterCondition(conds []schema.Condition) (expression.ConditionBuilder, bool, error) {
	var out expression.ConditionBuilder
	for i, c := range conds {
		x := filterTerm(c)
		if i == 0 {
			out = x
		} else {
			out = out.And(x)
		}
	}
	return out, len(conds) > 0, nil
}

func filterTerm(c schema.Condition) expression.ConditionBuilder {
	n := expression.NameNoDotSplit(c.Attr.Name)
	v := func(i int) expression.ValueBuilder { return expression.Value(typedValue(c.Values[i])) }
	switch c.Op {
	case schema.OpEq:
		return n.Equal(v(0))
	case schema.OpNe:
		return n.NotEqual(v(0))
	case schema.OpLt:
		return n.LessThan(v(0))
	case schema.OpLe:
		return n.LessThanEqual(v(0))
	case schema.OpGt:
		return n.GreaterThan(v(0))
	case schema.OpGe:
		return n.GreaterThanEqual(v(0))
	case schema.OpBetween:
		return n.Between(v(0), v(1))
	case schema.OpExists:
		return expression.AttributeExists(n)
	case schema.OpNotExists:
		return expression.AttributeNotExists(n)
	}
	s, _ := c.Values[0].(string)
	if c.Op == schema.OpContains {
		return n.Contains(s)
	}
	return n.BeginsWith(s)
}

// identity binds the list's cursor to its --where and --filter too.
func (o *listOrder) identity(ident string) string {
	if o.where == nil && len(o.filter) == 0 {
		return ident
	}
	parts := []string{ident}
	if o.where != nil {
		parts = append(parts, "where "+o.where.String())
	}
	for _, c := range o.filter {
		parts = append(parts, "filter "+c.String())
	}
	return descendingIdentity(strings.Join(parts, "\x00"))
}

// compareSortValues compares two positions' sort attribute in the
// multi-attribute index: numbers numerically, strings by bytes.
func compareSortValues(a, b Item, name string) int {
	x, y := a[name], b[name]
	if nx, ok := x.(*types.AttributeValueMemberN); ok {
		if ny, ok := y.(*types.AttributeValueMemberN); ok {
			p, ok1 := new(big.Rat).SetString(nx.Value)
			q, ok2 := new(big.Rat).SetString(ny.Value)
			if ok1 && ok2 {
				return p.Cmp(q)
			}
		}
	}
	return strings.Compare(sOf(a, name), sOf(b, name))
}
