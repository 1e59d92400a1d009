package attr

import (
	"slices"
	"strconv"
	"strings"
)

// Kind is the DynamoDB data type of a Value. The zero Kind is Invalid so that
// an unset Value is never mistaken for a real one.
type Kind uint8

// The DynamoDB data types, named by their wire descriptors.
const (
	Invalid Kind = iota
	S
	N
	B
	BOOL
	NULL
	M
	L
	SS
	NS
	BS
)

var kindNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the wire descriptor ("S", "NS", ...) because that is how
// DynamoDB names types in messages and in attribute_type().
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// KindOf parses a wire descriptor; it returns Invalid for anything else.
func KindOf(s string) Kind {
	for i, n := range kindNames {
		if i > 0 && n == s {
			return Kind(i)
		}
	}
	return Invalid
}

// Value is one DynamoDB attribute value. It is a plain struct with a kind tag
// rather than an interface so that values can be compared, hashed and copied
// without reflection or type switches on boxed types.
//
// Field use by kind: S and N use Str (N holds the canonical decimal string);
// B uses Bytes; BOOL uses Bool; M uses Map; L uses List; SS and NS use Strs
// (NS elements are canonical); BS uses Bins. NULL uses nothing.
type Value struct {
	Kind  Kind
	Bool  bool
	Str   string
	Bytes []byte
	Map   map[string]Value
	List  []Value
	Strs  []string
	Bins  [][]byte
}

// Item is a DynamoDB item: attribute name to value.
type Item map[string]Value

// String returns an S value.
func String(s string) Value { return Value{Kind: S, Str: s} }

// Binary returns a B value (the slice is not copied).
func Binary(b []byte) Value { return Value{Kind: B, Bytes: b} }

// Bool returns a BOOL value.
func Bool(b bool) Value { return Value{Kind: BOOL, Bool: b} }

// Null returns the NULL value.
func Null() Value { return Value{Kind: NULL, Bool: true} }

// Map returns an M value (the map is not copied).
func Map(m map[string]Value) Value { return Value{Kind: M, Map: m} }

// List returns an L value (the slice is not copied).
func List(l []Value) Value { return Value{Kind: L, List: l} }

// Number parses, validates and canonicalises a decimal string into an N value.
func Number(s string) (Value, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: N, Str: d.String()}, nil
}

// Int returns an N value for an integer; it cannot fail.
func Int(i int64) Value {
	d, _ := ParseDecimal(strconv.FormatInt(i, 10))
	return Value{Kind: N, Str: d.String()}
}

// StringSet returns a validated SS value.
func StringSet(ss ...string) (Value, error) {
	v := Value{Kind: SS, Strs: ss}
	return v, v.validate()
}

// NumberSet returns a validated NS value with canonical elements.
func NumberSet(ns ...string) (Value, error) {
	out := make([]string, len(ns))
	for i, s := range ns {
		d, err := ParseDecimal(s)
		if err != nil {
			return Value{}, err
		}
		out[i] = d.String()
	}
	v := Value{Kind: NS, Strs: out}
	return v, v.validate()
}

// IsZero reports whether v is the unset Value (not a valid attribute).
func (v Value) IsZero() bool { return v.Kind == Invalid }

// Decimal returns the number of an N value.
func (v Value) Decimal() (Decimal, error) { return ParseDecimal(v.Str) }

// GoString renders v compactly in wire-like form for test failures and logs.
func (v Value) GoString() string {
	b, err := v.MarshalJSON()
	if err != nil {
		return "<invalid>"
	}
	return string(b)
}

// String renders v as wire JSON.
func (v Value) String() string { return v.GoString() }

// Clone returns a deep copy of v, so callers may mutate the copy freely.
func (v Value) Clone() Value {
	switch v.Kind {
	case B:
		v.Bytes = append([]byte(nil), v.Bytes...)
	case M:
		m := make(map[string]Value, len(v.Map))
		for k, e := range v.Map {
			m[k] = e.Clone()
		}
		v.Map = m
	case L:
		l := make([]Value, len(v.List))
		for i, e := range v.List {
			l[i] = e.Clone()
		}
		v.List = l
	case SS, NS:
		v.Strs = append([]string(nil), v.Strs...)
	case BS:
		bs := make([][]byte, len(v.Bins))
		for i, e := range v.Bins {
			bs[i] = append([]byte(nil), e...)
		}
		v.Bins = bs
	}
	return v
}

