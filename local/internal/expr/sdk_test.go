package expr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/attr"
)

// fromSDK converts an SDK attribute value so builder output can be parsed.
func fromSDK(t *testing.T, av types.AttributeValue) attr.Value {
	t.Helper()
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return attr.String(v.Value)
	case *types.AttributeValueMemberN:
		n, err := attr.Number(v.Value)
		if err != nil {
			t.Fatal(err)
		}
		return n
	case *types.AttributeValueMemberBOOL:
		return attr.Bool(v.Value)
	case *types.AttributeValueMemberSS:
		s, err := attr.StringSet(v.Value...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	case *types.AttributeValueMemberL:
		l := make([]attr.Value, len(v.Value))
		for i, e := range v.Value {
			l[i] = fromSDK(t, e)
		}
		return attr.List(l)
	}
	t.Fatalf("unsupported SDK value %T", av)
	return attr.Value{}
}

func sdkEnv(t *testing.T, e expression.Expression) *Env {
	vals := map[string]attr.Value{}
	for k, v := range e.Values() {
		vals[k] = fromSDK(t, v)
	}
	if len(vals) == 0 {
		vals = nil
	}
	env, err := NewEnv(e.Names(), vals)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestSDKBuilderOutput parses what aws-sdk-go-v2's expression builder emits
// (adjl builds every expression with it): spaces before function
// parentheses, fully parenthesised conditions, newline-separated sections.
func TestSDKBuilderOutput(t *testing.T) {
	keyCond := expression.Key("PK").Equal(expression.Value("STU#a91")).
		And(expression.Key("SK").BeginsWith("ENROLL#"))
	cond := expression.AttributeNotExists(expression.Name("PK")).
		Or(expression.Name("status").Equal(expression.Value("active")).
			And(expression.Name("tags").Contains("x")).
			And(expression.Name("n").Between(expression.Value(1), expression.Value(5))).
			And(expression.Size(expression.Name("tags")).GreaterThan(expression.Value(0))).
			And(expression.Name("n").In(expression.Value(1), expression.Value(2))))
	upd := expression.Set(expression.Name("updatedAt"), expression.Value("2026")).
		Set(expression.Name("count"), expression.Name("count").Plus(expression.Value(1))).
		Set(expression.Name("log"), expression.ListAppend(expression.Name("log"), expression.Value([]string{"e"}))).
		Add(expression.Name("courseCount"), expression.Value(1)).
		Remove(expression.Name("old"))
	proj := expression.NamesList(expression.Name("PK"), expression.Name("meta.by"), expression.Name("grade"))
	e, err := expression.NewBuilder().WithKeyCondition(keyCond).WithCondition(cond).
		WithUpdate(upd).WithProjection(proj).Build()
	if err != nil {
		t.Fatal(err)
	}
	env := sdkEnv(t, e)
	kc, err := ParseKeyCondition(*e.KeyCondition(), env)
	if err != nil {
		t.Fatalf("key condition %q: %v", *e.KeyCondition(), err)
	}
	if err := kc.Bind("PK", "SK"); err != nil || kc.Sort == nil || kc.Sort.Op != BEGINSWITH {
		t.Fatalf("bind %q: %v %+v", *e.KeyCondition(), err, kc.Sort)
	}
	c, err := ParseCondition(*e.Condition(), env)
	if err != nil {
		t.Fatalf("condition %q: %v", *e.Condition(), err)
	}
	it := item(t, `{"PK":{"S":"p"},"status":{"S":"active"},"tags":{"SS":["x"]},"n":{"N":"2"},"count":{"N":"4"},"log":{"L":[]}}`)
	if ok, _ := c.Eval(it); !ok {
		t.Errorf("condition %q should hold", *e.Condition())
	}
	u, err := ParseUpdate(*e.Update(), env)
	if err != nil {
		t.Fatalf("update %q: %v", *e.Update(), err)
	}
	out, err := u.Apply(it)
	if err != nil {
		t.Fatal(err)
	}
	if out["count"].Str != "5" || out["courseCount"].Str != "1" || len(out["log"].List) != 1 {
		t.Errorf("update %q gave %v", *e.Update(), out)
	}
	if _, err := ParseProjection(*e.Projection(), env); err != nil {
		t.Fatalf("projection %q: %v", *e.Projection(), err)
	}
	if err := env.Unused(); err != nil {
		t.Errorf("builder placeholders all used, got %v", err)
	}
}
