package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

func TestEnvUnused(t *testing.T) {
	e := env(t, map[string]string{"#a": "a", "#b": "b"}, map[string]string{":x": `{"S":"x"}`, ":y": `{"S":"y"}`, ":z": `{"S":"z"}`})
	if _, err := ParseCondition("#a = :x", e); err != nil {
		t.Fatal(err)
	}
	if got := errMsg(e.Unused()); got != "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}" {
		t.Errorf("names first: %s", got)
	}
	if _, err := ParseProjection("#b", e); err != nil {
		t.Fatal(err)
	}
	if got := errMsg(e.Unused()); got != "Value provided in ExpressionAttributeValues unused in expressions: keys: {:y, :z}" {
		t.Errorf("values: %s", got)
	}
	if _, err := ParseUpdate("SET a = :y, b = :z", e); err != nil {
		t.Fatal(err)
	}
	if err := e.Unused(); err != nil {
		t.Errorf("all used: %v", err)
	}
	var nilEnv *Env
	if err := nilEnv.Unused(); err != nil {
		t.Errorf("nil env: %v", err)
	}
}

func TestNewEnvValidation(t *testing.T) {
	cases := []struct {
		names  map[string]string
		values map[string]attr.Value
		want   string
	}{
		{map[string]string{}, nil, "ExpressionAttributeNames must not be empty"},
		{nil, map[string]attr.Value{}, "ExpressionAttributeValues must not be empty"},
		{map[string]string{"a": "a"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{map[string]string{"#a-b": "a"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"`},
		{nil, map[string]attr.Value{"v": attr.String("x")}, `ExpressionAttributeValues contains invalid key: Syntax error; key: "v"`},
		{map[string]string{"#ok_1": "a"}, map[string]attr.Value{":ok_2": attr.String("x")}, ""},
		// Of several invalid keys, the first in sorted order is named.
		{map[string]string{"#ok": "a", "z": "a", "#b-c": "a", "b": "a"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#b-c"`},
		{map[string]string{"#ok": "a", "x": "a", "": "a"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: ""`},
		// A name that stands for "": the first such key in sorted order,
		// after the keys' syntax and before ExpressionAttributeValues.
		{map[string]string{"#a": ""}, nil, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{map[string]string{"#ok": "a", "#z": "", "#b": ""}, nil, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #b"},
		{map[string]string{"#a": "", "b": "b"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "b"`},
		{map[string]string{"#a": ""}, map[string]attr.Value{"v": attr.String("x")}, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{map[string]string{"#a": " "}, nil, ""},
	}
	for _, c := range cases {
		_, err := NewEnv(c.names, c.values)
		if got := errMsg(err); got != c.want {
			t.Errorf("NewEnv(%v, %v) = %q, want %q", c.names, c.values, got, c.want)
		}
	}
}

// A statement's placeholders may stand for "" (its identifier); the other
// checks hold for them as for a request's.
func TestNewStatementEnvTakesEmptyNames(t *testing.T) {
	if _, err := NewStatementEnv(map[string]string{"#n0": ""}, map[string]attr.Value{":v0": attr.String("x")}); err != nil {
		t.Errorf("empty name: %v", err)
	}
	_, err := NewStatementEnv(map[string]string{"n0": ""}, nil)
	if got := errMsg(err); got != `ExpressionAttributeNames contains invalid key: Syntax error; key: "n0"` {
		t.Errorf("invalid key: %q", got)
	}
	_, err = NewStatementEnv(nil, map[string]attr.Value{})
	if got := errMsg(err); got != "ExpressionAttributeValues must not be empty" {
		t.Errorf("empty values: %q", got)
	}
}

func TestNilEnvReportsUndefined(t *testing.T) {
	_, err := ParseCondition("a = :v", nil)
	if got := errMsg(err); got != "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v" {
		t.Errorf("got %s", got)
	}
}
