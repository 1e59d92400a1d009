package schema

import (
	"strings"
	"testing"
)

func requestsOf(t *testing.T, s *Schema, name string) (string, Capacity) {
	t.Helper()
	p := patternByName(t, s.AccessPatterns(), name)
	reqs := s.Requests(p)
	return RequestsText(reqs), CapacityOf(reqs)
}

// TestRequestsAndCapacity: each example's access patterns name the requests
// they send and what those cost, and every pattern has a kind and belongs to
// exactly one of a relation or an entity.
func TestRequestsAndCapacity(t *testing.T) {
	for example, patterns := range map[string]map[string]string{
		"school.yaml": {
			"student: get":                         "GetItem | 0.5 RCU",
			"enrollment: forward list":             "Query | 0.5 RCU",
			"enrollment: forward list with entity": "Query, GetItem | 1 RCU",
			"enrollment: reverse list":             "Query GSI1 | 0.5 RCU",
			"enrollment: reverse list with entity": "Query GSI1 | 0.5 RCU",
			"enrollment: check":                    "GetItem | 0.5 RCU",
			"enrollment: link":                     "TransactWriteItems (3 items) | 6 WCU + index writes",
			"enrollment: unlink":                   "TransactWriteItems (3 items) | 6 WCU + index writes",
		},
		"social.yaml": {
			"user: get":                               "GetItem | 0.5 RCU",
			"follow: reverse list":                    "4 × Query GSI1 | 2 RCU",
			"follow: reverse list with entity":        "4 × Query GSI1, GetItem, Query | 3 RCU",
			"follow: followerCount (sharded counter)": "GetItem, Query | 1 RCU",
			"follow: link":                            "TransactWriteItems (3 items) | 6 WCU + index writes",
		},
	} {
		s := loadExample(t, example)
		for name, want := range patterns {
			reqs, c := requestsOf(t, s, name)
			if got := reqs + " | " + c.String(); got != want {
				t.Errorf("%s: %s: %s, want %s", example, name, got, want)
			}
		}
		for _, p := range s.AccessPatterns() {
			if p.Kind == "" || (p.Relation == nil) == (p.Entity == nil) {
				t.Errorf("%s: pattern %s: kind %q, relation %v, entity %v: want a kind and one of relation or entity", example, p.Name, p.Kind, p.Relation, p.Entity)
			}
		}
	}
}

// TestReverseWithEntityNeedsGetItemUnlessProjectionAll: a KEYS_ONLY or
// INCLUDE index cannot return the whole to-side item, so it is read from the
// table with one GetItem more - and the pattern says so.
func TestReverseWithEntityNeedsGetItemUnlessProjectionAll(t *testing.T) {
	for proj, want := range map[string]string{"ALL": "Query GSI1", "KEYS_ONLY": "Query GSI1, GetItem"} {
		s, err := Parse("p.yaml", []byte(with("table: {name: school}", "table: {name: school, index: {projection: "+proj+"}}")))
		if err != nil {
			t.Fatal(err)
		}
		p := patternByName(t, s.AccessPatterns(), "enrollment: reverse list with entity")
		if got := RequestsText(s.Requests(p)); got != want {
			t.Errorf("%s: %s, want %s", proj, got, want)
		}
		if proj == "KEYS_ONLY" && (!strings.Contains(p.Notes, "GetItem PK = SK = CRS#<id>") || p.Filter != "") {
			t.Errorf("KEYS_ONLY notes %q filter %q", p.Notes, p.Filter)
		}
	}
}

func TestRequestsUnshardedGenericWrites(t *testing.T) {
	s, err := Parse("g.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if got, c := requestsOf(t, s, "enrollment: link"); got != "PutItem" || c.WriteUnits != 1 {
		t.Errorf("link without counters: %s %v", got, c)
	}
	if got, _ := requestsOf(t, s, "enrollment: unlink"); got != "DeleteItem" {
		t.Errorf("unlink without counters: %s", got)
	}
}
