package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// queryResponse builds a Query response as a server would send it, with n
// items whose strings hold brackets, quotes and escapes.
func queryResponse(t *testing.T, n int, next bool) []byte {
	t.Helper()
	items := make([]map[string]map[string]any, n)
	for i := range items {
		items[i] = map[string]map[string]any{
			"PK":   {"S": fmt.Sprintf(`ACTOR#u%08d {"Items":[{}]} \ "`, i)},
			"tags": {"L": []any{map[string]any{"M": map[string]any{"x": map[string]any{"N": "1"}}}}},
		}
	}
	resp := map[string]any{"Count": n, "ScannedCount": n, "Items": items}
	if next {
		resp["LastEvaluatedKey"] = map[string]any{"PK": map[string]any{"S": "x"}}
	}
	b, err := json.MarshalIndent(resp, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestScanPageCountsItemsAndReadsCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		next bool
	}{{100, true}, {3, false}, {0, false}} {
		p, err := scanPage(queryResponse(t, tc.n, tc.next))
		if err != nil {
			t.Fatalf("n=%d: %v", tc.n, err)
		}
		if p.Count != tc.n || p.Items != tc.n || p.HasNext != tc.next {
			t.Errorf("n=%d next=%v: got %+v", tc.n, tc.next, p)
		}
	}
	// Count and the items are read independently.
	p, err := scanPage([]byte(`{"Items":[{"a":{"S":"1"}},{"a":{"S":"2"}}],"Count":7}`))
	if err != nil || p.Count != 7 || p.Items != 2 || p.HasNext {
		t.Errorf("got %+v, %v; want Count 7, 2 items, no next page", p, err)
	}
}

func TestScanPageRejectsMalformedBodies(t *testing.T) {
	full := string(queryResponse(t, 100, true))
	for name, body := range map[string]string{
		"truncated":         full[:len(full)/2],
		"unterminated str":  `{"Count":1,"Items":[{"a":{"S":"x}}]}`,
		"unbalanced":        `{"Count":1,"Items":[{"a":{"S":"x"}]]}`,
		"no Count":          `{"Items":[]}`,
		"Count not number":  `{"Count":"100","Items":[]}`,
		"two objects":       `{"Count":0}{"Count":0}`,
		"trailing garbage":  `{"Count":0} x`,
		"array, not object": `[{"Count":0}]`,
		"empty":             ``,
	} {
		if p, err := scanPage([]byte(body)); err == nil {
			t.Errorf("%s: accepted as %+v", name, p)
		} else if !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%s: error %v does not say malformed", name, err)
		}
	}
}

func TestAppendPutEdgeMatchesEdgeItem(t *testing.T) {
	var req struct {
		TableName           string
		ConditionExpression string
		Item                map[string]struct{ S string }
	}
	if err := json.Unmarshal(appendPutEdge(nil, 1234, 56), &req); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PK": "ACTOR#u00001234", "SK": "TARGET#t000056", "GSI1PK": "TARGET#t000056",
		"GSI1SK": "ACTOR#u00001234", "type": "follows", "since": "2026-11-30T11:00:00Z"}
	if req.TableName != putTable || req.ConditionExpression != "attribute_not_exists(PK)" || len(req.Item) != len(want) {
		t.Fatalf("got %+v", req)
	}
	for k, v := range want {
		if req.Item[k].S != v {
			t.Errorf("%s = %q, want %q", k, req.Item[k].S, v)
		}
	}
}
