// Package examplelayouts rewrites the example schemas into the key layouts
// of existing single-table designs, so the behaviour and end-to-end suites
// run both examples in every layout adjl serves: the generic layout under
// lower-case names (pk, sk, gsi1pk, gsi1sk, index gsi1) and the inverted
// layout of AWS's adjacency-list guide (index "inverted" on sk, pk). The
// inverted layout has no shards, so the social example's reverse-index and
// counter shards become 1 there.
package examplelayouts

import (
	"fmt"
	"regexp"
)

// Variant is one layout the examples are rewritten into.
type Variant struct {
	Name  string // "lower" or "inverted"
	Index string // the index name the variant gives
	// Keys are the key attribute names: table PK, SK, then index PK, SK.
	Keys [4]string
}

// Variants are the layouts of existing tables the suites cover.
var Variants = []Variant{
	{Name: "lower", Index: "gsi1", Keys: [4]string{"pk", "sk", "gsi1pk", "gsi1sk"}},
	{Name: "inverted", Index: "inverted", Keys: [4]string{"pk", "sk", "sk", "pk"}},
}

// Inverted reports whether the variant is the inverted layout.
func (v Variant) Inverted() bool { return v.Name == "inverted" }

var indexLine = regexp.MustCompile(`(?m)^  index: \{name: GSI1, projection: ([A-Z_]+)\}`)

// Rewrite turns an example schema (examples/*.yaml) into the variant's
// layout. It fails if the schema does not have the examples' index line.
func Rewrite(data []byte, v Variant) ([]byte, error) {
	s := string(data)
	if !indexLine.MatchString(s) {
		return nil, fmt.Errorf("no `  index: {name: GSI1, projection: ...}` line to rewrite")
	}
	keys := fmt.Sprintf("  keys: {pk: %s, sk: %s}\n", v.Keys[0], v.Keys[1])
	index := fmt.Sprintf("  index: {name: %s, keys: {pk: %s, sk: %s}, projection: $1}", v.Index, v.Keys[2], v.Keys[3])
	if v.Inverted() {
		index = fmt.Sprintf("  index: {name: %s, layout: inverted, projection: $1}", v.Index)
		s = regexp.MustCompile(`(?m)^(\s+shards:) \d+`).ReplaceAllString(s, "$1 1")
		s = regexp.MustCompile(`\{name: (\w+), shards: \d+\}`).ReplaceAllString(s, "$1")
	}
	return []byte(indexLine.ReplaceAllString(s, keys+index)), nil
}
