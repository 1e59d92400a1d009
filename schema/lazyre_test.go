package schema

import (
	"strings"
	"testing"
)

func TestNameRuleMatchesDynamoDBTableNames(t *testing.T) {
	r := tableRE
	for name, want := range map[string]bool{
		"abc": true, "school_v2.prod-1": true, "AB": false, "ab#c": false, "": false,
		strings.Repeat("a", 255): true, strings.Repeat("a", 256): false, "é-table": false, "a b": false,
	} {
		if got := r.MatchString(name); got != want {
			t.Errorf("tableRE.MatchString(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLazyREMatchesLikeItsPattern(t *testing.T) {
	if !tagCharsRE.MatchString("team: data-1") || tagCharsRE.MatchString("a\x00b") {
		t.Error("tagCharsRE does not match as its pattern says")
	}
	if m := yamlLineRE.FindStringSubmatch("yaml: line 3: bad"); len(m) != 3 || m[1] != "3" {
		t.Errorf("yamlLineRE submatches = %q", m)
	}
}
