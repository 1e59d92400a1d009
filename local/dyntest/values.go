package dyntest

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// item is one DynamoDB item or key.
type item = map[string]types.AttributeValue

// Short constructors keep the expected items in the tests readable.

func vS(v string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: v} }
func vN(v string) types.AttributeValue  { return &types.AttributeValueMemberN{Value: v} }
func vB(v []byte) types.AttributeValue  { return &types.AttributeValueMemberB{Value: v} }
func vBool(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }
func vNull() types.AttributeValue       { return &types.AttributeValueMemberNULL{Value: true} }
func vSS(v ...string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: v}
}
func vNS(v ...string) types.AttributeValue {
	return &types.AttributeValueMemberNS{Value: v}
}
func vBS(v ...[]byte) types.AttributeValue {
	return &types.AttributeValueMemberBS{Value: v}
}
func vL(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}
func vM(v item) types.AttributeValue {
	if v == nil {
		v = item{}
	}
	return &types.AttributeValueMemberM{Value: v}
}

// show renders a value compactly and canonically (sets sorted, map keys
// sorted) so two renderings are equal exactly when the values are equal as
// DynamoDB defines it: sets are unordered.
func show(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S:%q", v.Value)
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B:%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL:%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		s := slices.Sorted(slices.Values(v.Value))
		for i := range s {
			s[i] = fmt.Sprintf("%q", s[i])
		}
		return "SS[" + strings.Join(s, ",") + "]"
	case *types.AttributeValueMemberNS:
		s := slices.Sorted(slices.Values(v.Value))
		return "NS[" + strings.Join(s, ",") + "]"
	case *types.AttributeValueMemberBS:
		b := slices.SortedFunc(slices.Values(v.Value), bytes.Compare)
		s := make([]string, len(b))
		for i := range b {
			s[i] = fmt.Sprintf("%x", b[i])
		}
		return "BS[" + strings.Join(s, ",") + "]"
	case *types.AttributeValueMemberL:
		s := make([]string, len(v.Value))
		for i, e := range v.Value {
			s[i] = show(e)
		}
		return "L[" + strings.Join(s, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M" + showItem(v.Value)
	default:
		return fmt.Sprintf("%T", v)
	}
}

// showItem renders an item with sorted attribute names.
func showItem(it item) string {
	if it == nil {
		return "{}"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(it)) {
		parts = append(parts, k+"="+show(it[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// showItems renders a page of items in order.
func showItems(items []item) string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = showItem(it)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// keyOf projects the named attributes out of an item.
func keyOf(it item, names ...string) item {
	k := item{}
	for _, n := range names {
		if v, ok := it[n]; ok {
			k[n] = v
		}
	}
	return k
}

// sOf returns an S value's string or "" (for pulling sort keys out of pages).
func sOf(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// sValues lists the S values of attribute name in items, in order ("" where
// an item has none).
func sValues(items []item, name string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, sOf(it[name]))
	}
	return out
}

// sortKeys lists the sk values of items, in order.
func sortKeys(items []item) string { return join(sValues(items, "sk")) }

// nOf returns an N value's digits or "".
func nOf(v types.AttributeValue) string {
	if n, ok := v.(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// join renders strings comma separated for compact order assertions.
func join(s []string) string { return strings.Join(s, ",") }
