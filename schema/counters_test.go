package schema

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseCounterShards(t *testing.T) {
	cases := []struct {
		name     string
		counters string
		want     Counters
	}{
		{"plain strings are one shard", `{from: courseCount, to: studentCount}`,
			Counters{From: "courseCount", To: "studentCount", FromShards: 1, ToShards: 1}},
		{"sharded to side", `{from: courseCount, to: {name: studentCount, shards: 8}}`,
			Counters{From: "courseCount", To: "studentCount", FromShards: 1, ToShards: 8}},
		{"both sides, block of one", `{from: {name: courseCount, shards: 64}, to: {name: studentCount, shards: 1}}`,
			Counters{From: "courseCount", To: "studentCount", FromShards: 64, ToShards: 1}},
		{"mapping without shards", `{to: {name: studentCount}}`,
			Counters{To: "studentCount", FromShards: 1, ToShards: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(with(`edge: "ENROLL#"`, `edge: "ENROLL#", counters: `+tc.counters)))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Relation("enrollment").Counters; got != tc.want {
				t.Errorf("counters = %+v, want %+v", got, tc.want)
			}
		})
	}
	// No counters at all: the defaults still say one shard per side.
	s, err := Parse("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Relation("enrollment").Counters; got != (Counters{FromShards: 1, ToShards: 1}) {
		t.Errorf("default counters = %+v", got)
	}
}

