package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fnv1a is an independent FNV-1a (32-bit) so the shard test does not trust
// the code under test for its expected value.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func TestEnrollmentKeys(t *testing.T) {
	s := loadExample(t, "school.yaml")
	r := s.Relation("enrollment")
	from, err := r.FromKey("a91")
	if err != nil {
		t.Fatal(err)
	}
	to, err := r.ToKey("CRS#math204")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Layout().EdgeKeys(r, from, to)
	want := Keys{PK: "STU#a91", SK: "ENROLL#CRS#math204", IndexPK: "CRS#math204", IndexSK: "STU#a91"}
	if got != want {
		t.Errorf("EdgeKeys = %+v, want %+v", got, want)
	}
	if p := r.EdgeSKPrefix(); p != "ENROLL#CRS#" {
		t.Errorf("EdgeSKPrefix = %q", p)
	}
	if ik := s.Layout().ItemKeys("STU#a91"); ik != (Keys{"STU#a91", "STU#a91", "STU#a91", "STU#a91"}) {
		t.Errorf("ItemKeys = %+v", ik)
	}
	if ps := s.Layout().ReversePartitions(r, "CRS#math204"); len(ps) != 1 || ps[0] != "CRS#math204" {
		t.Errorf("ReversePartitions = %v", ps)
	}
}

