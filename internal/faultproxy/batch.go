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

// batchOp is how a batch operation holds its requests. RequestItems, and
// the unprocessed member of the answer, map each table to an entry: for
// BatchWriteItem the list of write requests, for BatchGetItem an object
// whose Keys are the requests beside other members (ConsistentRead,
// ProjectionExpression...), which every part of the entry keeps.
type batchOp struct {
	unprocessed string
	// requests reads an entry's requests; an error is an entry of the
	// wrong shape.
	requests func(entry json.RawMessage) ([]json.RawMessage, error)
	// withRequests is entry with reqs as its requests.
	withRequests func(entry json.RawMessage, reqs []json.RawMessage) json.RawMessage
}

// batchOps are the batch operations by name.
var batchOps = map[string]batchOp{
	"BatchWriteItem": {
		unprocessed: "UnprocessedItems",
		requests: func(entry json.RawMessage) ([]json.RawMessage, error) {
			var reqs []json.RawMessage
			err := json.Unmarshal(entry, &reqs)
			return reqs, err
		},
		withRequests: func(_ json.RawMessage, reqs []json.RawMessage) json.RawMessage { return mustJSON(reqs) },
	},
	"BatchGetItem": {
		unprocessed: "UnprocessedKeys",
		requests: func(entry json.RawMessage) ([]json.RawMessage, error) {
			var members map[string]json.RawMessage
			if err := json.Unmarshal(entry, &members); err != nil {
				return nil, err
			}
			var keys []json.RawMessage
			_ = json.Unmarshal(members["Keys"], &keys)
			return keys, nil
		},
		withRequests: func(entry json.RawMessage, keys []json.RawMessage) json.RawMessage {
			var members map[string]json.RawMessage
			_ = json.Unmarshal(entry, &members) // read by requests before
			out := maps.Clone(members)
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out["Keys"] = mustJSON(keys)
			return mustJSON(out)
		},
	},
}

// batchRequest is a batch request's body taken apart.
type batchRequest struct {
	op      batchOp
	top     map[string]json.RawMessage   // the body's members
	entries map[string]json.RawMessage   // RequestItems
	reqs    map[string][]json.RawMessage // each table's requests
}

// parseBatch takes a batch request's body apart; ok is false for another
// operation or a body that does not parse.
func parseBatch(op string, body []byte) (req batchRequest, ok bool) {
	req.op, ok = batchOps[op]
	if !ok || json.Unmarshal(body, &req.top) != nil || json.Unmarshal(req.top["RequestItems"], &req.entries) != nil {
		return batchRequest{}, false
	}
	req.reqs = make(map[string][]json.RawMessage, len(req.entries))
	for t, e := range req.entries {
		r, err := req.op.requests(e)
		if err != nil {
			return batchRequest{}, false
		}
		req.reqs[t] = r
	}
	return req, true
}

// batchSize is the number of requests (keys) in a batch; 0 for other
// operations and bodies that do not parse.
func batchSize(op string, body []byte) int {
	req, _ := parseBatch(op, body)
	return req.size()
}

func (req batchRequest) size() int {
	n := 0
	for _, r := range req.reqs {
		n += len(r)
	}
	return n
}

// split cuts a batch request in two: sent keeps the first cut(n) requests,
// held the rest, as the unprocessed member of the answer. ok is false for a
// batch of fewer than two requests.
func split(op string, body []byte, cut func(n int) int) (sent []byte, held map[string]json.RawMessage, ok bool) {
	req, ok := parseBatch(op, body)
	n := req.size()
	if !ok || n < 2 {
		return nil, nil, false
	}
	keep := cut(n)
	out := map[string]json.RawMessage{}
	held = map[string]json.RawMessage{}
	for _, t := range slices.Sorted(maps.Keys(req.entries)) {
		r := req.reqs[t]
		k := min(keep, len(r))
		keep -= k
		if k > 0 {
			out[t] = req.op.withRequests(req.entries[t], r[:k])
		}
		if k < len(r) {
			held[t] = req.op.withRequests(req.entries[t], r[k:])
		}
	}
	req.top["RequestItems"] = mustJSON(out)
	return mustJSON(req.top), held, true
}

// merge adds held to the unprocessed member of the engine's answer.
func merge(op string, body []byte, held map[string]json.RawMessage) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("faultproxy: %s answer: %w", op, err)
	}
	b, ok := batchOps[op]
	if !ok {
		return mustJSON(top), nil
	}
	un := map[string]json.RawMessage{}
	if raw, ok := top[b.unprocessed]; ok {
		if err := json.Unmarshal(raw, &un); err != nil {
			return nil, fmt.Errorf("faultproxy: %s: %w", b.unprocessed, err)
		}
	}
	for t, h := range held {
		if un[t] == nil {
			un[t] = h
			continue
		}
		left, err := b.requests(un[t])
		if err != nil {
			return nil, fmt.Errorf("faultproxy: %s: %w", b.unprocessed, err)
		}
		more, _ := b.requests(h) // made by split
		un[t] = b.withRequests(un[t], append(left, more...))
	}
	top[b.unprocessed] = mustJSON(un)
	return mustJSON(top), nil
}

// mustJSON marshals values that came from json.Unmarshal, which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
