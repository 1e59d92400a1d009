package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteReport says what DeleteEntity removed.
type DeleteReport struct {
	Key          string
	EdgesRemoved int
}

// PutEntity creates or updates an entity item with one UpdateItem: SET the
// attributes and, in the generic layout, the index keys and the type (an
// inverted layout's item is indexed by its table keys and carries nothing
// else; with no attributes it is a conditional PutItem of the bare key).
// Counters are never touched, so a put cannot undo what links counted.
func (s *Store) PutEntity(ctx context.Context, e *schema.Entity, id string, attrs map[string]any) (Outcome, error) {
	return s.PutEntityRemoving(ctx, e, id, attrs, nil)
}

// PutEntityRemoving is PutEntity that also REMOVEs the attributes named in
// remove, in the same UpdateItem.
func (s *Store) PutEntityRemoving(ctx context.Context, e *schema.Entity, id string, attrs map[string]any, remove []string) (Outcome, error) {
	key, err := e.Key(id)
	if err != nil {
		return "", err
	}
	names, values, err := s.marshalAttrs(attrs)
	if err != nil {
		return "", err
	}
	upd, want, sets := s.entityUpdate(e, key, names, values, remove)
	if sets == 0 {
		return s.putBareEntity(ctx, key)
	}
	in, err := s.entityUpdateInput(key, upd)
	if err != nil {
		return "", err
	}
	out, err := s.updateItem(ctx, in)
	switch {
	case err != nil:
		return "", fmt.Errorf("put %s: %w", key, err)
	case s.explaining():
		return "", nil
	}
	return putOutcome(out.Attributes, want, remove), nil
}

// entityUpdate is the update of an entity put: SET, in order, the layout's
// index keys and type (where it has them) and the named attributes, and
// REMOVE the attributes in remove. want is what it sets, sets how many.
func (s *Store) entityUpdate(e *schema.Entity, key string, names []string, values Item, remove []string) (upd expression.UpdateBuilder, want Item, sets int) {
	l := s.layout
	var set []string
	want = Item{}
	if l.WritesIndexKeys() {
		set = append(set, l.IndexPK, l.IndexSK)
		want[l.IndexPK], want[l.IndexSK] = str(key), str(key)
	}
	if l.Type != "" {
		set = append(set, l.Type)
		want[l.Type] = str(e.Name)
	}
	for _, n := range names {
		set = append(set, n)
		want[n] = values[n]
	}
	for _, n := range set {
		upd = upd.Set(expression.NameNoDotSplit(n), expression.Value(want[n]))
	}
	for _, n := range remove {
		upd = upd.Remove(expression.NameNoDotSplit(n))
	}
	return upd, want, len(set)
}

// entityUpdateInput is the UpdateItem of upd on key's entity item, asking
// for the old item (putOutcome reads it).
func (s *Store) entityUpdateInput(key string, upd expression.UpdateBuilder) (*dynamodb.UpdateItemInput, error) {
	ex, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return nil, fmt.Errorf("build entity update: %w", err)
	}
	in := s.updateInput(key, key, ex)
	in.ReturnValues = types.ReturnValueAllOld
	return in, nil
}

// putOutcome is what an entity put did, from the item's old attributes (an
// UpdateItem's ALL_OLD), the values it set and the attributes it removed.
func putOutcome(old, want Item, removed []string) Outcome {
	switch {
	case len(old) == 0:
		return Created
	case unchangedBy(old, want) && !holdsAny(old, removed):
		return Unchanged
	}
	return Updated
}

