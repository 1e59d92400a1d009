package faultproxy

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// A batch answered in part: the first requests of BatchWriteItem's
// RequestItems (or keys of BatchGetItem's), tables in name order, are
// forwarded; the others come back as UnprocessedItems (UnprocessedKeys),
// merged with whatever the engine left unprocessed itself.

// writeItems is BatchWriteItem's RequestItems (and UnprocessedItems).
type writeItems map[string][]json.RawMessage

// getItems is BatchGetItem's RequestItems (and UnprocessedKeys): per table,
// its Keys and the other members (ConsistentRead, ProjectionExpression...).
type getItems map[string]map[string]json.RawMessage

// batchSize is the number of requests (keys) in a batch; 0 for other
// operations and bodies that do not parse.
func batchSize(op string, body []byte) int {
	switch op {
	case "BatchWriteItem":
		var in struct{ RequestItems writeItems }
		if json.Unmarshal(body, &in) != nil {
			return 0
		}
		n := 0
		for _, reqs := range in.RequestItems {
			n += len(reqs)
		}
		return n
	case "BatchGetItem":
		var in struct{ RequestItems getItems }
		if json.Unmarshal(body, &in) != nil {
			return 0
		}
		n := 0
		for _, t := range in.RequestItems {
			var keys []json.RawMessage
			_ = json.Unmarshal(t["Keys"], &keys)
			n += len(keys)
		}
		return n
	}
	return 0
}

// split cuts a batch request in two: sent keeps the first cut(n) requests,
// held the rest, as the unprocessed member of the answer. ok is false for a
// batch of fewer than two requests.
func split(op string, body []byte, cut func(n int) int) (sent []byte, held map[string]any, ok bool) {
	n := batchSize(op, body)
	if n < 2 {
		return nil, nil, false
	}
	keep := cut(n)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, nil, false
	}
	held = map[string]any{}
	switch op {
	case "BatchWriteItem":
		var items writeItems
		if json.Unmarshal(top["RequestItems"], &items) != nil {
			return nil, nil, false
		}
		out := writeItems{}
		for _, t := range slices.Sorted(maps.Keys(items)) {
			reqs := items[t]
			k := min(keep, len(reqs))
			keep -= k
			if k > 0 {
				out[t] = reqs[:k]
			}
			if k < len(reqs) {
				held[t] = reqs[k:]
			}
		}
		top["RequestItems"] = mustJSON(out)
	case "BatchGetItem":
		var items getItems
		if json.Unmarshal(top["RequestItems"], &items) != nil {
			return nil, nil, false
		}
		out := getItems{}
		for _, t := range slices.Sorted(maps.Keys(items)) {
			var keys []json.RawMessage
			_ = json.Unmarshal(items[t]["Keys"], &keys)
			k := min(keep, len(keys))
			keep -= k
			if k > 0 {
				out[t] = withKeys(items[t], keys[:k])
			}
			if k < len(keys) {
				held[t] = withKeys(items[t], keys[k:])
			}
		}
		top["RequestItems"] = mustJSON(out)
	default:
		return nil, nil, false
	}
	return mustJSON(top), held, true
}

// merge adds held to the unprocessed member of the engine's answer.
func merge(op string, body []byte, held map[string]any) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("faultproxy: %s answer: %w", op, err)
	}
	switch op {
	case "BatchWriteItem":
		un := writeItems{}
		if raw, ok := top["UnprocessedItems"]; ok {
			if err := json.Unmarshal(raw, &un); err != nil {
				return nil, fmt.Errorf("faultproxy: UnprocessedItems: %w", err)
			}
		}
		for t, reqs := range held {
			un[t] = append(un[t], reqs.([]json.RawMessage)...)
		}
		top["UnprocessedItems"] = mustJSON(un)
	case "BatchGetItem":
		un := getItems{}
		if raw, ok := top["UnprocessedKeys"]; ok {
			if err := json.Unmarshal(raw, &un); err != nil {
				return nil, fmt.Errorf("faultproxy: UnprocessedKeys: %w", err)
			}
		}
		for t, h := range held {
			h := h.(map[string]json.RawMessage)
			if un[t] == nil {
				un[t] = h
				continue
			}
			var a, b []json.RawMessage
			_ = json.Unmarshal(un[t]["Keys"], &a)
			_ = json.Unmarshal(h["Keys"], &b)
			un[t] = withKeys(un[t], append(a, b...))
		}
		top["UnprocessedKeys"] = mustJSON(un)
	}
	return mustJSON(top), nil
}

// withKeys is a BatchGetItem table entry with other keys.
func withKeys(t map[string]json.RawMessage, keys []json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(t))
	for k, v := range t {
		out[k] = v
	}
	out["Keys"] = mustJSON(keys)
	return out
}

// mustJSON marshals values that came from json.Unmarshal, which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
