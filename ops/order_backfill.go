package ops

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// The metadata item records, per relation, the sort its edges' keys were
// written under ("sort-follow": schema.Sort.Signature; absent: key order)
// and, while `adjl table apply` rewrites them, how far it got
// ("ordering-follow": the Scan position, the edges rewritten, and the
// value default: now gives edges without one, so that a resumed run gives
// the same). One attribute each, as for reshard: single SET or REMOVE
// actions, no document paths.
const (
	sortAttrPrefix     = "sort-"
	orderingAttrPrefix = "ordering-"
)

// orderingState is an unfinished backfill of one relation.
type orderingState struct {
	Signature      string // what it writes
	LastPK, LastSK string // Scan position after the last page done
	Rewritten      int    // edges whose keys changed, over every run
	Now            string // the value default: now gives (may be "")
}

// orderMeta reads the recorded sorts and unfinished backfills.
func orderMeta(meta Item) (sorts map[string]string, ordering map[string]orderingState) {
	sorts, ordering = map[string]string{}, map[string]orderingState{}
	for name, v := range meta {
		if rel, ok := strings.CutPrefix(name, sortAttrPrefix); ok {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				sorts[rel] = s.Value
			}
		}
		if rel, ok := strings.CutPrefix(name, orderingAttrPrefix); ok {
			if m, ok := v.(*types.AttributeValueMemberM); ok {
				ordering[rel] = orderingState{
					Signature: sOf(m.Value, "signature"), LastPK: sOf(m.Value, "lastPK"), LastSK: sOf(m.Value, "lastSK"),
					Rewritten: nOfInt(m.Value["rewritten"]), Now: sOf(m.Value, "now"),
				}
			}
		}
	}
	return sorts, ordering
}

func (st orderingState) item() types.AttributeValue {
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"signature": str(st.Signature), "lastPK": str(st.LastPK), "lastSK": str(st.LastSK),
		"rewritten": &types.AttributeValueMemberN{Value: fmt.Sprint(st.Rewritten)}, "now": str(st.Now),
	}}
}

// recordedSort is the sort rel's edges were written under, as the
// metadata item (read by the caller) records it.
func (s *Store) recordedSort(rel string) string { return s.metaSort[rel] }

// sortSignatures are the schema's relations' sorts, for a new metadata item.
func (s *Store) sortSignatures(it Item) {
	for _, r := range s.schema.Relations {
		if sig := r.Sort.Signature(); sig != "" {
			it[sortAttrPrefix+r.Name] = str(sig)
		}
	}
}

// OrderReport says what a backfill did.
type OrderReport struct {
	Relation  string
	Scanned   int // edges of the relation read this run
	Rewritten int // edges whose keys changed, over every run
	Resumed   bool
}

