package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/adjl/adjl/schema"
)

// TestSchoolSchema: the bulk benchmark's schema is the school example under
// the benchmark's table name, with the enrollment relation, its enroll verb
// and grade attribute the runs use, and counters only when asked for.
func TestSchoolSchema(t *testing.T) {
	for _, counters := range []bool{true, false} {
		s, err := schema.Parse("bulk.yaml", []byte(schoolSchema("bulk_t", counters)))
		if err != nil {
			t.Fatalf("counters %t: %v", counters, err)
		}
		if s.Table.Name != "bulk_t" {
			t.Errorf("counters %t: table %q, want bulk_t", counters, s.Table.Name)
		}
		r := s.Relation("enrollment")
		if r == nil || r.Verbs.Link != "enroll" || !slices.ContainsFunc(r.Attributes, func(a schema.Attribute) bool { return a.Name == "grade" }) {
			t.Fatalf("counters %t: relation %+v", counters, r)
		}
		want := [2]string{}
		if counters {
			want = [2]string{"courseCount", "studentCount"}
		}
		if got := [2]string{r.Counters.From, r.Counters.To}; got != want {
			t.Errorf("counters %t: %q, want %q", counters, got, want)
		}
	}
}

// An import's -o json report, decoded as runAdjl decodes it.
func importReport(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(`{"edges":10000,"counters":525,"phases":{"check":0.012,"write":0.104,"counters":0.03},
		"requests":{"BatchWriteItem":405,"BatchGetItem":6,"Query":2,"Scan":1,"TransactWriteItems":6}}`), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRequestsOf: an -o json report's requests, sorted by name with their
// total; a run that printed no report says so rather than "0 requests".
func TestRequestsOf(t *testing.T) {
	if got, want := requestsOf(importReport(t)), "420 requests (6 BatchGetItem, 405 BatchWriteItem, 2 Query, 1 Scan, 6 TransactWriteItems)"; got != want {
		t.Errorf("report: %q, want %q", got, want)
	}
	for _, out := range []map[string]any{nil, {}, {"requests": "?"}} {
		if got, want := requestsOf(out), "requests not reported (no -o json report)"; got != want {
			t.Errorf("%v: %q, want %q", out, got, want)
		}
	}
}

// TestImportRequests: the HTTP import's figure lists its requests and
// phases beside the raw loop's BatchWriteItem calls, and without a report
// still names the loop's.
func TestImportRequests(t *testing.T) {
	if got, want := importRequests(importReport(t), 400),
		"420 requests (6 BatchGetItem, 405 BatchWriteItem, 2 Query, 1 Scan, 6 TransactWriteItems) against the loop's 400 BatchWriteItem; phases: check 0.0s, write 0.1s, counters 0.0s"; got != want {
		t.Errorf("report:\n got  %q\n want %q", got, want)
	}
	if got, want := importRequests(nil, 1_000), "requests not reported (no -o json report); the loop's 1,000 BatchWriteItem"; got != want {
		t.Errorf("no report:\n got  %q\n want %q", got, want)
	}
}