func TestFollowKeysSharded(t *testing.T) {
	s := loadExample(t, "social.yaml")
	r := s.Relation("follow")
	for _, pair := range [][2]string{{"alice", "bob"}, {"ACTOR#carol", "TARGET#bob"}, {"dave", "erin"}} {
		from, err := r.FromKey(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		to, err := r.ToKey(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		k := fnv1a(from) % 4
		want := Keys{PK: from, SK: to, IndexPK: fmt.Sprintf("%s#%d", to, k), IndexSK: from}
		if !strings.HasPrefix(from, "ACTOR#") || !strings.HasPrefix(to, "TARGET#") {
			t.Fatalf("keys %q %q lack role prefixes", from, to)
		}
		if got := s.Layout().EdgeKeys(r, from, to); got != want {
			t.Errorf("EdgeKeys(%s, %s) = %+v, want %+v", from, to, got, want)
		}
		if again := s.Layout().EdgeKeys(r, from, to); again.IndexPK != want.IndexPK {
			t.Error("shard is not stable")
		}
	}
	want := []string{"TARGET#bob#0", "TARGET#bob#1", "TARGET#bob#2", "TARGET#bob#3"}
	if got := s.Layout().ReversePartitions(r, "TARGET#bob"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ReversePartitions = %v, want %v", got, want)
	}
}

func TestShardsSpread(t *testing.T) {
	r := &Relation{Shards: 4, From: Side{Prefix: "ACTOR#"}, To: Side{Prefix: "TARGET#"}}
	seen := map[int]int{}
	for i := range 400 {
		k := r.Shard(fmt.Sprintf("ACTOR#u%d", i))
		if k < 0 || k >= 4 {
			t.Fatalf("shard %d out of range", k)
		}
		seen[k]++
	}
	for k := range 4 {
		if seen[k] < 50 {
			t.Errorf("shard %d got only %d of 400 keys: %v", k, seen[k], seen)
		}
	}
}

func TestKeyRefusals(t *testing.T) {
	s := loadExample(t, "school.yaml")
	r := s.Relation("enrollment")
	long := strings.Repeat("x", MaxSortKeyBytes)
	cases := []struct {
		name   string
		fn     func(string) (string, error)
		input  string
		reason string
	}{
		{"wrong prefix from", r.FromKey, "CRS#math204", `prefix "CRS#" does not belong here`},
		{"wrong prefix to", r.ToKey, "STU#a91", `prefix "STU#" does not belong here`},
		{"unknown prefix", r.FromKey, "TEACHER#t1", `prefix "TEACHER#" does not belong here`},
		{"empty id bare", r.FromKey, "", "empty id"},
		{"empty id prefixed", r.ToKey, "CRS#", "empty id"},
		{"control character", r.FromKey, "a\n91", "control character"},
		{"invalid utf8", r.FromKey, "a\xff", "not valid UTF-8"},
		{"oversized from", r.FromKey, long, "over the 1024-byte limit"},
		{"oversized to counts the edge prefix", r.ToKey, long[:MaxSortKeyBytes-len("CRS#")-len("ENROLL#")+1], "over the 1017-byte limit"},
		{"entity key", s.Entity("course").Key, "STU#a91", `prefix "STU#" does not belong here: it is the student prefix`},
		{"unknown prefix names the schema's", r.FromKey, "XYZ#a91", `prefix "XYZ#" does not belong here: the schema's prefixes are CRS# STU#`},
		{"own prefix in another case", r.FromKey, "stu#a91", `prefix "stu#" is "STU#" in another case`},
		{"mixed case", r.ToKey, "Crs#math204", `prefix "Crs#" is "CRS#" in another case`},
		{"other side's prefix in another case", r.FromKey, "crs#math204", `prefix "crs#" looks like "CRS#" (course), which does not belong here either`},
		{"leading space", r.FromKey, " a91", "id starts with whitespace (U+0020 at position 1); remove it"},
		{"trailing tab", r.FromKey, "STU#a91\t", "id ends with whitespace (U+0009 at position 8); remove it"},
		{"no-break space at the end", r.FromKey, "a91\u00a0", "id ends with whitespace (U+00A0 at position 4)"},
		{"bidi override", r.FromKey, "STU#ab\u202ecd", "id contains U+202E (a bidirectional formatting character) at position 7"},
		{"bidi isolate", r.ToKey, "m\u2066ath", "id contains U+2066 (a bidirectional formatting character) at position 2"},
		{"line separator", r.FromKey, "a\u2028b", "id contains U+2028 (a line or paragraph separator) at position 2"},
		{"C1 control", r.FromKey, "a\u0085b", "id contains U+0085 (a C1 control character) at position 2"},
		{"escape", r.FromKey, "a\x1b[31mb", "id contains U+001B (a control character) at position 2"},
		{"right-to-left mark", r.FromKey, "a91\u200f", "id contains U+200F (a bidirectional formatting character) at position 4"},
		{"arabic letter mark", r.ToKey, "m\u061cath", "id contains U+061C (a bidirectional formatting character) at position 2"},
		{"zero-width space", r.FromKey, "a\u200b91", "id contains U+200B (an invisible formatting character) at position 2"},
		{"byte order mark", r.ToKey, "\ufeffmath", "id contains U+FEFF (an invisible formatting character) at position 1"},
		{"word joiner", r.FromKey, "a\u206091", "id contains U+2060 (an invisible formatting character)"},
		{"soft hyphen", r.FromKey, "a\u00ad91", "id contains U+00AD (an invisible formatting character)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fn(tc.input)
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("got %q, %v; want *KeyError", got, err)
			}
			if !strings.Contains(ke.Reason, tc.reason) || ke.Input != tc.input {
				t.Errorf("KeyError = %+v, want reason containing %q", ke, tc.reason)
			}
		})
	}
	// Just under the limit is fine, and lower-case words before '#' are ids.
	if k, err := r.ToKey(long[:MaxSortKeyBytes-len("CRS#")-len("ENROLL#")]); err != nil || len(k)+len(r.Edge) != MaxSortKeyBytes {
		t.Errorf("ToKey at the limit: %d bytes, %v", len(k), err)
	}
	if k, err := r.FromKey("a#1"); err != nil || k != "STU#a#1" {
		t.Errorf("FromKey(a#1) = %q, %v", k, err)
	}
	// Inner spaces and printable non-ASCII are ids like any other.
	for _, id := range []string{"a b", "Zoë", "名前", "x#y#z"} {
		if k, err := r.FromKey(id); err != nil || k != "STU#"+id {
			t.Errorf("FromKey(%q) = %q, %v", id, k, err)
		}
	}
}

func TestKeyCaseSuggestion(t *testing.T) {
	s := loadExample(t, "school.yaml")
	_, err := s.Relation("enrollment").FromKey("stu#a91")
	if err == nil || err.Error() != `key "stu#a91": prefix "stu#" is "STU#" in another case; did you mean STU#a91?` {
		t.Errorf("FromKey(stu#a91): %v", err)
	}
	_, _, err = s.ResolveKey("crs#math204")
	if err == nil || err.Error() != `key "crs#math204": prefix "crs#" is "CRS#" in another case; did you mean CRS#math204?` {
		t.Errorf("ResolveKey(crs#math204): %v", err)
	}
}

