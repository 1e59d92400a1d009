package schema

import (
	"strings"
	"testing"
)

// sortBase is base with an edge attribute of each kind; cases give the
// relation (line 7) a sort block.
func sortSchema(sort string) string {
	return withRelations(`  enrollment: {from: student, to: course, edge: "ENROLL#", attributes: {on: date, at: datetime, score: number, tags: strings, note: string}, sort: ` + sort + "}\n")
}

func TestParseSort(t *testing.T) {
	s, err := Parse("s.yaml", []byte(sortSchema("{by: on, default: now, order: desc, index: multi-attribute, forward: true}")))
	if err != nil {
		t.Fatal(err)
	}
	got := *s.Relations[0].Sort
	want := Sort{By: "on", Kind: KindDate, DefaultNow: true, Desc: true, Index: SortMultiAttribute, Forward: true}
	if got != want {
		t.Fatalf("sort = %+v, want %+v", got, want)
	}
	s, err = Parse("s.yaml", []byte(sortSchema("{by: score}")))
	if err != nil {
		t.Fatal(err)
	}
	if got := *s.Relations[0].Sort; got != (Sort{By: "score", Kind: KindNumber, Index: SortComposite}) {
		t.Fatalf("defaults: %+v", got)
	}
}

func TestParseSortErrors(t *testing.T) {
	cases := []struct{ name, sort, want string }{
		{"unknown attribute", "{by: when}", `7:153: relation "enrollment" sort: by: "when" is not an attribute of the relation; declare it`},
		{"not sortable", "{by: tags}", `7:153: relation "enrollment" sort: by: "tags" is a set of strings, which has no order a key can keep`},
		{"missing by", "{order: desc}", `7:148: relation "enrollment" sort is missing the required field "by"`},
		{"default on a number", "{by: score, default: now}", `7:169: relation "enrollment" sort: default: now needs a date, datetime or string attribute, and "score" is a number`},
		{"default other", "{by: on, default: today}", `7:166: relation "enrollment" sort: default "today" is not supported; write default: now`},
		{"bad order", "{by: on, order: newest}", `7:164: relation "enrollment" sort: order "newest" is neither asc nor desc`},
		{"bad index", "{by: on, index: lsi}", `7:164: relation "enrollment" sort: index "lsi" is unknown; use composite`},
		{"multi-attribute datetime", "{by: at, index: multi-attribute}", `7:164: relation "enrollment" sort: index: multi-attribute sorts "at" as the text it is stored as`},
		{"forward not bool", "{by: on, forward: yes}", `7:166: relation "enrollment" sort forward must be true or false`},
		{"unknown field", "{by: on, limit: 3}", `7:157: unknown field "limit" in relation "enrollment" sort; allowed fields: by, default, order, index, forward`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(sortSchema(c.sort)))
			wantErrors(t, err, c.want)
		})
	}
}

func TestParseSortNeedsGenericLayout(t *testing.T) {
	src := strings.Replace(sortSchema("{by: on}"), "table: {name: school}", "table: {name: school, keys: {pk: pk, sk: sk}, index: {layout: inverted}}", 1)
	_, err := Parse("s.yaml", []byte(src))
	wantErrors(t, err, `7:142: relation "enrollment": sort needs the generic index layout`)
}

func TestParseSortKeyTypeAgreesEverywhere(t *testing.T) {
	src := strings.Replace(sortSchema("{by: score, index: multi-attribute}"), `student: {prefix: "STU#", attributes: {name: string}}`, `student: {prefix: "STU#", attributes: {name: string, score: string}}`, 1)
	_, err := Parse("s.yaml", []byte(src))
	wantErrors(t, err, `4:56: entity "student": attribute "score" is a string, but the multi-attribute index GSI1-by-score keys on "score" as a number`)
}
