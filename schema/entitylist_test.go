package schema

import (
	"strings"
	"testing"
)

// twoFromStudent has two relations from student, membership's edges (AA#)
// sorting before enrollment's (ENROLL#) and the STU# items after both, and
// wishlist's edges into course from club.
const twoFromStudent = `version: 1
table: {name: two}
entities:
  student: {prefix: "STU#", attributes: {name: string}}
  course: {prefix: "CRS#", attributes: {title: string}}
  club: {prefix: "CLB#", attributes: {title: string}}
  team: {prefix: "AAA#", attributes: {title: string}}
  league: {prefix: "LG#", attributes: {title: string}}
relations:
  enrollment: {from: student, to: course, edge: "ENROLL#"}
  membership: {from: student, to: club, edge: "AA#"}
  wishlist: {from: club, to: course, edge: "WISH#"}
  coaching: {from: team, to: league, edge: "ZZ#"}
`

// TestEntityGetReason: the list Query brings the side's item only when the
// partition holds nothing but it and the relation's edges, and the item is
// read first; anything else makes it one GetItem more.
func TestEntityGetReason(t *testing.T) {
	s := mustParse(t, twoFromStudent)
	for _, c := range []struct {
		rel           string
		reverse, desc bool
		want          string // fragment of the reason; "" for the one Query
	}{
		{"enrollment", false, false, "membership's edges (AA#CLB#)"},
		{"enrollment", false, true, "membership's edges"},
		{"membership", false, false, "enrollment's edges (ENROLL#CRS#)"},
		{"enrollment", true, false, "wishlist's edges (CLB#)"},
		{"wishlist", true, true, "enrollment's edges (STU#)"},
		// club's index partition holds only membership's edges, keyed STU#...
		{"membership", true, false, ""},
		{"membership", true, true, "the CLB# item sorts before the edges"},
		// team's partition holds only coaching's edges (ZZ#LG#), after AAA#;
		// league's index partition its edges keyed AAA#, before LG#.
		{"coaching", false, false, ""},
		{"coaching", false, true, "the AAA# item sorts before the edges"},
		{"coaching", true, false, "the LG# item sorts after the edges"},
		{"coaching", true, true, ""},
	} {
		r := s.Relation(c.rel)
		got := s.EntityGetReason(r, c.reverse, c.desc)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s reverse=%v desc=%v: %q, want %q", c.rel, c.reverse, c.desc, got, c.want)
		}
	}
	p := patternByName(t, s.AccessPatterns(), "enrollment: forward list with entity")
	if got := RequestsText(s.Requests(p)); got != "Query, GetItem" || p.Filter != "" || !strings.Contains(p.KeyCondition, "begins_with") {
		t.Errorf("enrollment forward with entity: %s, %+v", got, p)
	}
	p = patternByName(t, s.AccessPatterns(), "coaching: forward list with entity")
	if got := RequestsText(s.Requests(p)); got != "Query" || p.Filter == "" || !strings.Contains(p.Notes, "with --desc the list Query plus the GetItem") {
		t.Errorf("coaching forward with entity: %s, %+v", got, p)
	}
}