func TestParseCounterShardErrors(t *testing.T) {
	// Line 7 is `  enrollment: {from: student, to: course, edge: "ENROLL#", counters: ...}`;
	// columns were counted on that line.
	cases := []struct {
		name, counters, want string
	}{
		{"zero shards", `{to: {name: n, shards: 0}}`,
			`7:93: relation "enrollment": counter shards must be between 1 and 64, not 0`},
		{"too many shards", `{from: {name: n, shards: 65}}`,
			`7:95: relation "enrollment": counter shards must be between 1 and 64, not 65`},
		{"shards not a number", `{to: {name: n, shards: many}}`,
			`7:93: relation "enrollment" counter to shards must be a whole number, not "many"`},
		{"missing name", `{to: {shards: 4}}`,
			`7:75: relation "enrollment" counter to is missing the required field "name"`},
		{"unknown field", `{to: {name: n, shard: 4}}`,
			`7:85: unknown field "shard" in relation "enrollment" counter to; allowed fields: name, shards`},
		{"bad name inside", `{to: {name: "a.b", shards: 2}}`,
			`7:82: relation "enrollment": counter name "a.b" must start with a letter`},
		{"key attribute inside", `{from: {name: GSI1PK, shards: 2}}`,
			`7:84: relation "enrollment": counter "GSI1PK" is a key attribute adjl manages`},
		{"attribute clash inside", `{from: {name: name, shards: 2}}`,
			`7:84: relation "enrollment": counter "name" has the name of an attribute of entity "student" (line 4)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(with(`edge: "ENROLL#"`, `edge: "ENROLL#", counters: `+tc.counters)))
			wantErrors(t, err, tc.want)
		})
	}
}

func TestCounterSK(t *testing.T) {
	sk := CounterSK("followerCount", 7)
	if sk != "ADJL#COUNT#followerCount#7" {
		t.Fatalf("CounterSK = %q", sk)
	}
	if !strings.HasPrefix(sk, ReservedPrefix) {
		t.Error("counter items must live under the reserved prefix")
	}
	for _, tc := range []struct {
		sk, name string
		k        int
		ok       bool
	}{
		{sk, "followerCount", 7, true},
		{CounterSK("a-b_c", 63), "a-b_c", 63, true},
		{"ADJL#COUNT#n#x", "", 0, false},
		{"ADJL#COUNT#n#-1", "", 0, false},
		{"ADJL#COUNT##3", "", 0, false},
		{"ADJL#META", "", 0, false},
		{"TARGET#bob", "", 0, false},
	} {
		if name, ok := CounterOfSK(tc.sk); name != tc.name || ok != tc.ok {
			t.Errorf("CounterOfSK(%q) = %q %v, want %q %v", tc.sk, name, ok, tc.name, tc.ok)
		}
		if name, k, ok := CounterShardOfSK(tc.sk); name != tc.name || k != tc.k || ok != tc.ok {
			t.Errorf("CounterShardOfSK(%q) = %q %d %v, want %q %d %v", tc.sk, name, k, ok, tc.name, tc.k, tc.ok)
		}
	}
}

func TestCounterShardStableAndSpread(t *testing.T) {
	r := &Relation{Counters: Counters{From: "f", To: "t", ToShards: 8}}
	if n, k := r.Counter(FromEnd); n != "f" || k != 1 {
		t.Errorf("Counter(from) = %q %d, want f 1 (0 means 1)", n, k)
	}
	if n, k := r.Counter(ToEnd); n != "t" || k != 8 {
		t.Errorf("Counter(to) = %q %d", n, k)
	}
	seen := map[int]int{}
	for i := range 800 {
		key := fmt.Sprintf("ACTOR#u%d", i)
		k := r.CounterShard(ToEnd, key)
		if k != r.CounterShard(ToEnd, key) {
			t.Fatalf("shard of %s not stable", key)
		}
		if k < 0 || k >= 8 {
			t.Fatalf("shard %d out of range", k)
		}
		seen[k]++
		if r.CounterShard(FromEnd, key) != 0 {
			t.Fatal("an unsharded counter has only shard 0")
		}
	}
	for k := range 8 {
		if seen[k] < 50 {
			t.Errorf("counter shard %d got only %d of 800 edges: %v", k, seen[k], seen)
		}
	}
}

func TestShardedCounters(t *testing.T) {
	s, err := Parse("s.yaml", []byte(withRelations(`  a: {from: {entity: student, prefix: "ACTOR#"}, to: course, edge: "A#", counters: {from: aCount, to: {name: aStudents, shards: 4}}}
  b: {from: {entity: student, prefix: "ACTOR#"}, to: {entity: course, prefix: "ROOM#"}, edge: "B#", counters: {from: {name: bCount, shards: 2}, to: bStudents}}
`)))
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string]string{"CRS#": "[aStudents]", "ACTOR#": "[bCount]", "ROOM#": "[]", "STU#": "[]"} {
		if got := fmt.Sprint(s.ShardedCounters(prefix)); got != want {
			t.Errorf("ShardedCounters(%s) = %s, want %s", prefix, got, want)
		}
	}
	for _, tc := range []struct {
		prefix, name string
		want         int
	}{{"CRS#", "aStudents", 4}, {"ACTOR#", "bCount", 2}, {"ACTOR#", "aCount", 1}, {"ROOM#", "bStudents", 1}, {"CRS#", "bCount", 1}, {"STU#", "nothing", 1}} {
		if got := s.CounterShards(tc.prefix, tc.name); got != tc.want {
			t.Errorf("CounterShards(%s, %s) = %d, want %d", tc.prefix, tc.name, got, tc.want)
		}
	}
}

func TestAccessPatternsShowCounterShardsAndFanOut(t *testing.T) {
	ps := loadExample(t, "social.yaml").AccessPatterns()
	c := patternByName(t, ps, "follow: followerCount (sharded counter)")
	if c.Operation != "Query" || c.Index != "" || c.KeyCondition != `PK = TARGET#<id> AND begins_with(SK, "ADJL#COUNT#")` ||
		c.Command != "adjl get TARGET#<id>" || !strings.Contains(c.Notes, "8 counter items") {
		t.Errorf("counter pattern = %+v", c)
	}
	link := patternByName(t, ps, "follow: link")
	for _, frag := range []string{
		"ADD followingCount 1 on ACTOR#<id>",
		"ADD followerCount 1 on PK = TARGET#<id>, SK = ADJL#COUNT#followerCount#j (j = hash of ACTOR#<id> mod 8)",
	} {
		if !strings.Contains(link.Notes, frag) {
			t.Errorf("link notes %q lack %q", link.Notes, frag)
		}
	}
	ent := patternByName(t, ps, "follow: reverse list with entity")
	if ent.KeyCondition != `GSI1PK = TARGET#<id>#k AND begins_with(GSI1SK, "ACTOR#"), for k = 0..3` || ent.Filter != "" ||
		!strings.Contains(ent.Notes, "4 shard Queries, plus GetItem PK = SK = TARGET#<id>") {
		t.Errorf("sharded reverse list with entity = %+v", ent)
	}
	for _, p := range ps {
		if p.Name == "follow: followingCount (sharded counter)" {
			t.Error("an unsharded counter has no counter Query")
		}
	}
}
