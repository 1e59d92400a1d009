package cmd

import "testing"

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
