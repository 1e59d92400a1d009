package infer

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// prefixWordRE is a key prefix as adjl writes them: an upper-case word and
// the delimiter.
var prefixWordRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*#`)

// attrNameRE is what adjl accepts as an attribute name (schema's attrRE).
var attrNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// metaKey is adjl's metadata item (ops.MetaKey).
const metaKey = schema.ReservedPrefix + "META"

// sample gathers what the items say, by key prefix.
type sample struct {
	l        schema.Layout
	prefixes map[string]*prefixStat
	edges    []edgeItem
	// meta is the shard count adjl's metadata item records per relation.
	meta map[string]int
	// counterShards: per key prefix, the sharded counters seen (adjl's
	// counter items, SK ADJL#COUNT#name#k) and their shard count.
	counterShards map[string]map[string]int
	skipped       int
	unsupported   map[string]string // attribute -> why it was left out
}

// prefixStat is what the sample says about one key prefix.
type prefixStat struct {
	items int // items whose partition and sort key are P+id
	ids   map[string]bool
	attrs kinds
	types map[string]int // values of the layout's type attribute
}

// edgeItem is an item whose partition and sort keys differ.
type edgeItem struct {
	from, fromID string
	words        []string // the prefix words that start the sort key
	rest         string   // the sort key after them
	attrs        map[string]types.AttributeValue
	typ          string
	indexPK      string // the generic layout's index partition
	stamps       map[string]int
}

// kinds counts, per attribute, the kinds of the values seen.
type kinds map[string]map[schema.AttrKind]int

func newSample(l schema.Layout) *sample {
	return &sample{l: l, prefixes: map[string]*prefixStat{}, meta: map[string]int{},
		counterShards: map[string]map[string]int{}, unsupported: map[string]string{}}
}

func (s *sample) prefix(p string) *prefixStat {
	st := s.prefixes[p]
	if st == nil {
		st = &prefixStat{ids: map[string]bool{}, attrs: kinds{}, types: map[string]int{}}
		s.prefixes[p] = st
	}
	return st
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func num(v types.AttributeValue) (int, bool) {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n.Value)
	return i, err == nil
}

// splitPrefix splits a key into its prefix word and id; "" when the key has
// no prefix word.
func splitPrefix(key string) (prefix, id string) {
	p := prefixWordRE.FindString(key)
	return p, key[len(p):]
}

// add files one item.
func (s *sample) add(it Item) {
	l := s.l
	pk, sk := str(it[l.PK]), str(it[l.SK])
	switch {
	case pk == "" || sk == "":
		s.skipped++
		return
	case pk == metaKey:
		if m, ok := it["shards"].(*types.AttributeValueMemberM); ok {
			for rel, v := range m.Value {
				if n, ok := num(v); ok {
					s.meta[rel] = n
				}
			}
		}
		return
	}
	from, fromID := splitPrefix(pk)
	if from == "" {
		s.skipped++
		return
	}
	if name, ok := schema.CounterOfSK(sk); ok {
		k, _ := strconv.Atoi(sk[strings.LastIndex(sk, schema.Delimiter)+1:])
		if s.counterShards[from] == nil {
			s.counterShards[from] = map[string]int{}
		}
		s.counterShards[from][name] = max(s.counterShards[from][name], k+1)
		return
	}
	attrs := map[string]types.AttributeValue{}
	stamps := map[string]int{}
	typ := ""
	for name, v := range it {
		switch {
		case slices.Contains(l.KeyNames(), name):
		case name == l.Type && l.Type != "":
			typ = str(v)
		case strings.HasPrefix(name, schema.ShardStampPrefix):
			if n, ok := num(v); ok {
				stamps[strings.TrimPrefix(name, schema.ShardStampPrefix)] = n
			}
		case strings.HasPrefix(name, schema.ReservedPrefix):
		default:
			attrs[name] = v
		}
	}
	if pk == sk {
		st := s.prefix(from)
		st.items++
		st.ids[fromID] = true
		s.count(st.attrs, attrs)
		if typ != "" {
			st.types[typ]++
		}
		return
	}
	var words []string
	rest := sk
	for {
		w := prefixWordRE.FindString(rest)
		if w == "" {
			break
		}
		words = append(words, w)
		rest = rest[len(w):]
	}
	if len(words) == 0 {
		s.skipped++
		return
	}
	s.prefix(from).ids[fromID] = true
	e := edgeItem{from: from, fromID: fromID, words: words, rest: rest, attrs: attrs, typ: typ, stamps: stamps}
	if l.WritesIndexKeys() {
		e.indexPK = str(it[l.IndexPK])
	}
	s.edges = append(s.edges, e)
}

// count adds the kinds of an item's attributes.
func (s *sample) count(k kinds, attrs map[string]types.AttributeValue) {
	for name, v := range attrs {
		if !attrNameRE.MatchString(name) {
			s.unsupported[name] = "its name is not one adjl accepts (a letter, then letters, digits, _ or -)"
			continue
		}
		kind, ok := kindOf(v)
		if !ok {
			s.unsupported[name] = "it holds " + avType(v) + " values, which adjl does not write"
			continue
		}
		if k[name] == nil {
			k[name] = map[schema.AttrKind]int{}
		}
		k[name][kind]++
	}
}

// kindOf is the schema kind of a value: strings that all look like dates or
// datetimes are proposed as such.
func kindOf(v types.AttributeValue) (schema.AttrKind, bool) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		if dateRE.MatchString(x.Value) {
			if _, err := time.Parse(time.DateOnly, x.Value); err == nil {
				return schema.KindDate, true
			}
		}
		if _, err := time.Parse(time.RFC3339, x.Value); err == nil {
			return schema.KindDatetime, true
		}
		return schema.KindString, true
	case *types.AttributeValueMemberN:
		return schema.KindNumber, true
	case *types.AttributeValueMemberBOOL:
		return schema.KindBool, true
	case *types.AttributeValueMemberSS:
		return schema.KindStrings, true
	}
	return "", false
}

func avType(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberM:
		return "map"
	case *types.AttributeValueMemberL:
		return "list"
	case *types.AttributeValueMemberNS:
		return "number set"
	case *types.AttributeValueMemberBS:
		return "binary set"
	case *types.AttributeValueMemberB:
		return "binary"
	case *types.AttributeValueMemberNULL:
		return "null"
	}
	return "other"
}

// attributes are the attributes of k, by name, each with its most frequent
// kind (string when the kinds tie), leaving out the names in skip.
func attributes(k kinds, skip map[string]bool) []schema.Attribute {
	var out []schema.Attribute
	for _, name := range slices.Sorted(maps.Keys(k)) {
		if skip[name] {
			continue
		}
		best, n := schema.KindString, -1
		for _, kind := range schema.Kinds {
			if c := k[name][kind]; c > n {
				best, n = kind, c
			}
		}
		// Dates that are sometimes plain strings are strings.
		if (best == schema.KindDate || best == schema.KindDatetime) && k[name][schema.KindString] > 0 {
			best = schema.KindString
		}
		out = append(out, schema.Attribute{Name: name, Kind: best})
	}
	return out
}

// mixed names the attributes of k seen with more than one kind.
func mixed(k kinds) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(k)) {
		if len(k[name]) > 1 {
			out = append(out, name)
		}
	}
	return out
}

func typeOf(types map[string]int) string {
	best, n := "", 0
	for _, t := range slices.Sorted(maps.Keys(types)) {
		if types[t] > n {
			best, n = t, types[t]
		}
	}
	return best
}
