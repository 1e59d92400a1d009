package ops

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// An ordered relation (schema.Sort) keeps its order in keys adjl writes
// with every edge:
//
//   - composite: the edge's index sort key is the from prefix, the sort
//     value's text and the from-key (schema.CompositeIndexSK), so the
//     index returns the relation's edges by (value, key);
//   - multi-attribute: the index keys stay as they are and the relation is
//     read through an index of its own keyed [GSI1PK, type] / [value,
//     GSI1SK], which DynamoDB keeps from the attribute itself;
//   - forward: LSI1SK, the edge's sort-key prefix, value text and to-key,
//     orders the forward lists through the local secondary index.
//
// A link writes them in the same request as the edge, and a link that
// changes the value rewrites them in the same UpdateItem.

// sortValue gives a link's attributes the relation's sort value: the one
// given, the time of the link under default: now, or an input error.
// defaulted reports that the value was not given, so an existing edge
// keeps its own.
func (s *Store) sortValue(rel *schema.Relation, attrs map[string]any) (out map[string]any, defaulted bool, err error) {
	st := rel.Sort
	if st == nil {
		return attrs, false, nil
	}
	if _, ok := attrs[st.By]; ok {
		return attrs, false, nil
	}
	if !st.DefaultNow {
		return nil, false, &InputError{Msg: fmt.Sprintf("relation %s is ordered by %s, and this link gives none: add --set %s=VALUE (%s), or declare sort.default: now in the schema", rel.Name, st.By, st.By, st.Kind.Noun())}
	}
	out = make(map[string]any, len(attrs)+1)
	for k, v := range attrs {
		out[k] = v
	}
	out[st.By] = st.NowValue(s.now())
	return out, true, nil
}

// refuseSortRemoval refuses --unset of the sort attribute: an edge without
// it would drop out of the relation's order.
func refuseSortRemoval(rel *schema.Relation, remove []string) error {
	if rel.Sort != nil && slices.Contains(remove, rel.Sort.By) {
		return &InputError{Msg: fmt.Sprintf("relation %s is ordered by %s, so an edge cannot lose it; set another value with --set %s=VALUE", rel.Name, rel.Sort.By, rel.Sort.By)}
	}
	return nil
}

// orderKeys sets the sort keys of an edge with sort value v: the composite
// index sort key in k, and the forward index key in the returned
// attributes (nil when the relation has none).
func (s *Store) orderKeys(rel *schema.Relation, k *schema.Keys, v any) (Item, error) {
	st := rel.Sort
	if st == nil || (st.Index != schema.SortComposite && !st.Forward) {
		return nil, nil
	}
	text, err := st.KeyText(v)
	if err != nil {
		return nil, &InputError{Msg: fmt.Sprintf("relation %s: %v", rel.Name, err)}
	}
	if st.Index == schema.SortComposite {
		k.IndexSK = rel.CompositeIndexSK(text, k.PK)
	}
	if !st.Forward {
		return nil, nil
	}
	return Item{schema.ForwardSK: str(rel.ForwardSortKey(text, k.SK[len(rel.Edge):]))}, nil
}

// orderedLinkInput is linkInput for an edge whose sort keys (if any) are
// derived from its sort value first: k gets the composite index sort key,
// and the new edge's item the forward index key.
func (s *Store) orderedLinkInput(rel *schema.Relation, k *schema.Keys, attrs map[string]any, values Item, requireEntities bool) (*dynamodb.PutItemInput, []linkStep, *dynamodb.TransactWriteItemsInput, error) {
	if rel.Sort == nil {
		return s.linkInput(rel, *k, values, requireEntities)
	}
	extra, err := s.orderKeys(rel, k, attrs[rel.Sort.By])
	if err != nil {
		return nil, nil, nil, err
	}
	all := maps.Clone(values)
	maps.Copy(all, extra)
	return s.linkInput(rel, *k, all, requireEntities)
}

// relinkValues are the names and values an existing edge is updated with:
// the attributes the user gave (not a defaulted sort value) and, when the
// sort value is among them, the sort keys that move the edge with it (k
// holds the new composite key already).
func (s *Store) relinkValues(rel *schema.Relation, k schema.Keys, attrs map[string]any, names []string, values Item, defaulted bool) ([]string, Item) {
	if rel.Sort == nil {
		return names, values
	}
	out := Item{}
	var kept []string
	for _, n := range names {
		if defaulted && n == rel.Sort.By {
			continue
		}
		kept, out[n] = append(kept, n), values[n]
	}
	if defaulted {
		return kept, out
	}
	if rel.IsComposite() {
		kept, out[s.layout.IndexSK] = append(kept, s.layout.IndexSK), str(k.IndexSK)
	}
	if extra, err := s.orderKeys(rel, &k, attrs[rel.Sort.By]); err == nil {
		for n, v := range extra {
			kept, out[n] = append(kept, n), v
		}
	}
	slices.Sort(kept)
	return kept, out
}

// orderItem gives an imported edge its sort value (the row's, or the
// import's default) and the sort keys derived from it. Rows without a
// value where no default applies are refused by the row reader first.
func (im *importer) orderItem(row rowfile.Row, k schema.Keys, item Item) error {
	st := im.rel.Sort
	var v any
	for _, a := range row.Attrs {
		if a.Name == st.By {
			v = a.Value
		}
	}
	if v == nil {
		if im.sortDefault == "" {
			return &InputError{Msg: fmt.Sprintf("%s is missing: relation %s is ordered by it and has no default", st.By, im.rel.Name)}
		}
		v = im.sortDefault
		item[st.By] = str(im.sortDefault)
	}
	extra, err := im.s.orderKeys(im.rel, &k, v)
	if err != nil {
		return err
	}
	if im.rel.IsComposite() {
		item[im.s.layout.IndexSK] = str(k.IndexSK)
	}
	maps.Copy(item, extra)
	return nil
}

// checkOrderedKeys refuses a page of a composite reverse list (or an
// ordered forward one) holding an edge whose sort key carries no value:
// one written before the relation was ordered, which `adjl table apply`
// rewrites. Such an edge would sit in key order among ordered ones.
func (p *plan) checkOrderedKeys(table string, items []Item) error {
	o := p.ord
	composite := p.dir == Reverse && p.rel.IsComposite()
	if !composite && !o.forwardIndex() {
		return nil
	}
	for _, it := range items {
		if !p.isEdge(it) {
			continue
		}
		pk, sk := sOf(it, p.l.PK), sOf(it, p.l.SK)
		ok := true
		if composite {
			_, ok = schema.CompositeValueText(p.rel.From.Prefix, sOf(it, p.l.IndexSK), pk)
		} else {
			_, ok = schema.CompositeValueText(p.rel.EdgeSKPrefix(), sOf(it, schema.ForwardSK), sk[len(p.rel.Edge):])
		}
		if !ok {
			return &TableMismatchError{Table: table,
				Differences: []string{fmt.Sprintf("edge %s %s of relation %s was written before the relation was ordered by %s: its index key carries no %s", pk, sk, p.rel.Name, p.rel.Sort.By, p.rel.Sort.By)},
				Hint:        "run `adjl table apply` to rewrite the relation's index keys (`adjl table plan` lists the backfill)"}
		}
	}
	return nil
}