// TestTrimmedPrintableASCIIIdsAreThoseIdProblemPasses: the shortcut
// normalize takes (trimmedPrintableASCII) only ever skips ids idProblem
// accepts, and takes it for the ids idProblem accepts that are ASCII.
func TestTrimmedPrintableASCIIIdsAreThoseIdProblemPasses(t *testing.T) {
	for b := range 128 {
		c := string(rune(b))
		for _, id := range []string{c, "a" + c, c + "a", "a" + c + "a", c + c} {
			fast, full := trimmedPrintableASCII(id), idProblem(id, 0) == ""
			if fast != full {
				t.Errorf("id %q: trimmedPrintableASCII %v, idProblem accepts it: %v", id, fast, full)
			}
		}
	}
	for _, id := range []string{"", "é", "a\u0085", "\u00a0a"} {
		if trimmedPrintableASCII(id) {
			t.Errorf("trimmedPrintableASCII(%q) = true", id)
		}
	}
}

// idCharacters are characters of every class idProblem and
// trimmedPrintableASCII tell apart: every ASCII character, C1 controls,
// Unicode spaces, the invisible and bidirectional characters, letters
// beyond ASCII, and bytes that are not UTF-8.
func idCharacters() []string {
	var cs []string
	for b := range 0x80 {
		cs = append(cs, string(rune(b)))
	}
	for _, r := range []rune{0x80, 0x85, 0x9f, 0xa0, 0xad, 0xe9, 0x61c, 0x1680, 0x2000, 0x200b, 0x200c, 0x200d, 0x200e, 0x2028, 0x2029, 0x202e, 0x205f, 0x2060, 0x2066, 0x3000, 0xfeff, 0x1f600} {
		cs = append(cs, string(r))
	}
	return append(cs, "\xff", "\xc3")
}

// TestKeyVerdicts holds Entity.Key and Relation.ToKey to
// testdata/ids.golden: the key or the error each gives for an id holding
// one of idCharacters alone, at either end, in the middle, twice, after
// the side's prefix or another delimiter, or beside a letter beyond ASCII,
// and for ids at the key size limit.
func TestKeyVerdicts(t *testing.T) {
	s := loadExample(t, "school.yaml")
	stu, enroll := s.Entity("student"), s.Relation("enrollment")
	var inputs []string
	for _, c := range idCharacters() {
		inputs = append(inputs, c, "a"+c, c+"a", "a"+c+"b", c+c, "STU#"+c, "STU#a"+c, "STU#"+c+"a", "x#"+c, "\u00e9"+c, c+"\u00e9")
	}
	inputs = append(inputs, "", " ", "  ", "STU#", "STU# ", "a ", " a", "a  b", strings.Repeat("a", 1013), strings.Repeat("a", 1014),
		strings.Repeat("a", 1020), strings.Repeat("a", 1021), strings.Repeat("\u00e9", 600))
	verdict := func(key string, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%q", clip(key))
	}
	var b strings.Builder
	for _, in := range inputs {
		k, err := stu.Key(in)
		fmt.Fprintf(&b, "%q\t%s\n", clip(in), verdict(k, err))
		k, err = enroll.ToKey(in)
		fmt.Fprintf(&b, "%q\tto\t%s\n", clip(in), verdict(k, err))
	}
	golden(t, "ids.golden", []byte(b.String()))
}

func TestSideEntityKeyDropsTheRolePrefix(t *testing.T) {
	follow := loadExample(t, "social.yaml").Relation("follow")
	enroll := loadExample(t, "school.yaml").Relation("enrollment")
	for _, c := range []struct {
		side      Side
		key, want string
	}{
		{follow.From, "ACTOR#alice", "USER#alice"},
		{follow.To, "TARGET#b#2", "USER#b#2"},
		{enroll.From, "STU#a91", "STU#a91"},
	} {
		if got := c.side.EntityKey(c.key); got != c.want {
			t.Errorf("%s: %s, want %s", c.key, got, c.want)
		}
	}
}
