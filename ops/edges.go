package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// edgeKeys validates both keys before any request and derives the edge keys.
func (s *Store) edgeKeys(rel *schema.Relation, from, to string) (schema.Keys, error) {
	fromKey, err := rel.FromKey(from)
	if err != nil {
		return schema.Keys{}, err
	}
	toKey, err := rel.ToKey(to)
	if err != nil {
		return schema.Keys{}, err
	}
	k := s.layout.EdgeKeys(rel, fromKey, toKey)
	if k.PK == k.SK {
		// Only possible for an unprefixed self-edge: it would overwrite the
		// entity item itself.
		return schema.Keys{}, &InputError{Msg: fmt.Sprintf("relation %s cannot link %s to itself: the edge would be the entity item", rel.Name, fromKey)}
	}
	return k, nil
}

// counterUpdate is one counter item's change: a side item (pk == sk, the
// counter kept on the entity or role item itself) or a counter shard item
// (sk = ADJL#COUNT#<counter>#<k>) of a counter spread over several items.
type counterUpdate struct {
	pk, sk  string
	entity  string // value of "type" if a side item is new
	counter map[string]int
	// stamp, when set, is the relation's shard stamp attribute: the update
	// records shards in it and requires the item to record no other count.
	stamp  string
	shards int
	// mustExist makes the update require the item to exist (a link with
	// RequireEntities whose counter lives on the entity item itself).
	mustExist bool
}

// counterUpdates lists the counter items that change by delta when an edge
// between fromKey and toKey is written or removed. A self-edge touching one
// item twice becomes one update, as a transaction may touch an item once.
func counterUpdates(rel *schema.Relation, fromKey, toKey string, delta int) []counterUpdate {
	var ups []counterUpdate
	ups = addCounterUpdate(ups, rel, schema.FromEnd, fromKey, toKey, delta)
	return addCounterUpdate(ups, rel, schema.ToEnd, toKey, fromKey, delta)
}

// addCounterUpdate adds the change of the counter kept at end of rel on key;
// other is the edge's other key, whose hash picks the counter shard.
func addCounterUpdate(ups []counterUpdate, rel *schema.Relation, end schema.End, key, other string, delta int) []counterUpdate {
	name, shards := rel.Counter(end)
	if name == "" {
		return ups
	}
	entity := rel.From.Entity.Name
	if end == schema.ToEnd {
		entity = rel.To.Entity.Name
	}
	u := counterUpdate{pk: key, sk: key, entity: entity}
	if shards > 1 {
		u.sk, u.entity = schema.CounterSK(name, rel.CounterShard(end, other)), ""
	}
	for i := range ups {
		if ups[i].pk == u.pk && ups[i].sk == u.sk {
			ups[i].counter[name] += delta
			return ups
		}
	}
	u.counter = map[string]int{name: delta}
	return append(ups, u)
}

// sideUpdate builds the Update of a counter item: ADD the counters, and in
// the generic layout 1 to each one's changes attribute (see
// schema.ChangesPrefix), which a recount's count is checked against. In the
// generic layout a side item also gets its index keys and type, so a counter
// item created by the first link is a proper entity (or role) item; in the
// inverted layout its table keys index it already. A counter shard item gets
// nothing else: it carries no index keys, so no list ever returns it. A
// link's updates also record the relation's shard count (see
// schema.ShardStampPrefix) on condition that the item recorded no other.
func (s *Store) sideUpdate(u counterUpdate) (*types.Update, error) {
	var upd expression.UpdateBuilder
	for _, name := range slices.Sorted(maps.Keys(u.counter)) {
		upd = upd.Add(expression.NameNoDotSplit(name), expression.Value(u.counter[name]))
		if s.layout.CountsChanges() {
			upd = upd.Add(expression.NameNoDotSplit(schema.Changes(name)), expression.Value(1))
		}
	}
	if l := s.layout; u.pk == u.sk && l.WritesIndexKeys() {
		upd = upd.Set(expression.NameNoDotSplit(l.IndexPK), expression.Value(u.pk)).
			Set(expression.NameNoDotSplit(l.IndexSK), expression.Value(u.pk))
	}
	if t := s.layout.Type; u.pk == u.sk && t != "" {
		upd = upd.Set(expression.NameNoDotSplit(t), expression.IfNotExists(expression.NameNoDotSplit(t), expression.Value(u.entity)))
	}
	b := expression.NewBuilder()
	var cond expression.ConditionBuilder
	hasCond := false
	if u.stamp != "" {
		upd = upd.Set(expression.NameNoDotSplit(u.stamp), expression.Value(u.shards))
		cond, hasCond = stampCondition(u.stamp, u.shards), true
	}
	if u.mustExist {
		exists := expression.AttributeExists(s.pkName())
		if hasCond {
			cond = exists.And(cond)
		} else {
			cond, hasCond = exists, true
		}
	}
	b = b.WithUpdate(upd)
	if hasCond {
		b = b.WithCondition(cond)
	}
	ex, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build counter update: %w", err)
	}
	return &types.Update{
		TableName:                 aws.String(s.schema.Table.Name),
		Key:                       s.keyOf(u.pk, u.sk),
		UpdateExpression:          ex.Update(),
		ConditionExpression:       ex.Condition(),
		ExpressionAttributeNames:  ex.Names(),
		ExpressionAttributeValues: ex.Values(),
	}, nil
}