// backfillOrder rewrites the index keys of every edge of rel for the
// schema's sort (a Scan of the table, resumable: its position is saved in
// the metadata item after every page), then records the sort. Each edge
// is updated on condition that its sort value is still the one read, so a
// link that moves the edge meanwhile is read again, never overwritten.
func (s *Store) backfillOrder(ctx context.Context, rel *schema.Relation, progress func(string)) (*OrderReport, error) {
	scanner, ok := s.api.(scanAPI)
	if !ok {
		return nil, fmt.Errorf("order %s: the backend client has no Scan", rel.Name)
	}
	st, rep, err := s.startOrdering(ctx, rel)
	if err != nil {
		return nil, err
	}
	var missing atomic.Int64
	rewritten := atomic.Int64{}
	rewritten.Store(int64(st.Rewritten))
	in, err := s.orderScanInput(rel)
	if err != nil {
		return nil, err
	}
	if st.LastPK != "" {
		in.ExclusiveStartKey = s.keyOf(st.LastPK, st.LastSK)
	}
	for {
		page := *in
		out, err := s.scanPage(ctx, scanner, &page)
		if err != nil {
			return rep, fmt.Errorf("order %s: scan edges: %w", rel.Name, err)
		}
		if err := s.rewritePage(ctx, rel, st.Now, out.Items, &rewritten, &missing); err != nil {
			return rep, err
		}
		rep.Scanned += len(out.Items)
		st.Rewritten = int(rewritten.Load())
		if len(out.LastEvaluatedKey) == 0 || s.explaining() {
			break
		}
		st.LastPK, st.LastSK = sOf(out.LastEvaluatedKey, s.layout.PK), sOf(out.LastEvaluatedKey, s.layout.SK)
		if err := s.saveOrdering(ctx, rel, st); err != nil {
			return rep, err
		}
		if progress != nil {
			progress(fmt.Sprintf("order %s: %d edges read, %d rewritten", rel.Name, rep.Scanned, st.Rewritten))
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	rep.Rewritten = st.Rewritten
	if n := missing.Load(); n > 0 {
		st.LastPK, st.LastSK = "", ""
		if err := s.saveOrdering(ctx, rel, st); err != nil {
			return rep, err
		}
		return rep, &InputError{Msg: fmt.Sprintf("order %s: %d edges have no %s and the relation has no default: give them one (adjl %s FROM TO --set %s=VALUE, or an import), or declare sort.default: now; then run adjl table apply again", rel.Name, n, rel.Sort.By, linkVerb(rel), rel.Sort.By)}
	}
	return rep, s.finishOrdering(ctx, rel)
}

func linkVerb(rel *schema.Relation) string {
	if rel.Verbs.Link != "" {
		return rel.Verbs.Link
	}
	return "link " + rel.Name
}

// startOrdering records the backfill's start in the metadata item, or
// reads the unfinished one it resumes.
func (s *Store) startOrdering(ctx context.Context, rel *schema.Relation) (orderingState, *OrderReport, error) {
	rep := &OrderReport{Relation: rel.Name}
	s.metaMu.Lock()
	err := s.loadMeta(ctx, true)
	st, ok := s.metaOrdering[rel.Name]
	s.metaMu.Unlock()
	if err != nil {
		return st, rep, err
	}
	sig := rel.Sort.Signature()
	if ok && st.Signature == sig {
		rep.Resumed = true
		return st, rep, nil
	}
	st = orderingState{Signature: sig}
	if rel.Sort != nil && rel.Sort.DefaultNow {
		st.Now = rel.Sort.NowValue(s.now())
	}
	return st, rep, s.saveOrdering(ctx, rel, st)
}

func (s *Store) saveOrdering(ctx context.Context, rel *schema.Relation, st orderingState) error {
	ex, err := expression.NewBuilder().WithUpdate(expression.Set(expression.NameNoDotSplit(orderingAttrPrefix+rel.Name), expression.Value(st.item()))).Build()
	if err != nil {
		return fmt.Errorf("build metadata update: %w", err)
	}
	if err := s.updateMeta(ctx, ex); err != nil {
		return fmt.Errorf("order %s: save progress: %w", rel.Name, err)
	}
	return nil
}

// finishOrdering records the relation's sort and forgets the backfill.
func (s *Store) finishOrdering(ctx context.Context, rel *schema.Relation) error {
	upd := expression.Remove(expression.NameNoDotSplit(orderingAttrPrefix + rel.Name))
	if sig := rel.Sort.Signature(); sig != "" {
		upd = upd.Set(expression.NameNoDotSplit(sortAttrPrefix+rel.Name), expression.Value(sig))
	} else {
		upd = upd.Remove(expression.NameNoDotSplit(sortAttrPrefix + rel.Name))
	}
	ex, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return fmt.Errorf("build metadata update: %w", err)
	}
	if err := s.updateMeta(ctx, ex); err != nil {
		return fmt.Errorf("order %s: record the order: %w", rel.Name, err)
	}
	return nil
}

// orderScanInput Scans the relation's edges, strongly consistent, with
// what a rewrite needs.
func (s *Store) orderScanInput(rel *schema.Relation) (*dynamodb.ScanInput, error) {
	l := s.layout
	names := []expression.NameBuilder{s.pkName(), expression.NameNoDotSplit(l.SK), expression.NameNoDotSplit(l.IndexSK), expression.NameNoDotSplit(schema.ForwardSK)}
	if rel.Sort != nil {
		names = append(names, expression.NameNoDotSplit(rel.Sort.By))
	}
	ex, err := expression.NewBuilder().
		WithFilter(expression.NameNoDotSplit(l.Type).Equal(expression.Value(rel.Name))).
		WithProjection(expression.NamesList(names[0], names[1:]...)).Build()
	if err != nil {
		return nil, fmt.Errorf("build scan: %w", err)
	}
	return &dynamodb.ScanInput{
		TableName: aws.String(s.schema.Table.Name), ConsistentRead: aws.Bool(true), Limit: aws.Int32(1000),
		FilterExpression: ex.Filter(), ProjectionExpression: ex.Projection(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
	}, nil
}

// rewritePage rewrites a page's edges, Parallel at a time.
func (s *Store) rewritePage(ctx context.Context, rel *schema.Relation, now string, items []Item, rewritten, missing *atomic.Int64) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(s.opt.Parallel)
	for _, it := range items {
		pk, sk := sOf(it, s.layout.PK), sOf(it, s.layout.SK)
		if pk == sk || !strings.HasPrefix(sk, rel.EdgeSKPrefix()) {
			continue
		}
		g.Go(func() error {
			changed, lacks, err := s.rewriteEdge(ctx, rel, it, now)
			if changed {
				rewritten.Add(1)
			}
			if lacks {
				missing.Add(1)
			}
			return err
		})
	}
	return g.Wait()
}

// rewriteEdge gives one edge the sort keys its sort value calls for. A
// conditional failure means the edge changed since it was read: it is read
// again (or is gone, and needs nothing).
func (s *Store) rewriteEdge(ctx context.Context, rel *schema.Relation, it Item, now string) (changed, missing bool, err error) {
	for range 5 {
		in, lacks, err := s.rewriteInput(rel, it, now)
		if in == nil || err != nil {
			return false, lacks, err
		}
		if _, err = s.updateItem(ctx, in); err == nil {
			return true, false, nil
		}
		if !conditionFailed(err) {
			return false, false, fmt.Errorf("order %s: rewrite %s %s: %w", rel.Name, sOf(it, s.layout.PK), sOf(it, s.layout.SK), err)
		}
		out, err := s.getItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name),
			Key: s.keyOf(sOf(it, s.layout.PK), sOf(it, s.layout.SK)), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return false, false, err
		}
		if len(out.Item) == 0 {
			return false, false, nil
		}
		it = out.Item
	}
	return false, false, &ConflictError{Msg: fmt.Sprintf("order %s: edge %s %s kept changing while it was rewritten; run adjl table apply again", rel.Name, sOf(it, s.layout.PK), sOf(it, s.layout.SK))}
}

