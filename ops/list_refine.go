package ops

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Filter is one condition a listed edge must meet: Attr Op Value, sent as
// (part of) the Query's FilterExpression. Value is typed as
// schema.ParseValue types it; exists and not_exists take none.
type Filter struct {
	Attr  string
	Op    string
	Value any
}

// FilterOps are the operators a Filter takes, as they are written.
var FilterOps = []string{"=", "<>", "<", "<=", ">", ">=", "begins_with", "contains", "exists", "not_exists"}

// FilterOpTakesValue reports whether op compares with a value (all but
// exists and not_exists).
func FilterOpTakesValue(op string) bool { return op != "exists" && op != "not_exists" }

// FilterPreview is the FilterExpression of filters as it is sent, with its
// placeholders: the expression and what each name and value placeholder
// stands for.
type FilterPreview struct {
	Expression string
	Names      map[string]string
	Values     map[string]types.AttributeValue
}

// PreviewFilter builds the FilterExpression of filters (all of them must
// hold) with the SDK's expression builder, as List sends it.
func (s *Store) PreviewFilter(filters []Filter) (FilterPreview, error) {
	cond, err := s.filterCondition(filters)
	if err != nil {
		return FilterPreview{}, err
	}
	ex, err := expression.NewBuilder().WithFilter(cond).Build()
	if err != nil {
		return FilterPreview{}, fmt.Errorf("build filter: %w", err)
	}
	return FilterPreview{Expression: aws.ToString(ex.Filter()), Names: ex.Names(), Values: ex.Values()}, nil
}

// filterCondition is the condition of every filter, joined with AND.
func (s *Store) filterCondition(filters []Filter) (expression.ConditionBuilder, error) {
	var all expression.ConditionBuilder
	for i, f := range filters {
		c, err := s.filterOne(f)
		if err != nil {
			return all, err
		}
		if i == 0 {
			all = c
		} else {
			all = all.And(c)
		}
	}
	if len(filters) == 0 {
		return all, &InputError{Msg: "no filter given"}
	}
	return all, nil
}

func (s *Store) filterOne(f Filter) (expression.ConditionBuilder, error) {
	var c expression.ConditionBuilder
	if slices.Contains(s.layout.Reserved(), f.Attr) {
		return c, &InputError{Msg: fmt.Sprintf("filter on %s: it is a key attribute adjl manages; a filter takes an edge attribute (use / to jump to a key)", f.Attr)}
	}
	name := expression.NameNoDotSplit(f.Attr)
	if !FilterOpTakesValue(f.Op) {
		if f.Op == "exists" {
			return expression.AttributeExists(name), nil
		}
		return expression.AttributeNotExists(name), nil
	}
	av, err := marshalValue(f.Attr, f.Value)
	if err != nil {
		return c, err
	}
	v := expression.Value(av)
	text, isString := av.(*types.AttributeValueMemberS)
	switch f.Op {
	case "=":
		return name.Equal(v), nil
	case "<>":
		return name.NotEqual(v), nil
	case "<":
		return name.LessThan(v), nil
	case "<=":
		return name.LessThanEqual(v), nil
	case ">":
		return name.GreaterThan(v), nil
	case ">=":
		return name.GreaterThanEqual(v), nil
	case "begins_with", "contains":
		if !isString {
			return c, &InputError{Msg: fmt.Sprintf("filter %s %s: it takes a text value", f.Attr, f.Op)}
		}
		if f.Op == "contains" {
			return name.Contains(text.Value), nil
		}
		return name.BeginsWith(text.Value), nil
	}
	return c, &InputError{Msg: fmt.Sprintf("filter on %s: unknown operator %q; use one of %v", f.Attr, f.Op, FilterOps)}
}

// refine applies a ListQuery's From and Filter to the plan's Queries: each
// is built again with the key range of From (in place of the begins_with
// on the sort key prefix) and the filters as its FilterExpression. The
// plan's identity is kept, so a page's cursor continues the plain list.
func (s *Store) refine(p *plan, q ListQuery) error {
	if q.From == "" && len(q.Filter) == 0 {
		return nil
	}
	if q.WithEntity {
		return &InputError{Msg: "list: From and Filter list edges alone; read the entity item apart"}
	}
	var filter *expression.ConditionBuilder
	if len(q.Filter) > 0 {
		c, err := s.filterCondition(q.Filter)
		if err != nil {
			return err
		}
		filter = &c
	}
	pkName, skName := s.layout.PK, s.layout.SK
	if p.dir == Reverse {
		pkName, skName = s.layout.IndexPK, s.layout.IndexSK
	}
	skCond, err := s.sortKeyCondition(p, q, skName)
	if err != nil {
		return err
	}
	for i, in := range p.inputs {
		b := expression.NewBuilder().WithKeyCondition(expression.Key(pkName).Equal(expression.Value(p.parts[i])).And(skCond))
		if filter != nil {
			b = b.WithFilter(*filter)
		}
		ex, err := b.Build()
		if err != nil {
			return fmt.Errorf("build query: %w", err)
		}
		in.KeyConditionExpression, in.FilterExpression = ex.KeyCondition(), ex.Filter()
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = ex.Names(), ex.Values()
	}
	return nil
}

// sortKeyCondition is the sort key condition of a list's edges: their
// prefix, or, from the other side's key From, the range from it up to the
// next prefix (whose own key no edge has: isEdge drops it), or descending
// from it down to the prefix.
func (s *Store) sortKeyCondition(p *plan, q ListQuery, skName string) (expression.KeyConditionBuilder, error) {
	sk := expression.Key(skName)
	prefix := p.rel.EdgeSKPrefix()
	if p.dir == Reverse {
		prefix = p.rel.From.Prefix
	}
	if q.From == "" {
		return sk.BeginsWith(prefix), nil
	}
	from, err := p.rel.ToKey(q.From)
	if p.dir == Reverse {
		from, err = p.rel.FromKey(q.From)
	}
	if err != nil {
		return sk.BeginsWith(prefix), err
	}
	if p.dir == Forward {
		from = p.rel.Edge + from
	}
	if q.Descending {
		return sk.Between(expression.Value(prefix), expression.Value(from)), nil
	}
	// Prefixes end in the delimiter, an ASCII byte: the prefix with it
	// one higher is the least string above every key with the prefix.
	last := len(prefix) - 1
	next := prefix[:last] + string(rune(prefix[last]+1))
	return sk.Between(expression.Value(from), expression.Value(next)), nil
}
