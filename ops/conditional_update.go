package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Expect is what a conditional update was shown of an item: each named
// attribute's value when it was read, nil for an attribute it did not hold.
// The update is written only if the item holds exactly that still.
type Expect map[string]types.AttributeValue

// Change is an attribute that no longer holds what was shown: Shown and
// Now are its values then and now (nil: absent).
type Change struct {
	Name       string
	Shown, Now types.AttributeValue
}

// ChangedError is a conditional update refused because the item changed
// since it was read (or is gone): nothing was written.
type ChangedError struct {
	PK, SK  string
	Gone    bool // the item no longer exists
	Changes []Change
	Err     error
}

func (e *ChangedError) Error() string {
	if e.Gone {
		return fmt.Sprintf("%s %s was removed since it was read; nothing written", e.PK, e.SK)
	}
	var parts []string
	for _, c := range e.Changes {
		parts = append(parts, fmt.Sprintf("%s is %s (was %s)", c.Name, shownValue(c.Now), shownValue(c.Shown)))
	}
	what := "changed"
	if len(parts) > 0 {
		what = strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s %s changed since it was read: %s; nothing written", e.PK, e.SK, what)
}

func (e *ChangedError) Unwrap() error { return e.Err }

// shownValue writes an attribute value for a message: its plain value, or
// "unset" for none.
func shownValue(av types.AttributeValue) string {
	if av == nil {
		return "unset"
	}
	v, err := PlainValue(av)
	if err != nil {
		return "?"
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// UpdateEdgeIf sets attrs and removes the attributes in remove on the edge
// from → to, in one UpdateItem on condition that the edge exists and holds
// what expect says it was shown; otherwise nothing is written and the
// error is a *ChangedError saying what differs. Counters are untouched: the
// edge stays linked. It returns the edge as written.
func (s *Store) UpdateEdgeIf(ctx context.Context, rel *schema.Relation, from, to string, expect Expect, attrs map[string]any, remove []string) (Item, error) {
	k, err := s.edgeKeys(rel, from, to)
	if err != nil {
		return nil, err
	}
	if err := refuseSortRemoval(rel, remove); err != nil {
		return nil, err
	}
	upd, err := s.attrUpdate(attrs, remove)
	if err != nil {
		return nil, err
	}
	if v, ok := attrs[sortBy(rel)]; ok {
		keys, err := s.sortKeysOf(rel, k, v)
		if err != nil {
			return nil, err
		}
		for _, n := range slices.Sorted(maps.Keys(keys)) {
			upd = upd.Set(expression.NameNoDotSplit(n), expression.Value(keys[n]))
		}
	}
	return s.updateIf(ctx, k.PK, k.SK, upd, expect, true)
}

// sortBy is the attribute an ordered relation is sorted by ("" for none).
func sortBy(rel *schema.Relation) string {
	if rel.Sort == nil {
		return ""
	}
	return rel.Sort.By
}

// sortKeysOf are the keys that order an edge of rel with sort value v (a
// typed value, or the AttributeValue an undo writes back): the composite
// index sort key and the forward index key, where the relation has them.
func (s *Store) sortKeysOf(rel *schema.Relation, k schema.Keys, v any) (Item, error) {
	switch av := v.(type) {
	case *types.AttributeValueMemberS:
		v = av.Value
	case *types.AttributeValueMemberN:
		v = schema.Number(av.Value)
	}
	keys, err := s.orderKeys(rel, &k, v)
	if err != nil {
		return nil, err
	}
	out := Item{}
	maps.Copy(out, keys)
	if rel.IsComposite() {
		out[s.layout.IndexSK] = str(k.IndexSK)
	}
	return out, nil
}

// UpdateEntityIf is UpdateEdgeIf for the item of entity e with id: the
// layout's index keys and type are set as a put sets them, so an item that
// was not stored is created whole (its counters are never touched). The
// condition is that it holds what expect says, which must name at least
// one attribute. It returns the item as written.
func (s *Store) UpdateEntityIf(ctx context.Context, e *schema.Entity, id string, expect Expect, attrs map[string]any, remove []string) (Item, error) {
	key, err := e.Key(id)
	if err != nil {
		return nil, err
	}
	names, values, err := s.marshalAttrs(attrs)
	if err != nil {
		return nil, err
	}
	if err := s.checkRemovable(remove); err != nil {
		return nil, err
	}
	if len(expect) == 0 {
		return nil, &InputError{Msg: fmt.Sprintf("update %s: no attribute was shown to condition the write on", key)}
	}
	upd, _, _ := s.entityUpdate(e, key, names, values, remove)
	return s.updateIf(ctx, key, key, upd, expect, false)
}

// attrUpdate is SET attrs, REMOVE remove, refusing the attributes the
// layout manages.
func (s *Store) attrUpdate(attrs map[string]any, remove []string) (expression.UpdateBuilder, error) {
	var upd expression.UpdateBuilder
	names, values, err := s.marshalAttrs(attrs)
	if err != nil {
		return upd, err
	}
	if err := s.checkRemovable(remove); err != nil {
		return upd, err
	}
	if len(names)+len(remove) == 0 {
		return upd, &InputError{Msg: "nothing to update: no attribute is set or removed"}
	}
	for _, n := range names {
		upd = upd.Set(expression.NameNoDotSplit(n), expression.Value(values[n]))
	}
	for _, n := range remove {
		upd = upd.Remove(expression.NameNoDotSplit(n))
	}
	return upd, nil
}

func (s *Store) checkRemovable(remove []string) error {
	for _, n := range remove {
		if slices.Contains(s.layout.Reserved(), n) {
			return &InputError{Msg: fmt.Sprintf("attribute %s is managed by adjl and cannot be removed", n)}
		}
	}
	return nil
}

// expectCondition is the condition that the item holds each attribute of
// expect as shown, in name order, and, with mustExist, that it exists.
func (s *Store) expectCondition(expect Expect, mustExist bool) expression.ConditionBuilder {
	var conds []expression.ConditionBuilder
	if mustExist {
		conds = append(conds, expression.AttributeExists(s.pkName()))
	}
	for _, n := range slices.Sorted(maps.Keys(expect)) {
		name := expression.NameNoDotSplit(n)
		if av := expect[n]; av != nil {
			conds = append(conds, name.Equal(expression.Value(av)))
		} else {
			conds = append(conds, expression.AttributeNotExists(name))
		}
	}
	cond := conds[0]
	for _, c := range conds[1:] {
		cond = cond.And(c)
	}
	return cond
}

// updateIf sends the UpdateItem of upd on pk sk under expectCondition. A
// failed condition reads the item as it is now, from the failure itself
// (ReturnValuesOnConditionCheckFailure) or, where a backend does not
// return it, with one strongly consistent GetItem.
func (s *Store) updateIf(ctx context.Context, pk, sk string, upd expression.UpdateBuilder, expect Expect, mustExist bool) (Item, error) {
	ex, err := expression.NewBuilder().WithUpdate(upd).WithCondition(s.expectCondition(expect, mustExist)).Build()
	if err != nil {
		return nil, fmt.Errorf("build conditional update: %w", err)
	}
	in := s.updateInput(pk, sk, ex)
	in.ReturnValues = types.ReturnValueAllNew
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	out, err := s.updateItem(ctx, in)
	if err == nil {
		return out.Attributes, nil
	}
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, fmt.Errorf("update %s %s: %w", pk, sk, err)
	}
	now := ccf.Item
	if len(now) == 0 {
		out, gerr := s.getItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.schema.Table.Name),
			Key: s.keyOf(pk, sk), ConsistentRead: aws.Bool(true)})
		if gerr != nil {
			return nil, fmt.Errorf("update %s %s: %w (and reading it back: %v)", pk, sk, err, gerr)
		}
		now = out.Item
	}
	return nil, changedError(pk, sk, expect, mustExist, now, err)
}

// changedError says how now, the item after a refused update, differs
// from what was expected of it.
func changedError(pk, sk string, expect Expect, mustExist bool, now Item, err error) *ChangedError {
	ce := &ChangedError{PK: pk, SK: sk, Err: err, Gone: mustExist && len(now) == 0}
	for _, n := range slices.Sorted(maps.Keys(expect)) {
		was, is := expect[n], now[n]
		if (was == nil) != (is == nil) || was != nil && !sameValue(was, is) {
			ce.Changes = append(ce.Changes, Change{Name: n, Shown: was, Now: is})
		}
	}
	return ce
}