// rewriteInput is the UpdateItem that gives edge it the keys of the
// schema's sort, or nil when it has them; missing reports an edge
// without a sort value where no default applies.
func (s *Store) rewriteInput(rel *schema.Relation, it Item, now string) (in *dynamodb.UpdateItemInput, missing bool, err error) {
	l := s.layout
	pk, sk := sOf(it, l.PK), sOf(it, l.SK)
	k := schema.Keys{PK: pk, SK: sk, IndexSK: pk}
	var upd expression.UpdateBuilder
	changes := false
	set := func(name string, v types.AttributeValue) {
		upd, changes = upd.Set(expression.NameNoDotSplit(name), expression.Value(v)), true
	}
	cond := expression.AttributeExists(s.pkName())
	var extra Item
	if st := rel.Sort; st != nil {
		av, has := it[st.By]
		v := sortValueOf(av)
		switch {
		case !has && now == "":
			return nil, true, nil
		case !has:
			v, av = now, str(now)
			set(st.By, av)
			cond = cond.And(expression.AttributeNotExists(expression.NameNoDotSplit(st.By)))
		default:
			cond = cond.And(expression.NameNoDotSplit(st.By).Equal(expression.Value(av)))
		}
		if extra, err = s.orderKeys(rel, &k, v); err != nil {
			return nil, false, err
		}
	}
	if sOf(it, l.IndexSK) != k.IndexSK {
		set(l.IndexSK, str(k.IndexSK))
	}
	if fwd, ok := extra[schema.ForwardSK]; ok && sOf(it, schema.ForwardSK) != sOf(extra, schema.ForwardSK) {
		set(schema.ForwardSK, fwd)
	} else if !ok && sOf(it, schema.ForwardSK) != "" {
		upd, changes = upd.Remove(expression.NameNoDotSplit(schema.ForwardSK)), true
	}
	if !changes {
		return nil, false, nil
	}
	ex, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, false, fmt.Errorf("build edge update: %w", err)
	}
	return s.updateInput(pk, sk, ex), false, nil
}

// sortValueOf is a stored sort value as KeyText takes it.
func sortValueOf(av types.AttributeValue) any {
	switch x := av.(type) {
	case *types.AttributeValueMemberN:
		return schema.Number(x.Value)
	case *types.AttributeValueMemberS:
		return x.Value
	}
	return nil
}

// newRelationSort adds to the update recording a new relation its sort:
// a relation new to the table has no edges to rewrite.
func (s *Store) newRelationSort(rel *schema.Relation, upd expression.UpdateBuilder) expression.UpdateBuilder {
	if sig := rel.Sort.Signature(); sig != "" {
		upd = upd.Set(expression.NameNoDotSplit(sortAttrPrefix+rel.Name), expression.Value(sig))
	}
	return upd
}