func condition(c expression.ConditionBuilder) (expression.Expression, error) {
	ex, err := expression.NewBuilder().WithCondition(c).Build()
	if err != nil {
		return ex, fmt.Errorf("build condition: %w", err)
	}
	return ex, nil
}

// LinkOptions tune a link.
type LinkOptions struct {
	// RequireEntities refuses the link, in the same transaction, when either
	// side's entity item does not exist (a relation can ask for it in the
	// schema too).
	RequireEntities bool
	// Remove names edge attributes an existing edge loses, in the same
	// UpdateItem that SETs the new values (a new edge is written without them).
	Remove []string
}

// linkStep says what one item of a link's transaction is, so a cancelled
// transaction can be explained.
type linkStep struct {
	pk, sk   string
	stamp    bool     // records the relation's shard count
	entity   bool     // must exist: an entity item under RequireEntities
	counters []string // the counters the step adds to
}

// counterSteps are the steps of a transaction's counter updates, which
// follow the edge's own write.
func counterSteps(edge schema.Keys, ups []counterUpdate, stamp bool) []linkStep {
	steps := []linkStep{{pk: edge.PK, sk: edge.SK}}
	for _, u := range ups {
		steps = append(steps, linkStep{pk: u.pk, sk: u.sk, stamp: stamp, entity: u.mustExist, counters: slices.Sorted(maps.Keys(u.counter))})
	}
	return steps
}

// Link writes the edge once. With counters it is one TransactWriteItems: the
// conditional Put of the edge plus the counter ADDs, so a repeated link changes
// nothing and counts nothing twice. An existing edge gets new attributes
// (without touching counters) or reports "unchanged".
func (s *Store) Link(ctx context.Context, rel *schema.Relation, from, to string, attrs map[string]any) (Outcome, schema.Keys, error) {
	return s.LinkWith(ctx, rel, from, to, attrs, LinkOptions{})
}

// LinkWith is Link with options.
func (s *Store) LinkWith(ctx context.Context, rel *schema.Relation, from, to string, attrs map[string]any, opt LinkOptions) (Outcome, schema.Keys, error) {
	k, err := s.edgeKeys(rel, from, to)
	if err != nil {
		return "", k, err
	}
	if err := refuseSortRemoval(rel, opt.Remove); err != nil {
		return "", k, err
	}
	attrs, defaulted, err := s.sortValue(rel, attrs)
	if err != nil {
		return "", k, err
	}
	names, values, err := s.marshalAttrs(attrs)
	if err != nil {
		return "", k, err
	}
	put, steps, in, err := s.orderedLinkInput(rel, &k, attrs, values, opt.RequireEntities || rel.RequireEntities)
	if err != nil {
		return "", k, err
	}
	// An existing edge gets what the user gave, never a default.
	names, values = s.relinkValues(rel, k, attrs, names, values, defaulted)
	if s.explaining() && len(names)+len(opt.Remove) > 0 {
		defer s.explainRelink(rel, k, names, values, opt.Remove)
	}
	if in == nil {
		_, err = s.putItem(ctx, put)
		if err != nil && conditionFailed(err) {
			return s.relink(ctx, rel, k, names, values, opt.Remove)
		}
	} else {
		_, err = s.transact(ctx, in)
		if failed := cancelledSteps(err); len(failed) > 0 {
			if failed[0] != 0 {
				return "", k, s.explainRefusal(ctx, rel, steps, failed, err)
			}
			if len(failed) == 1 {
				return s.relink(ctx, rel, k, names, values, opt.Remove)
			}
			return "", k, s.explainRefusal(ctx, rel, steps, failed[1:], err)
		}
	}
	if err != nil {
		return "", k, s.explainNotNumber(ctx, "link", rel, steps, fmt.Errorf("link %s %s: %w", k.PK, k.SK, err))
	}
	if s.explaining() {
		return "", k, nil
	}
	return Created, k, nil
}

