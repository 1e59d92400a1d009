package schema

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// withTable replaces base's table line (line 2) by lines.
func withTable(lines string) string {
	return with("table: {name: school}\n", lines)
}

func TestParseTableSettings(t *testing.T) {
	src := withTable(`table:
  name: school
  ttl: expiresAt
  tags: {team: data, env: prod, "cost center": "42"}
  deletionProtection: true
  pointInTimeRecovery: false
`)
	s, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Table.Settings
	if st.TTL == nil || st.TTL.Attribute != "expiresAt" {
		t.Errorf("TTL = %+v, want expiresAt", st.TTL)
	}
	wantTags := []Tag{{"team", "data"}, {"env", "prod"}, {"cost center", "42"}}
	if !st.ManageTags || !reflect.DeepEqual(st.Tags, wantTags) {
		t.Errorf("tags = %v (managed %v), want %v in file order", st.Tags, st.ManageTags, wantTags)
	}
	if st.DeletionProtection == nil || !*st.DeletionProtection {
		t.Errorf("DeletionProtection = %v, want true", st.DeletionProtection)
	}
	if st.PointInTimeRecovery == nil || *st.PointInTimeRecovery {
		t.Errorf("PointInTimeRecovery = %v, want false", st.PointInTimeRecovery)
	}
	if !st.Managed() {
		t.Error("Managed() = false")
	}
}

func TestParseTableSettingsLeftOutAreUnmanaged(t *testing.T) {
	s, err := Parse("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Table.Settings; st.Managed() || st.TTL != nil || st.ManageTags || st.DeletionProtection != nil || st.PointInTimeRecovery != nil {
		t.Errorf("settings of a schema without any = %+v, want none managed", st)
	}
}

func TestParseTableSettingsOff(t *testing.T) {
	s, err := Parse("s.yaml", []byte(withTable("table: {name: school, ttl: false, tags: {}}\n")))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Table.Settings
	if st.TTL == nil || st.TTL.Attribute != "" {
		t.Errorf("ttl: false gave %+v, want TTL off (managed, no attribute)", st.TTL)
	}
	if !st.ManageTags || len(st.Tags) != 0 {
		t.Errorf("tags: {} gave %v (managed %v), want managed and empty", st.Tags, st.ManageTags)
	}
}

func TestParseTTLAttributeDeclaredAsNumber(t *testing.T) {
	src := withTable("table: {name: school, ttl: expiresAt}\n")
	src = strings.Replace(src, "attributes: {name: string}", "attributes: {name: string, expiresAt: number}", 1)
	if _, err := Parse("s.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
}

func TestParseTableSettingsErrors(t *testing.T) {
	long := strings.Repeat("k", 129)
	manyTags := make([]string, 51)
	for i := range manyTags {
		manyTags[i] = fmt.Sprintf("t%d: v", i)
	}
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"unknown setting", withTable("table: {name: school, timeToLive: x}\n"),
			[]string{`2:23: unknown field "timeToLive" in table; allowed fields: name, billing, capacity, keys, index, ttl, tags, deletionProtection, pointInTimeRecovery`}},
		{"ttl true", withTable("table: {name: school, ttl: true}\n"), []string{"2:28: ttl names the attribute"}},
		{"ttl list", withTable("table: {name: school, ttl: [a]}\n"), []string{"2:28: ttl must be a single value, not a list"}},
		{"ttl bad name", withTable("table: {name: school, ttl: expires.at}\n"), []string{`2:28: ttl attribute "expires.at" is not a valid attribute name`}},
		{"ttl key attribute", withTable("table: {name: school, ttl: PK}\n"), []string{`2:28: ttl attribute "PK" is one of adjl's key attributes`}},
		{"ttl declared as string", withTable("table: {name: school, ttl: name}\n"),
			[]string{`2:28: ttl attribute "name" is declared as string on entity student; DynamoDB expires items only by a number`}},
		{"deletion protection not bool", withTable("table: {name: school, deletionProtection: yes}\n"),
			[]string{`2:43: deletionProtection must be true or false, not "yes"`}},
		{"pitr not bool", withTable("table: {name: school, pointInTimeRecovery: 1}\n"),
			[]string{`2:44: pointInTimeRecovery must be true or false, not "1"`}},
		{"tags not a mapping", withTable("table: {name: school, tags: [a, b]}\n"), []string{"2:29: tags must be a mapping"}},
		{"tag reserved prefix", withTable("table: {name: school, tags: {\"aws:team\": x}}\n"), []string{`2:30: tag key "aws:team": the aws: prefix is reserved`}},
		{"tag key too long", withTable("table: {name: school, tags: {" + long + ": x}}\n"), []string{"2:30: tag key \"" + long + "\" is longer than 128 characters"}},
		{"tag bad character", withTable("table: {name: school, tags: {\"team!\": x}}\n"), []string{`2:30: tag key "team!" has a character DynamoDB refuses`}},
		{"tag value bad character", withTable("table: {name: school, tags: {team: \"a;b\"}}\n"), []string{`2:36: tag team: the value "a;b" has a character DynamoDB refuses`}},
		{"tag without value", withTable("table: {name: school, tags: {team: }}\n"), []string{"2:30: tag team has no value"}},
		{"too many tags", withTable("table: {name: school, tags: {" + strings.Join(manyTags, ", ") + "}}\n"), []string{"2:23: tags has 51 entries; a DynamoDB table holds at most 50"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src))
			wantErrors(t, err, tc.want...) // no error at all is 0 errors
		})
	}
}

func TestParseTTLCounterRefused(t *testing.T) {
	src := withTable("table: {name: school, ttl: courseCount}\n")
	src = strings.Replace(src, `edge: "ENROLL#"}`, `edge: "ENROLL#", counters: {from: courseCount}}`, 1)
	_, err := Parse("s.yaml", []byte(src))
	got := allErrors(err)
	if len(got) != 1 || got[0].Line != 2 || got[0].Col != 28 || !strings.Contains(got[0].Msg, `ttl attribute "courseCount" is a counter of relation "enrollment"`) {
		t.Fatalf("err = %v, want 2:28 naming the counter", err)
	}
}
