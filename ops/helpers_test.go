package ops

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var reAlias = regexp.MustCompile(`[#:]\d+`)

// render substitutes the aliases of an expression, so tests can assert the
// request as a reader would write it: attribute_not_exists (PK).
func render(expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	return strings.TrimSpace(reAlias.ReplaceAllStringFunc(aws.ToString(expr), func(a string) string {
		if a[0] == '#' {
			return names[a]
		}
		return avString(values[a])
	}))
}

func avString(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(x.Value)
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberSS:
		return fmt.Sprintf("SS%q", x.Value)
	case *types.AttributeValueMemberBOOL:
		return strconv.FormatBool(x.Value)
	case nil:
		return "<nil>"
	}
	return fmt.Sprintf("%T", v)
}

// itemString renders an item with sorted attribute names.
func itemString(it Item) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(it)) {
		parts = append(parts, k+"="+avString(it[k]))
	}
	return strings.Join(parts, " ")
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

var ctx = context.Background()

func nOf(it Item, name string) string {
	if n, ok := it[name].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}