// linkInput builds a link's request: a lone conditional PutItem (put) when
// nothing else has to change or be checked, else a TransactWriteItems (in)
// with steps describing its items.
func (s *Store) linkInput(rel *schema.Relation, k schema.Keys, values Item, requireEntities bool) (put *dynamodb.PutItemInput, steps []linkStep, in *dynamodb.TransactWriteItemsInput, err error) {
	item := s.keyItem(k)
	if t := s.layout.Type; t != "" {
		item[t] = str(rel.Name)
	}
	if rel.Shards > 1 && s.layout.Stamps() {
		item[rel.ShardStamp()] = &types.AttributeValueMemberN{Value: strconv.Itoa(rel.Shards)}
	}
	for name, v := range values {
		item[name] = v
	}
	cond, err := condition(expression.AttributeNotExists(s.pkName()))
	if err != nil {
		return nil, nil, nil, err
	}
	fromKey, toKey := k.PK, k.SK[len(rel.Edge):]
	ups := counterUpdates(rel, fromKey, toKey, 1)
	// The entity items that must exist: those holding a counter get the
	// condition on their update, the others a ConditionCheck.
	var checks []string
	if requireEntities {
		for _, key := range []string{rel.From.EntityKey(fromKey), rel.To.EntityKey(toKey)} {
			i := slices.IndexFunc(ups, func(u counterUpdate) bool { return u.pk == key && u.sk == key })
			switch {
			case i >= 0:
				ups[i].mustExist = true
			case !slices.Contains(checks, key):
				checks = append(checks, key)
			}
		}
	}
	put = &dynamodb.PutItemInput{
		TableName: aws.String(s.schema.Table.Name), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	}
	if len(ups) == 0 && len(checks) == 0 {
		return put, nil, nil, nil
	}
	in = &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
		TableName: put.TableName, Item: item,
		ConditionExpression: put.ConditionExpression, ExpressionAttributeNames: put.ExpressionAttributeNames,
	}}}}
	steps = counterSteps(k, ups, s.layout.Stamps())
	for _, u := range ups {
		if s.layout.Stamps() {
			u.stamp, u.shards = rel.ShardStamp(), shardsOf(rel)
		}
		upd, err := s.sideUpdate(u)
		if err != nil {
			return nil, nil, nil, err
		}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Update: upd})
	}
	exists, err := condition(expression.AttributeExists(s.pkName()))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, key := range checks {
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: put.TableName, Key: s.keyOf(key, key),
			ConditionExpression: exists.Condition(), ExpressionAttributeNames: exists.Names(),
		}})
		steps = append(steps, linkStep{pk: key, sk: key, entity: true})
	}
	return nil, steps, in, nil
}

// explainRelink hands Explain the UpdateItem a link sends after its write
// when the edge already exists.
func (s *Store) explainRelink(rel *schema.Relation, k schema.Keys, names []string, values Item, remove []string) {
	in, err := s.relinkInput(k, names, values, remove)
	if err != nil {
		return
	}
	in.ReturnConsumedCapacity = s.rcc()
	s.explainWhen("UpdateItem", in, "only if the edge already exists: it gets the new attribute values, counters untouched")
}

