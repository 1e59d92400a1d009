package schema

import (
	"strings"
	"testing"
)

func patternByName(t *testing.T, ps []Pattern, name string) Pattern {
	t.Helper()
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pattern %q", name)
	return Pattern{}
}

func TestAccessPatternsSchool(t *testing.T) {
	ps := loadExample(t, "school.yaml").AccessPatterns()
	if len(ps) != 2+7 {
		t.Errorf("%d patterns, want 9 (2 entity gets + 7 per relation)", len(ps))
	}
	want := []Pattern{
		{Name: "student: get", Command: "adjl get STU#<id>", Operation: "GetItem", KeyCondition: "PK = STU#<id>, SK = STU#<id>"},
		{Name: "enrollment: forward list", Command: "adjl courses STU#<id>", Operation: "Query",
			KeyCondition: `PK = STU#<id> AND begins_with(SK, "ENROLL#CRS#")`},
		{Name: "enrollment: forward list with entity", Command: "adjl courses STU#<id> --with-entity", Operation: "Query",
			KeyCondition: `PK = STU#<id> AND begins_with(SK, "ENROLL#CRS#")`},
		{Name: "enrollment: reverse list", Command: "adjl members CRS#<id>", Operation: "Query", Index: "GSI1",
			KeyCondition: `GSI1PK = CRS#<id> AND begins_with(GSI1SK, "STU#")`},
		{Name: "enrollment: reverse list with entity", Command: "adjl members CRS#<id> --with-entity", Operation: "Query", Index: "GSI1",
			KeyCondition: "GSI1PK = CRS#<id>", Filter: `type IN ("course", "enrollment")`},
		{Name: "enrollment: check", Command: "adjl enrolled STU#<id> CRS#<id>", Operation: "GetItem",
			KeyCondition: "PK = STU#<id>, SK = ENROLL#CRS#<id>"},
		{Name: "enrollment: link", Command: "adjl enroll STU#<id> CRS#<id>", Operation: "TransactWriteItems",
			KeyCondition: "PK = STU#<id>, SK = ENROLL#CRS#<id>"},
		{Name: "enrollment: unlink", Command: "adjl unenroll STU#<id> CRS#<id>", Operation: "TransactWriteItems",
			KeyCondition: "PK = STU#<id>, SK = ENROLL#CRS#<id>"},
	}
	for _, w := range want {
		got := patternByName(t, ps, w.Name)
		got.Notes, got.Kind, got.Relation, got.Entity = "", "", nil, nil
		if got != w {
			t.Errorf("pattern %s =\n %+v\nwant\n %+v", w.Name, got, w)
		}
	}
	link := patternByName(t, ps, "enrollment: link")
	for _, frag := range []string{"attribute_not_exists(PK)", "ADD courseCount 1 on STU#<id>", "ADD studentCount 1 on CRS#<id>"} {
		if !strings.Contains(link.Notes, frag) {
			t.Errorf("link notes %q lack %q", link.Notes, frag)
		}
	}
	unlink := patternByName(t, ps, "enrollment: unlink")
	if !strings.Contains(unlink.Notes, "ADD courseCount -1") || !strings.Contains(unlink.Notes, "Delete edge with attribute_exists(PK)") {
		t.Errorf("unlink notes %q", unlink.Notes)
	}
	for _, p := range ps {
		if p.Operation == "Scan" {
			t.Errorf("pattern %s is a Scan", p.Name)
		}
	}
}

func TestAccessPatternsShardedAndGeneric(t *testing.T) {
	ps := loadExample(t, "social.yaml").AccessPatterns()
	rev := patternByName(t, ps, "follow: reverse list")
	if rev.KeyCondition != `GSI1PK = TARGET#<id>#k AND begins_with(GSI1SK, "ACTOR#"), for k = 0..3` {
		t.Errorf("sharded reverse key = %q", rev.KeyCondition)
	}
	if !strings.Contains(rev.Notes, "4 Queries in parallel") || !strings.Contains(rev.Notes, "merged in GSI1SK order") {
		t.Errorf("sharded reverse notes = %q", rev.Notes)
	}
	fwd := patternByName(t, ps, "follow: forward list")
	if fwd.KeyCondition != `PK = ACTOR#<id> AND begins_with(SK, "TARGET#")` || fwd.Command != "adjl following ACTOR#<id>" {
		t.Errorf("forward = %+v", fwd)
	}

	src := withRelations(`  enrollment: {from: student, to: course, edge: "ENROLL#"}
`)
	s, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ps = s.AccessPatterns()
	for name, want := range map[string][2]string{
		"enrollment: forward list": {"adjl list enrollment STU#<id>", "Query"},
		"enrollment: reverse list": {"adjl list enrollment CRS#<id> --reverse", "Query"},
		"enrollment: check":        {"adjl check enrollment STU#<id> CRS#<id>", "GetItem"},
		"enrollment: link":         {"adjl link enrollment STU#<id> CRS#<id>", "PutItem"},
		"enrollment: unlink":       {"adjl unlink enrollment STU#<id> CRS#<id>", "DeleteItem"},
	} {
		p := patternByName(t, ps, name)
		if p.Command != want[0] || p.Operation != want[1] {
			t.Errorf("%s = %q %s, want %q %s", name, p.Command, p.Operation, want[0], want[1])
		}
	}
}