// putBareEntity creates an entity item that is nothing but its key (an
// inverted layout's put without attributes): one PutItem on condition that
// the item does not exist, so an existing item, counters and all, is left
// as it is ("unchanged"). An UpdateItem without an update expression would
// do the same on DynamoDB, but not every compatible server takes one.
func (s *Store) putBareEntity(ctx context.Context, key string) (Outcome, error) {
	cond, err := condition(expression.AttributeNotExists(s.pkName()))
	if err != nil {
		return "", err
	}
	_, err = s.putItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.schema.Table.Name), Item: s.keyOf(key, key),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	switch {
	case err != nil && conditionFailed(err):
		return Unchanged, nil
	case err != nil:
		return "", fmt.Errorf("put %s: %w", key, err)
	case s.explaining():
		return "", nil
	}
	return Created, nil
}

// GetEntity reads an entity item or a role item (USER#alice, TARGET#alice);
// the key must carry a prefix of the schema. Sharded counters kept on it are
// read with one more Query and shown summed, as if kept on the item.
func (s *Store) GetEntity(ctx context.Context, key string, consistent bool) (Item, error) {
	if _, _, err := s.schema.ResolveKey(key); err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(key, key)}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	out, err := s.getItem(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	item, err := s.withCounters(ctx, key, out.Item, consistent)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	if len(item) == 0 {
		if s.explaining() {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", key, ErrItemNotFound)
	}
	return item, nil
}

// side is one partition an entity's edges live in: its key under a relation
// side's prefix, and whether it is that relation's from (forward) side.
type side struct {
	rel     *schema.Relation
	key     string
	forward bool
}

// sidesOf lists every partition that can hold edges of the entity with id.
func (s *Store) sidesOf(ent *schema.Entity, id string) []side {
	var out []side
	for _, ref := range s.schema.Sides(ent) {
		out = append(out, side{rel: ref.Relation, key: ref.Prefix + id, forward: ref.End == schema.FromEnd})
	}
	return out
}

// edgeQueries are the Queries that find the edges of one side: the forward
// partition, or every reverse shard partition.
func (s *Store) edgeQueries(sd side, limit int32) ([]*dynamodb.QueryInput, error) {
	var ins []*dynamodb.QueryInput
	if sd.forward {
		in, err := s.queryInput(Forward, sd.rel, sd.key, false)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	} else {
		for _, part := range s.layout.ReversePartitions(sd.rel, sd.key) {
			in, err := s.queryInput(Reverse, sd.rel, part, false)
			if err != nil {
				return nil, err
			}
			ins = append(ins, in)
		}
	}
	for _, in := range ins {
		in.Limit = aws.Int32(limit)
	}
	return ins, nil
}

// DeleteEntity deletes an entity item and its role items. Edges in either
// direction refuse the delete (*HasEdgesError) unless cascade, which removes
// each edge in its own transaction with its counters decremented.
// Where the entity keeps counters, a link or unlink of its edges between the
// look for edges and the delete cancels the delete (*ConflictError; see
// entitydelete.go). Nothing to delete at all is ErrItemNotFound.
func (s *Store) DeleteEntity(ctx context.Context, key string, cascade bool) (DeleteReport, error) {
	ent, prefix, err := s.schema.ResolveKey(key)
	if err != nil {
		return DeleteReport{}, err
	}
	id := key[len(prefix):]
	rep := DeleteReport{Key: ent.Prefix + id}
	sides := s.sidesOf(ent, id)
	keys := []string{rep.Key}
	for _, sd := range sides {
		if !slices.Contains(keys, sd.key) {
			keys = append(keys, sd.key)
		}
	}
	// With cascade, the guard is read after the edges are removed (a
	// self-edge's removal changes the entity's own counter), and the look
	// that follows finds any edge linked meanwhile, which is removed in
	// turn.
	var guard *deleteGuard
	for attempt := 0; ; attempt++ {
		if cascade {
			for _, sd := range sides {
				n, err := s.cascade(ctx, sd)
				rep.EdgesRemoved += n
				if err != nil {
					return rep, err
				}
			}
		}
		if guard, err = s.readDeleteGuard(ctx, keys, sides); err != nil {
			return rep, err
		}
		if !cascade && guard == nil {
			break // nothing to guard: the look for edges below decides
		}
		n, err := s.probeEdges(ctx, sides)
		if err != nil {
			return rep, err
		}
		switch {
		case n == 0 || s.explaining():
		case !cascade:
			return rep, &HasEdgesError{Key: rep.Key, Count: n}
		case attempt+1 < fixAttempts:
			continue // linked while the edges were removed
		default:
			return rep, &ConflictError{Msg: fmt.Sprintf("%s: edges kept being linked while its edges were removed (%d attempts); run the delete again when writes settle", rep.Key, fixAttempts)}
		}
		break
	}
	if guard == nil && !cascade {
		n, err := s.probeEdges(ctx, sides)
		if err != nil {
			return rep, err
		}
		if n > 0 {
			return rep, &HasEdgesError{Key: rep.Key, Count: n}
		}
	}
	existed := false
	if guard != nil {
		if err := s.deleteGuarded(ctx, rep.Key, guard); err != nil {
			return rep, err
		}
		existed = guard.existed()
	}
	for _, k := range keys {
		if guard == nil {
			out, err := s.deleteItem(ctx, &dynamodb.DeleteItemInput{
				TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(k, k), ReturnValues: types.ReturnValueAllOld,
			})
			if err != nil {
				return rep, fmt.Errorf("delete %s: %w", k, err)
			}
			existed = existed || len(out.Attributes) > 0
		}
		// Counter items the guard did not name: shards beyond the schema's
		// count, left from before it was reduced (all of them unguarded).
		had, err := s.deleteCounterItems(ctx, k)
		if err != nil {
			return rep, err
		}
		existed = existed || had
	}
	if !existed && rep.EdgesRemoved == 0 && !s.explaining() {
		return rep, fmt.Errorf("%s: %w", rep.Key, ErrItemNotFound)
	}
	return rep, nil
}

// isEdgeItem tells an edge from an entity or role item, which share some
// partitions (PK = SK only for those).
func (s *Store) isEdgeItem(it Item) bool { return sOf(it, s.layout.PK) != sOf(it, s.layout.SK) }

// probeEdges counts the edges found by reading at most one small page per
// partition: enough to refuse a delete, not a full count.
func (s *Store) probeEdges(ctx context.Context, sides []side) (int, error) {
	n := 0
	for _, sd := range sides {
		ins, err := s.edgeQueries(sd, 2)
		if err != nil {
			return 0, err
		}
		// Strongly consistent where the base table is read: a delete's
		// guard, read before, may have seen the link of an edge.
		for _, in := range ins {
			if in.IndexName == nil {
				in.ConsistentRead = aws.Bool(true)
			}
		}
		for _, in := range ins {
			for {
				out, err := s.query(ctx, in)
				if err != nil {
					return 0, fmt.Errorf("look for edges of %s: %w", sd.key, err)
				}
				if err := s.checkSideStamps(ctx, sd, out.Items); err != nil {
					return 0, err
				}
				found := 0
				for _, it := range out.Items {
					if s.isEdgeItem(it) {
						found++
					}
				}
				n += found
				if found > 0 || len(out.LastEvaluatedKey) == 0 {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}
	}
	return n, nil
}

// checkSideStamps refuses a page of a reverse side's edges written under
// another shard count: the side's other shards would be missed.
func (s *Store) checkSideStamps(ctx context.Context, sd side, items []Item) error {
	if sd.forward {
		return nil
	}
	return s.checkEdgeStamps(ctx, sd.rel, items)
}

// cascade removes every edge of one side, page by page, each with the other
// side's counter decremented. An edge already gone (removed concurrently, or
// a self-edge met from both sides) is skipped.
func (s *Store) cascade(ctx context.Context, sd side) (int, error) {
	ins, err := s.edgeQueries(sd, 100)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, in := range ins {
		for {
			out, err := s.query(ctx, in)
			if err != nil {
				return removed, fmt.Errorf("list edges of %s: %w", sd.key, err)
			}
			if err := s.checkSideStamps(ctx, sd, out.Items); err != nil {
				return removed, err
			}
			for _, it := range out.Items {
				if !s.isEdgeItem(it) {
					continue
				}
				ok, err := s.removeEdge(ctx, sd, it)
				if err != nil {
					return removed, err
				}
				if ok {
					removed++
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	if s.explaining() {
		return 0, s.explainEdgeRemoval(sd)
	}
	return removed, nil
}

// edgeRemoval is the request that deletes one edge found from side sd,
// decrementing its sides' counters: a TransactWriteItems (tx), or a lone
// DeleteItem (del) when the relation keeps no counter.
func (s *Store) edgeRemoval(sd side, it Item) (del *dynamodb.DeleteItemInput, tx *dynamodb.TransactWriteItemsInput, err error) {
	pk, sk := sOf(it, s.layout.PK), sOf(it, s.layout.SK)
	ups := removalUpdates(sd, pk, sk)
	in, err := s.deleteEdgeTx(pk, sk, ups)
	if err != nil || len(ups) > 0 {
		return nil, in, err
	}
	d := in.TransactItems[0].Delete
	return &dynamodb.DeleteItemInput{
		TableName: d.TableName, Key: d.Key,
		ConditionExpression: d.ConditionExpression, ExpressionAttributeNames: d.ExpressionAttributeNames,
	}, nil, nil
}

// removalUpdates is the counter change of removing edge pk sk found from
// side sd: each side's counter, by -1. The entity's own counter is kept
// exact too: a delete cancelled after the removals keeps the entity.
func removalUpdates(sd side, pk, sk string) []counterUpdate {
	return counterUpdates(sd.rel, pk, sk[len(sd.rel.Edge):], -1)
}

// explainEdgeRemoval hands Explain the request cascade sends for each edge
// of sd its Queries find, with <id> for the other side's id.
func (s *Store) explainEdgeRemoval(sd side) error {
	rel := sd.rel
	it := s.keyOf(sd.key, rel.Edge+rel.To.Prefix+"<id>")
	if !sd.forward {
		it = s.keyOf(rel.From.Prefix+"<id>", rel.Edge+sd.key)
	}
	del, tx, err := s.edgeRemoval(sd, it)
	if err != nil {
		return err
	}
	const when = "once per edge the Queries find, <id> being its other side: removes it"
	if del != nil {
		del.ReturnConsumedCapacity = s.rcc()
		s.explainWhen("DeleteItem", del, when)
		return nil
	}
	tx.ReturnConsumedCapacity = s.rcc()
	s.explainWhen("TransactWriteItems", tx, when+" and decrements its sides' counters")
	return nil
}

// removeEdge deletes one edge found from side sd (see edgeRemoval).
func (s *Store) removeEdge(ctx context.Context, sd side, it Item) (bool, error) {
	pk, sk := sOf(it, s.layout.PK), sOf(it, s.layout.SK)
	del, in, err := s.edgeRemoval(sd, it)
	if err != nil {
		return false, err
	}
	if del != nil {
		_, err = s.deleteItem(ctx, del)
		if err != nil && conditionFailed(err) {
			return false, nil
		}
	} else {
		_, err = s.transact(ctx, in)
		if err != nil && cancelledByCondition(err, 0) {
			return false, nil
		}
	}
	if err != nil {
		err = fmt.Errorf("remove edge %s %s: %w", pk, sk, err)
		steps := counterSteps(schema.Keys{PK: pk, SK: sk}, removalUpdates(sd, pk, sk), false)
		err = s.explainNotNumber(ctx, "delete --cascade", sd.rel, steps, err)
		var nn *CounterNotNumberError
		if errors.As(err, &nn) {
			nn.Edge = pk + " " + sk
		}
		return false, err
	}
	return true, nil
}
