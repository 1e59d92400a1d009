package main

import (
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
