package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

func TestProjectionApply(t *testing.T) {
	it := item(t, `{
	 "pk": {"S": "k"}, "a": {"N": "1"}, "b": {"S": "x"},
	 "m": {"M": {"x": {"N": "1"}, "y": {"S": "two"}, "z": {"L": [{"N": "0"}, {"N": "1"}]}}},
	 "l": {"L": [{"S": "l0"}, {"M": {"k": {"S": "v"}, "o": {"S": "other"}}}, {"S": "l2"}, {"S": "l3"}]}
	}`)
	cases := []struct{ expr, want string }{
		{"a", `{"a":{"N":"1"}}`},
		{"a, b, absent", `{"a":{"N":"1"},"b":{"S":"x"}}`},
		{"#p, a", `{"a":{"N":"1"},"pk":{"S":"k"}}`},
		{"m.y", `{"m":{"M":{"y":{"S":"two"}}}}`},
		{"m.y, m.z[1]", `{"m":{"M":{"y":{"S":"two"},"z":{"L":[{"N":"1"}]}}}}`},
		{"l[3], l[0]", `{"l":{"L":[{"S":"l0"},{"S":"l3"}]}}`},
		{"l[1].k", `{"l":{"L":[{"M":{"k":{"S":"v"}}}]}}`},
		{"l[9], m.absent, a.b", `{}`},
		{"m", `{"m":{"M":{"x":{"N":"1"},"y":{"S":"two"},"z":{"L":[{"N":"0"},{"N":"1"}]}}}}`},
	}
	for _, c := range cases {
		pr, err := ParseProjection(c.expr, env(t, map[string]string{"#p": "pk"}, nil))
		if err != nil {
			t.Errorf("ParseProjection(%q): %v", c.expr, err)
			continue
		}
		got := pr.Apply(it)
		if !attr.EqualItems(got, item(t, c.want)) {
			b, _ := got.MarshalJSON()
			t.Errorf("Apply(%q) = %s, want %s", c.expr, b, c.want)
		}
	}
}

func TestProjectionErrors(t *testing.T) {
	cases := []parseErrCase{
		{"", "Invalid ProjectionExpression: The expression can not be empty;"},
		{"a, a", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"a.b, a", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{"a[0], a.b", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"},
		{"name", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{"#q", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #q"},
		{"a b", `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
		{"a,", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{"a = :v", `Invalid ProjectionExpression: Syntax error; token: "=", near: "a = :v"`},
	}
	wantParseErrors(t, "ParseProjection", func(expr string) error {
		_, err := ParseProjection(expr, env(t, map[string]string{"#p": "pk"}, nil))
		return err
	}, cases)
}