// relinkInput SETs the given attributes on an existing edge and REMOVEs
// those in remove.
func (s *Store) relinkInput(k schema.Keys, names []string, values Item, remove []string) (*dynamodb.UpdateItemInput, error) {
	var upd expression.UpdateBuilder
	for _, n := range names {
		upd = upd.Set(expression.NameNoDotSplit(n), expression.Value(values[n]))
	}
	for _, n := range remove {
		upd = upd.Remove(expression.NameNoDotSplit(n))
	}
	ex, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(s.pkName())).Build()
	if err != nil {
		return nil, fmt.Errorf("build edge update: %w", err)
	}
	in := s.updateInput(k.PK, k.SK, ex)
	in.ReturnValues = types.ReturnValueAllOld
	return in, nil
}

// relink handles a link whose edge already exists: new attribute values are
// SET (counters untouched) and the old values tell a real change from a
// repeat. ALL_OLD rather than UPDATED_OLD: servers disagree on whether
// UPDATED_OLD includes an attribute SET to its current value (moto omits
// it), which would make "unchanged" and "new attribute" look alike.
func (s *Store) relink(ctx context.Context, rel *schema.Relation, k schema.Keys, names []string, values Item, remove []string) (Outcome, schema.Keys, error) {
	if len(names)+len(remove) == 0 {
		return Unchanged, k, nil
	}
	in, err := s.relinkInput(k, names, values, remove)
	if err != nil {
		return "", k, err
	}
	out, err := s.updateItem(ctx, in)
	if err != nil {
		if conditionFailed(err) {
			return "", k, &ConflictError{Msg: fmt.Sprintf("edge %s %s was removed while it was being updated; retry", k.PK, k.SK), Err: err}
		}
		return "", k, fmt.Errorf("update edge %s %s: %w", k.PK, k.SK, err)
	}
	if unchangedBy(out.Attributes, values) && !holdsAny(out.Attributes, remove) {
		return Unchanged, k, nil
	}
	return Updated, k, nil
}

// Unlink removes the edge and, in the same transaction, decrements the
// counters. A missing edge is "unchanged" and counts nothing.
func (s *Store) Unlink(ctx context.Context, rel *schema.Relation, from, to string) (Outcome, schema.Keys, error) {
	k, err := s.edgeKeys(rel, from, to)
	if err != nil {
		return "", k, err
	}
	cond, err := condition(expression.AttributeExists(s.pkName()))
	if err != nil {
		return "", k, err
	}
	ups := counterUpdates(rel, k.PK, k.SK[len(rel.Edge):], -1)
	if len(ups) == 0 {
		_, err = s.deleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(k.PK, k.SK),
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		})
		if err != nil && conditionFailed(err) {
			return Unchanged, k, nil
		}
	} else {
		in, berr := s.deleteEdgeTx(k.PK, k.SK, ups)
		if berr != nil {
			return "", k, berr
		}
		_, err = s.transact(ctx, in)
		if err != nil && cancelledByCondition(err, 0) {
			return Unchanged, k, nil
		}
	}
	if err != nil {
		return "", k, s.explainNotNumber(ctx, "unlink", rel, counterSteps(k, ups, false), fmt.Errorf("unlink %s %s: %w", k.PK, k.SK, err))
	}
	if s.explaining() {
		return "", k, nil
	}
	return Deleted, k, nil
}

// deleteEdgeTx is the conditional Delete of an edge plus counter updates.
func (s *Store) deleteEdgeTx(pk, sk string, ups []counterUpdate) (*dynamodb.TransactWriteItemsInput, error) {
	cond, err := condition(expression.AttributeExists(s.pkName()))
	if err != nil {
		return nil, err
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(pk, sk),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	}}}}
	for _, u := range ups {
		upd, err := s.sideUpdate(u)
		if err != nil {
			return nil, err
		}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Update: upd})
	}
	return in, nil
}

// Check is the point lookup of one edge: GetItem on its primary key.
func (s *Store) Check(ctx context.Context, rel *schema.Relation, from, to string, consistent bool) (Item, bool, error) {
	k, err := s.edgeKeys(rel, from, to)
	if err != nil {
		return nil, false, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name), Key: s.keyOf(k.PK, k.SK)}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	out, err := s.getItem(ctx, in)
	if err != nil {
		return nil, false, fmt.Errorf("check %s %s: %w", k.PK, k.SK, err)
	}
	return out.Item, len(out.Item) > 0, nil
}
