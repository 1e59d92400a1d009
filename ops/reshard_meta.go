package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// reshardAttrPrefix names the metadata attribute holding one relation's
// unfinished reshard: "reshard-follow". One attribute per relation (not a
// map) so that starting, saving and finishing are single SET or REMOVE
// actions with no overlapping document paths.
const reshardAttrPrefix = "reshard-"

// reshardState is the progress of an unfinished reshard: the layouts
// involved and the Scan position after the last page fully processed.
type reshardState struct {
	From, To int
	LastPK   string // "" before the first page is done
	LastSK   string
	Moved    int // edges rewritten so far, over every run
}

func reshardAttr(rel string) string { return reshardAttrPrefix + rel }

// reshardStates reads every unfinished reshard from the metadata item.
func reshardStates(meta Item) map[string]reshardState {
	out := map[string]reshardState{}
	for name, v := range meta {
		rel, ok := strings.CutPrefix(name, reshardAttrPrefix)
		m, isMap := v.(*types.AttributeValueMemberM)
		if !ok || !isMap {
			continue
		}
		out[rel] = reshardState{
			From: nOfInt(m.Value["from"]), To: nOfInt(m.Value["to"]),
			LastPK: sOf(m.Value, "lastPK"), LastSK: sOf(m.Value, "lastSK"),
			Moved: nOfInt(m.Value["moved"]),
		}
	}
	return out
}

func nOfInt(v types.AttributeValue) int {
	if n, ok := v.(*types.AttributeValueMemberN); ok {
		if i, err := strconv.Atoi(n.Value); err == nil {
			return i
		}
	}
	return 0
}

// startKey is where the Scan resumes; nil from the beginning.
func (s *Store) startKey(st reshardState) Item {
	if st.LastPK == "" {
		return nil
	}
	return s.keyOf(st.LastPK, st.LastSK)
}

func (st reshardState) item() types.AttributeValue {
	m := map[string]types.AttributeValue{
		"from":  &types.AttributeValueMemberN{Value: strconv.Itoa(st.From)},
		"to":    &types.AttributeValueMemberN{Value: strconv.Itoa(st.To)},
		"moved": &types.AttributeValueMemberN{Value: strconv.Itoa(st.Moved)},
	}
	if st.LastPK != "" {
		m["lastPK"], m["lastSK"] = str(st.LastPK), str(st.LastSK)
	}
	return &types.AttributeValueMemberM{Value: m}
}

// ensureMeta creates the metadata item if the table has none yet (no edge
// was ever written through adjl), so reshard state can be recorded in it.
// The caller holds metaMu.
func (s *Store) ensureMeta(ctx context.Context) error {
	if s.metaExists {
		return nil
	}
	if err := s.putMeta(ctx); err != nil && !conditionFailed(err) {
		return fmt.Errorf("create table metadata: %w", err)
	}
	return s.loadMeta(ctx, true)
}

// saveReshard records st as rel's reshard progress.
func (s *Store) saveReshard(ctx context.Context, rel string, st reshardState) error {
	ex, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.NameNoDotSplit(reshardAttr(rel)), expression.Value(st.item()))).
		WithCondition(expression.AttributeExists(s.pkName())).Build()
	if err != nil {
		return fmt.Errorf("build reshard progress: %w", err)
	}
	if err := s.updateMeta(ctx, ex); err != nil {
		return fmt.Errorf("record reshard progress of %s: %w", rel, err)
	}
	s.metaReshard[rel] = st
	return nil
}

// finishReshard records the new shard count and drops the progress, in one
// write: the relation is never seen with the new count and a stale state.
func (s *Store) finishReshard(ctx context.Context, rel string, to int) error {
	path := expression.Name(metaShardsAttr).AppendName(expression.NameNoDotSplit(rel))
	ex, err := expression.NewBuilder().
		WithUpdate(expression.Set(path, expression.Value(to)).Remove(expression.NameNoDotSplit(reshardAttr(rel)))).
		WithCondition(expression.AttributeExists(s.pkName())).Build()
	if err != nil {
		return fmt.Errorf("build shard count update: %w", err)
	}
	if err := s.updateMeta(ctx, ex); err != nil {
		return fmt.Errorf("record %d shards for %s: %w", to, rel, err)
	}
	s.metaShards[rel] = to
	delete(s.metaReshard, rel)
	return nil
}

func (s *Store) updateMeta(ctx context.Context, ex expression.Expression) error {
	_, err := s.updateItem(ctx, s.updateInput(MetaKey, MetaKey, ex))
	return err
}