// Clone returns a deep copy of the item.
func (it Item) Clone() Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v.Clone()
	}
	return out
}

// setKindName is the article-less noun DynamoDB uses in set messages.
func setKindName(k Kind) string {
	switch k {
	case SS:
		return "string"
	case NS:
		return "number"
	default:
		return "binary"
	}
}

// validate checks the invariants DynamoDB enforces on a decoded value:
// non-empty sets without duplicates, NULL true, and the same recursively.
func (v Value) validate() error {
	switch v.Kind {
	case NULL:
		if !v.Bool {
			return invalid("One or more parameter values were invalid: Null attribute value types must have the value of true")
		}
	case SS, NS, BS:
		n := len(v.Strs)
		if v.Kind == BS {
			n = len(v.Bins)
		}
		if n == 0 {
			if v.Kind == BS {
				return invalid("One or more parameter values were invalid: Binary sets should not be empty")
			}
			return invalid("One or more parameter values were invalid: An " + setKindName(v.Kind) + " set  may not be empty")
		}
		if hasDuplicates(v) {
			const prefix = "One or more parameter values were invalid: Input collection "
			switch v.Kind {
			case NS:
				return layered("Input collection contains duplicates", prefix+"contains duplicates.")
			case BS:
				return layered(prefix+setLiteral(v)+"of type BS contains duplicates.", prefix+duplicateLiteral(v)+"of type BS contains duplicates.")
			}
			return layered(prefix+setLiteral(v)+" contains duplicates.", prefix+duplicateLiteral(v)+" contains duplicates.")
		}
	case M:
		for _, e := range v.Map {
			if err := e.validate(); err != nil {
				return err
			}
		}
	case L:
		for _, e := range v.List {
			if err := e.validate(); err != nil {
				return err
			}
		}
	case Invalid:
		return invalid("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}
	return nil
}

func hasDuplicates(v Value) bool {
	if v.Kind == BS {
		seen := make(map[string]struct{}, len(v.Bins))
		for _, b := range v.Bins {
			if _, ok := seen[string(b)]; ok {
				return true
			}
			seen[string(b)] = struct{}{}
		}
		return false
	}
	if len(v.Strs) < 8 {
		for i := range v.Strs {
			for j := i + 1; j < len(v.Strs); j++ {
				if v.Strs[i] == v.Strs[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(v.Strs))
	for _, s := range v.Strs {
		if _, ok := seen[s]; ok {
			return true
		}
		seen[s] = struct{}{}
	}
	return false
}

// setLiteral renders a set the way DynamoDB's duplicate message shows it.
func setLiteral(v Value) string {
	var sb strings.Builder
	sb.WriteByte('[')
	if v.Kind == BS {
		for i, b := range v.Bins {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(b64(b))
		}
	} else {
		for i, s := range v.Strs {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(s)
		}
	}
	sb.WriteByte(']')
	return sb.String()
}

// duplicateLiteral is a set with a repeated member as DynamoDB's current
// value layer shows it: the members taken in as sent into a sorted set up to
// the first repeat, that set in byte order, the repeat, then the members
// after it as sent; each quoted, separated by ", " (strings) or "," (binary).
func duplicateLiteral(v Value) string {
	var members []string
	sep := ", "
	if v.Kind == BS {
		sep = ","
		for _, b := range v.Bins {
			members = append(members, string(b))
		}
	} else {
		members = v.Strs
	}
	seen := map[string]bool{}
	var sorted []string
	i := 0
	for ; i < len(members) && !seen[members[i]]; i++ {
		seen[members[i]] = true
		sorted = append(sorted, members[i])
	}
	slices.Sort(sorted) // Go compares strings by their bytes
	shown := append(sorted, members[i:]...)
	quoted := make([]string, len(shown))
	for j, m := range shown {
		if v.Kind == BS {
			m = b64([]byte(m))
		}
		quoted[j] = strconv.Quote(m)
	}
	return "[" + strings.Join(quoted, sep) + "]"
}

// Depth returns how many levels v occupies: 1 for a scalar or set, one more
// than its deepest element for a map or list. Updates use it to enforce
// MaxDepth on values written below the top level.
func Depth(v Value) int {
	d := 0
	switch v.Kind {
	case M:
		for _, e := range v.Map {
			d = max(d, Depth(e))
		}
	case L:
		for _, e := range v.List {
			d = max(d, Depth(e))
		}
	}
	return d + 1
}
