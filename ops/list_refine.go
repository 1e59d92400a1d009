package ops

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// QueryPreview is the first Query a list sends, as it is sent: its key
// condition and filter with their placeholders, and what each placeholder
// stands for.
type QueryPreview struct {
	KeyCondition, Filter string
	Names                map[string]string
	Values               map[string]types.AttributeValue
}

// PreviewList plans q as List would, sending nothing, and returns its
// first Query's expressions (one per shard differ only in the partition).
func (s *Store) PreviewList(q ListQuery) (QueryPreview, error) {
	p, _, err := s.startList(q)
	if err != nil {
		return QueryPreview{}, err
	}
	in := p.inputs[0]
	return QueryPreview{KeyCondition: aws.ToString(in.KeyConditionExpression), Filter: aws.ToString(in.FilterExpression),
		Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues}, nil
}

// refine starts a list's first page at ListQuery.From: each Query is built
// again with the key range from the key on (in place of the begins_with
// on the relation's prefix), its filter kept. The plan's identity is kept,
// so the page's cursor continues the list. A list read in another order
// than the key's (an ordered relation's, or a --where range) cannot start
// at a key.
func (s *Store) refine(p *plan, q ListQuery) error {
	if q.From == "" {
		return nil
	}
	switch {
	case q.WithEntity:
		return &InputError{Msg: "list: From lists edges alone; read the entity item apart"}
	case p.ord.sorted || p.ord.where != nil:
		return &InputError{Msg: fmt.Sprintf("list: the %s list of %s is in %s order, not the key's: it cannot start at a key", dirName(p.dir), p.rel.Name, p.rel.Sort.By)}
	}
	pkName, skName := s.layout.PK, s.layout.SK
	if p.dir == Reverse {
		pkName, skName = s.layout.IndexPK, s.layout.IndexSK
	}
	skCond, err := s.fromKeyCondition(p, q, skName)
	if err != nil {
		return err
	}
	filter, hasFilter, err := filterCondition(p.ord.filter)
	if err != nil {
		return err
	}
	for i, in := range p.inputs {
		b := expression.NewBuilder().WithKeyCondition(expression.Key(pkName).Equal(expression.Value(p.parts[i])).And(skCond))
		if hasFilter {
			b = b.WithFilter(filter)
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

func dirName(d Direction) string {
	if d == Reverse {
		return "reverse"
	}
	return "forward"
}

// fromKeyCondition is the sort key range of a list in key order from the
// other side's key From: from it up to the next prefix (whose own key no
// edge has: isEdge drops it), or descending from it down to the prefix.
func (s *Store) fromKeyCondition(p *plan, q ListQuery, skName string) (expression.KeyConditionBuilder, error) {
	sk := expression.Key(skName)
	prefix := p.rel.EdgeSKPrefix()
	if p.dir == Reverse {
		prefix = p.rel.From.Prefix
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
	if p.desc {
		return sk.Between(expression.Value(prefix), expression.Value(from)), nil
	}
	// Prefixes end in the delimiter, an ASCII byte: the prefix with it
	// one higher is the least string above every key with the prefix.
	last := len(prefix) - 1
	next := prefix[:last] + string(rune(prefix[last]+1))
	return sk.Between(expression.Value(from), expression.Value(next)), nil
}
