package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveKey(t *testing.T) {
	social := loadExample(t, "social.yaml")
	school := loadExample(t, "school.yaml")
	cases := []struct {
		s      *Schema
		key    string
		entity string
		prefix string
		reason string
	}{
		{school, "STU#a91", "student", "STU#", ""},
		{school, "CRS#math204", "course", "CRS#", ""},
		{social, "USER#alice", "user", "USER#", ""},
		{social, "TARGET#bob", "user", "TARGET#", ""},
		{social, "ACTOR#alice", "user", "ACTOR#", ""},
		{school, "a91", "", "", "no prefix"},
		{school, "LAB#x", "", "", `unknown prefix "LAB#"`},
		{school, "STU#", "", "", "empty id"},
		{school, "ADJL#meta", "", "", `unknown prefix "ADJL#"`},
		{school, "STU#" + strings.Repeat("x", MaxSortKeyBytes), "", "", "over the 1024-byte limit"},
	}
	for _, tc := range cases {
		e, p, err := tc.s.ResolveKey(tc.key)
		if tc.reason != "" {
			var ke *KeyError
			if !errors.As(err, &ke) || !strings.Contains(ke.Reason, tc.reason) {
				t.Errorf("ResolveKey(%.20q) err = %v, want reason %q", tc.key, err, tc.reason)
			}
			if tc.reason == "no prefix" && !strings.Contains(ke.Want, "STU# CRS#") {
				t.Errorf("Want = %q should list the prefixes", ke.Want)
			}
			continue
		}
		if err != nil || e.Name != tc.entity || p != tc.prefix {
			t.Errorf("ResolveKey(%q) = %v %q %v, want %s %s", tc.key, e, p, err, tc.entity, tc.prefix)
		}
	}
}

func TestSides(t *testing.T) {
	social := loadExample(t, "social.yaml")
	user := social.Entity("user")
	got := social.Sides(user)
	follow := social.Relation("follow")
	want := []SideRef{{follow, FromEnd, "ACTOR#"}, {follow, ToEnd, "TARGET#"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Sides(user) = %+v, want %+v", got, want)
	}
	school := loadExample(t, "school.yaml")
	enr := school.Relation("enrollment")
	if got := school.Sides(school.Entity("course")); len(got) != 1 || got[0] != (SideRef{enr, ToEnd, "CRS#"}) {
		t.Errorf("Sides(course) = %+v", got)
	}
	s, err := Parse("l.yaml", []byte(strings.Replace(base, "entities:\n", "entities:\n  lab: {prefix: \"LAB#\"}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sides(s.Entity("lab")); len(got) != 0 {
		t.Errorf("Sides(lab) = %+v, want none", got)
	}
}

func TestRelationByVerb(t *testing.T) {
	s := loadExample(t, "school.yaml")
	enr := s.Relation("enrollment")
	for verb, kind := range map[string]VerbKind{
		"enroll": VerbLink, "unenroll": VerbUnlink, "enrolled": VerbCheck, "courses": VerbForward, "members": VerbReverse,
	} {
		r, k := s.RelationByVerb(verb)
		if r != enr || k != kind {
			t.Errorf("RelationByVerb(%s) = %v %q, want enrollment %q", verb, r, k, kind)
		}
		if enr.Verbs.Get(kind) != verb {
			t.Errorf("Verbs.Get(%s) = %q", kind, enr.Verbs.Get(kind))
		}
	}
	for _, verb := range []string{"", "link", "enrollment", "follow"} {
		if r, k := s.RelationByVerb(verb); r != nil || k != "" {
			t.Errorf("RelationByVerb(%q) = %v %q, want nil", verb, r, k)
		}
	}
	if s.Entity("nope") != nil || s.Relation("nope") != nil {
		t.Error("lookup of unknown names must return nil")
	}
}

func TestBuiltinCommandsAreRefusedAsVerbs(t *testing.T) {
	for _, cmd := range BuiltinCommands {
		src := strings.Replace(base, `edge: "ENROLL#"`, `edge: "ENROLL#", verbs: {forward: `+cmd+`}`, 1)
		_, err := Parse("s.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "collides with the built-in command") {
			t.Errorf("verb %q: err = %v", cmd, err)
		}
	}
}
