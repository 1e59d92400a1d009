package cmd

import (
	"strings"
	"testing"
)

// TestGetCSVHeaderIsTheEntitysColumns: get -o csv prints the same header for
// every item of an entity (key, type, declared attributes, counters), so
// rows of several gets line up; an unset attribute is an empty cell. A role
// item has only its counters.
func TestGetCSVHeaderIsTheEntitysColumns(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("put", "student", "a91", "--set", "name=Ana")
	s.ok("put", "student", "b22")
	s.ok("enroll", "a91", "math204")
	for key, want := range map[string]string{
		"STU#a91": "key,type,name,email,courseCount\nSTU#a91,student,Ana,,1\n",
		"STU#b22": "key,type,name,email,courseCount\nSTU#b22,student,,,\n",
	} {
		if got := s.ok("-o", "csv", "get", key); got != want {
			t.Errorf("get %s -o csv = %q, want %q", key, got, want)
		}
	}
	// Other formats print what the item holds.
	if got, want := s.ok("-o", "json", "get", "STU#b22"), "{\n  \"key\": \"STU#b22\",\n  \"type\": \"student\"\n}\n"; got != want {
		t.Errorf("get -o json = %q, want %q", got, want)
	}

	social := newSession(t, "social.yaml")
	social.ok("table", "create")
	social.ok("follow", "alice", "bob")
	if got, want := social.ok("-o", "csv", "get", "ACTOR#alice"), "key,type,followingCount\nACTOR#alice,user,1\n"; got != want {
		t.Errorf("role item: get -o csv = %q, want %q", got, want)
	}
}

// TestGetShowsTheEntityWhole: an entity key shows the counts kept on its
// role items with its own attributes, in every format; a bare id is taken
// where one entity fits, or with --entity, and refused with a hint where
// several could.
func TestGetShowsTheEntityWhole(t *testing.T) {
	social := newSession(t, "social.yaml")
	social.ok("table", "create")
	social.ok("put", "user", "taylor", "--set", "name=Taylor", "--set", "joined=2026-01-02")
	social.ok("follow", "alice", "taylor")
	social.ok("follow", "bob", "taylor")
	social.ok("follow", "taylor", "alice")
	want := "{\n  \"key\": \"USER#taylor\",\n  \"type\": \"user\",\n  \"name\": \"Taylor\",\n  \"joined\": \"2026-01-02\",\n  \"followerCount\": 2,\n  \"followingCount\": 1\n}\n"
	for _, args := range [][]string{{"get", "USER#taylor"}, {"get", "taylor"}, {"get", "taylor", "--entity", "user"}} {
		if got := social.ok(append([]string{"-o", "json"}, args...)...); got != want {
			t.Errorf("%v -o json:\n got %s\nwant %s", args, got, want)
		}
	}
	if got := social.ok("-o", "csv", "get", "USER#alice"); got != "key,type,name,joined,tags,followerCount,followingCount\nUSER#alice,user,,,,1,1\n" {
		t.Errorf("a user never put, -o csv: %q", got)
	}
	if got := social.ok("get", "USER#taylor"); !strings.Contains(got, "followerCount") || !strings.Contains(got, "followingCount") {
		t.Errorf("table output:\n%s", got)
	}

	school := newSession(t, "school.yaml")
	school.ok("table", "create")
	school.ok("put", "student", "a91", "--set", "name=Ana")
	r := school.expect(ExitUsage, "get", "a91")
	if !strings.Contains(r.err, "STU#a91 or CRS#a91") || !strings.Contains(r.err, "--entity student|course") {
		t.Errorf("a bare id of two entities: %s", r.err)
	}
	if got := school.ok("-o", "csv", "get", "a91", "--entity", "student"); got != "key,type,name,email,courseCount\nSTU#a91,student,Ana,,\n" {
		t.Errorf("--entity student: %q", got)
	}
}
