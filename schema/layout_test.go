package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// schoolIn is the school example with the given table block.
func schoolIn(table string) string {
	return `version: 1
table: ` + table + `
entities:
  student: {prefix: "STU#", attributes: {name: string}}
  course: {prefix: "CRS#"}
relations:
  enrollment: {from: student, to: course, edge: "ENROLL#", counters: {from: courseCount, to: studentCount}}
`
}

func mustParse(t *testing.T, src string) *Schema {
	t.Helper()
	s, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLayoutFromSchema(t *testing.T) {
	cases := []struct {
		table string
		want  Layout
		names []string // KeyNames
	}{
		{"{name: school}", DefaultLayout, []string{"PK", "SK", "GSI1PK", "GSI1SK"}},
		{"{name: school, keys: {pk: pk, sk: sk}, index: {name: gsi1, keys: {pk: gsi1pk, sk: gsi1sk}}}",
			Layout{Kind: LayoutGeneric, PK: "pk", SK: "sk", IndexPK: "gsi1pk", IndexSK: "gsi1sk", Type: "type"},
			[]string{"pk", "sk", "gsi1pk", "gsi1sk"}},
		{"{name: school, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}",
			Layout{Kind: LayoutInverted, PK: "pk", SK: "sk", IndexPK: "sk", IndexSK: "pk"},
			[]string{"pk", "sk"}},
		{"{name: school, index: {layout: INVERTED}}",
			Layout{Kind: LayoutInverted, PK: "PK", SK: "SK", IndexPK: "SK", IndexSK: "PK"},
			[]string{"PK", "SK"}},
		{"{name: school, index: {layout: generic}}", DefaultLayout, []string{"PK", "SK", "GSI1PK", "GSI1SK"}},
	}
	for _, c := range cases {
		s := mustParse(t, schoolIn(c.table))
		if got := s.Layout(); got != c.want {
			t.Errorf("%s: layout %+v, want %+v", c.table, got, c.want)
		}
		if got := s.Layout().KeyNames(); !slices.Equal(got, c.names) {
			t.Errorf("%s: key names %v, want %v", c.table, got, c.names)
		}
	}
	if got := (&Schema{}).Layout(); got != DefaultLayout {
		t.Errorf("hand-built schema layout %+v, want the default", got)
	}
}

// TestInvertedKeys: an edge is indexed under its own sort key and carries
// nothing but the table keys; entity items are indexed under their key.
func TestInvertedKeys(t *testing.T) {
	s := mustParse(t, schoolIn("{name: school, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}"))
	l, r := s.Layout(), s.Relation("enrollment")
	k := l.EdgeKeys(r, "STU#a91", "CRS#math204")
	if want := (Keys{PK: "STU#a91", SK: "ENROLL#CRS#math204", IndexPK: "ENROLL#CRS#math204", IndexSK: "STU#a91"}); k != want {
		t.Errorf("EdgeKeys = %+v, want %+v", k, want)
	}
	if kv := fmt.Sprint(l.KeyValues(k)); kv != "[{pk STU#a91} {sk ENROLL#CRS#math204}]" {
		t.Errorf("KeyValues = %s, want the table keys only", kv)
	}
	if ps := l.ReversePartitions(r, "CRS#math204"); !slices.Equal(ps, []string{"ENROLL#CRS#math204"}) {
		t.Errorf("ReversePartitions = %v", ps)
	}
	if l.ReverseHoldsEntity(r) {
		t.Error("the ENROLL# partition cannot hold the course item")
	}
	if got := fmt.Sprint(l.Reserved()); got != "[pk sk]" {
		t.Errorf("Reserved = %s, want the keys and no type attribute", got)
	}
	if l.Stamps() || l.WritesIndexKeys() {
		t.Error("the inverted layout writes no stamps and no index keys")
	}
	if got := fmt.Sprint(l.CursorKeys(true)); got != "[sk pk]" {
		t.Errorf("index cursor keys = %s", got)
	}

	social := mustParse(t, `version: 1
table: {name: social, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}
entities:
  user: {prefix: "USER#"}
relations:
  follow: {from: {entity: user, prefix: "ACTOR#"}, to: {entity: user, prefix: "TARGET#"}, edge: "", counters: {to: followerCount}}
`)
	fl, f := social.Layout(), social.Relation("follow")
	if !fl.ReverseHoldsEntity(f) {
		t.Error("with no edge prefix the TARGET# partition holds the target item")
	}
	if got := fl.ReversePartitions(f, "TARGET#bob"); !slices.Equal(got, []string{"TARGET#bob"}) {
		t.Errorf("ReversePartitions = %v", got)
	}
}

func TestGenericKeysRenamed(t *testing.T) {
	s := mustParse(t, schoolIn("{name: school, keys: {pk: pk, sk: sk}, index: {name: gsi1, keys: {pk: gsi1pk, sk: gsi1sk}}}"))
	l := s.Layout()
	k := l.EdgeKeys(s.Relation("enrollment"), "STU#a91", "CRS#math204")
	if kv := fmt.Sprint(l.KeyValues(k)); kv != "[{pk STU#a91} {sk ENROLL#CRS#math204} {gsi1pk CRS#math204} {gsi1sk STU#a91}]" {
		t.Errorf("KeyValues = %s", kv)
	}
	if got := fmt.Sprint(l.Reserved()); got != "[pk sk gsi1pk gsi1sk type]" {
		t.Errorf("Reserved = %s", got)
	}
}

func TestLayoutErrors(t *testing.T) {
	inverted := "{name: school, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}"
	cases := []struct {
		name, src string
		want      []string // "line:col: message fragment"
	}{
		{"shards in the inverted layout", strings.Replace(schoolIn(inverted), `counters:`, `shards: 4, counters:`, 1),
			[]string{`7:68: relation "enrollment": shards: 4 needs the generic index layout: the inverted layout's index partition key is the edge's own sort key`}},
		{"counter shards in the inverted layout", strings.Replace(schoolIn(inverted), `to: studentCount`, `to: {name: studentCount, shards: 8}`, 1),
			[]string{`7:123: relation "enrollment": counter shards: 8 needs the generic index layout`}},
		{"index keys in the inverted layout", schoolIn("{name: sx1, index: {layout: inverted, keys: {pk: a, sk: b}}}"),
			[]string{`2:46: index keys: the inverted layout's index is keyed on the table's own keys (partition SK, sort PK); remove keys`}},
		{"unknown layout", schoolIn("{name: sx1, index: {layout: swapped}}"),
			[]string{`2:36: unknown index layout "swapped"; use generic`}},
		{"same table keys", schoolIn("{name: sx1, keys: {pk: id, sk: id}}"),
			[]string{`2:20: table keys: pk and sk are both "id"`}},
		{"swapped keys written as generic", schoolIn("{name: sx1, keys: {pk: pk, sk: sk}, index: {keys: {pk: sk, sk: pk}}}"),
			[]string{`2:52: index keys {pk: sk, sk: pk} are the table's keys swapped: that is layout: inverted`}},
		{"index sharing a table key", schoolIn("{name: sx1, keys: {pk: pk, sk: sk}, index: {keys: {pk: sk, sk: data}}}"),
			[]string{`2:52: index keys {pk: sk, sk: data} share an attribute with the table keys (pk, sk)`}},
		{"key name with a dot", schoolIn("{name: sx1, keys: {pk: a.b, sk: sk}}"),
			[]string{`2:31: table keys: pk "a.b" is not an attribute name adjl can use`}},
		{"missing sort key name", schoolIn("{name: sx1, keys: {pk: pk}}"),
			[]string{`2:26: table keys is missing the required field "sk"`}},
		{"type as a key in the generic layout", schoolIn("{name: sx1, keys: {pk: type, sk: sk}}"),
			[]string{`2:20: table keys: "type" is the attribute where the generic layout records`}},
		{"attribute named like a renamed key", strings.Replace(schoolIn("{name: sx1, keys: {pk: pk, sk: sk}}"), "{name: string}", "{pk: string}", 1),
			[]string{`4:42: entity "student": "pk" is a key attribute adjl manages (pk sk GSI1PK GSI1SK type are reserved)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src))
			wantErrors(t, err, tc.want...) // no error at all is 0 errors
		})
	}
}

// TestLayoutFreesNames: what a layout does not name is the user's: the
// default key names once the keys are renamed, and "type" in the inverted
// layout, which records no type.
func TestLayoutFreesNames(t *testing.T) {
	for _, table := range []string{
		"{name: sx1, keys: {pk: pk, sk: sk}, index: {layout: inverted}}",
	} {
		src := strings.Replace(schoolIn(table), "{name: string}", "{name: string, type: string, PK: string, GSI1PK: string}", 1)
		s := mustParse(t, src)
		if got := len(s.Entity("student").Attributes); got != 4 {
			t.Errorf("%s: %d attributes, want 4", table, got)
		}
	}
}

// TestInvertedPartitions: in the inverted layout edges are indexed under
// their own sort key, so two relations into one entity with different edge
// prefixes never share an index partition, where the generic layout's
// reverse reads could not tell them apart.
func TestInvertedPartitions(t *testing.T) {
	rels := func(table string) string {
		return `version: 1
table: ` + table + `
entities:
  student: {prefix: "STU#"}
  course: {prefix: "CRS#"}
relations:
  enrollment: {from: student, to: course, edge: "ENROLL#"}
  waitlist: {from: student, to: course, edge: "WAIT#"}
`
	}
	if _, err := Parse("s.yaml", []byte(rels("{name: sx1, index: {layout: inverted}}"))); err != nil {
		t.Errorf("inverted: %v", err)
	}
	_, err := Parse("s.yaml", []byte(rels("{name: s1}")))
	if err == nil || !strings.Contains(err.Error(), `relation "waitlist": its edges are indexed in CRS# partitions under "STU#", like those of relation "enrollment"`) {
		t.Errorf("generic: %v", err)
	}
}

func TestInvertedPatterns(t *testing.T) {
	s := mustParse(t, schoolIn("{name: school, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}"))
	byName := map[string]Pattern{}
	for _, p := range s.AccessPatterns() {
		byName[p.Name] = p
	}
	for name, want := range map[string][2]string{
		"student: get":                         {"pk = STU#<id>, sk = STU#<id>", ""},
		"enrollment: forward list":             {`pk = STU#<id> AND begins_with(sk, "ENROLL#CRS#")`, ""},
		"enrollment: forward list with entity": {`pk = STU#<id> AND begins_with(sk, "ENROLL#CRS#")`, ""},
		"enrollment: reverse list":             {`sk = ENROLL#CRS#<id> AND begins_with(pk, "STU#")`, ""},
		"enrollment: reverse list with entity": {`sk = ENROLL#CRS#<id> AND begins_with(pk, "STU#")`, ""},
		"enrollment: check":                    {"pk = STU#<id>, sk = ENROLL#CRS#<id>", ""},
	} {
		p, ok := byName[name]
		if !ok {
			t.Errorf("no pattern %q", name)
			continue
		}
		if p.KeyCondition != want[0] || p.Filter != want[1] {
			t.Errorf("%s: key %q filter %q, want %q %q", name, p.KeyCondition, p.Filter, want[0], want[1])
		}
	}
	// The course item is indexed under its own key, not the edges' ENROLL#
	// partition: a reverse list with it is the Query plus one GetItem.
	if got := RequestsText(s.Requests(byName["enrollment: reverse list with entity"])); got != "Query inverted, GetItem" {
		t.Errorf("reverse with entity sends %s", got)
	}
	if n := byName["enrollment: link"].Notes; !strings.Contains(n, "attribute_not_exists(pk)") {
		t.Errorf("link notes %q", n)
	}
}

func TestRecognizeLayout(t *testing.T) {
	cases := []struct {
		pk, sk, ipk, isk string
		want             LayoutKind
		ok               bool
	}{
		{"PK", "SK", "GSI1PK", "GSI1SK", LayoutGeneric, true},
		{"pk", "sk", "sk", "pk", LayoutInverted, true},
		{"pk", "sk", "sk", "data", "", false},
		{"pk", "", "gsi1pk", "gsi1sk", "", false},
		{"pk", "sk", "gsi1pk", "", "", false},
	}
	for _, c := range cases {
		l, ok := RecognizeLayout(c.pk, c.sk, c.ipk, c.isk)
		if ok != c.ok || l.Kind != c.want {
			t.Errorf("RecognizeLayout(%s, %s, %s, %s) = %v %v, want %v %v", c.pk, c.sk, c.ipk, c.isk, l.Kind, ok, c.want, c.ok)
		}
	}
}
