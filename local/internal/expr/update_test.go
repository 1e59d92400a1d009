package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

var updValues = map[string]string{
	":one": `{"N":"1"}`, ":five": `{"N":"5"}`, ":half": `{"N":"0.5"}`, ":s": `{"S":"new"}`,
	":l": `{"L":[{"S":"z"}]}`, ":empty": `{"L":[]}`, ":ss": `{"SS":["c","a"]}`, ":ns": `{"NS":["3","1"]}`,
	":bs": `{"BS":["Aw=="]}`, ":m": `{"M":{"k":{"S":"v"}}}`, ":b9": `{"N":"9E+125"}`,
}

const updFixture = `{
 "pk": {"S": "k"},
 "n": {"N": "10"},
 "s": {"S": "old"},
 "l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "d"}]},
 "m": {"M": {"x": {"N": "1"}, "nest": {"M": {"y": {"S": "deep"}}}}},
 "tags": {"SS": ["a", "b"]},
 "ns": {"NS": ["1", "2"]},
 "bs": {"BS": ["AQ==", "Aw=="]}
}`

func TestUpdateApply(t *testing.T) {
	cases := []struct {
		expr string
		want map[string]string // attribute -> expected JSON value; "" means absent
	}{
		{"SET s = :s", map[string]string{"s": `{"S":"new"}`}},
		{"SET n = n + :one", map[string]string{"n": `{"N":"11"}`}},
		{"SET n = n - :half", map[string]string{"n": `{"N":"9.5"}`}},
		{"SET n = (n - :half)", map[string]string{"n": `{"N":"9.5"}`}},
		{"SET n = (n) + (:half)", map[string]string{"n": `{"N":"10.5"}`}},
		{"SET n = :five - n", map[string]string{"n": `{"N":"-5"}`}},
		{"SET c = if_not_exists(c, :five) + :one", map[string]string{"c": `{"N":"6"}`}},
		{"SET n = if_not_exists(n, :five)", map[string]string{"n": `{"N":"10"}`}},
		{"SET l = list_append(l, :l)", map[string]string{"l": `{"L":[{"S":"a"},{"S":"b"},{"S":"c"},{"S":"d"},{"S":"z"}]}`}},
		{"SET l = list_append(:l, l)", map[string]string{"l": `{"L":[{"S":"z"},{"S":"a"},{"S":"b"},{"S":"c"},{"S":"d"}]}`}},
		{"SET nl = list_append(if_not_exists(nl, :empty), :l)", map[string]string{"nl": `{"L":[{"S":"z"}]}`}},
		{"SET m.x = :s, m.nest.y = :five", map[string]string{"m": `{"M":{"nest":{"M":{"y":{"N":"5"}}},"x":{"S":"new"}}}`}},
		{"SET m.newkey = :m", map[string]string{"m": `{"M":{"nest":{"M":{"y":{"S":"deep"}}},"newkey":{"M":{"k":{"S":"v"}}},"x":{"N":"1"}}}`}},
		{"SET l[1] = :s", map[string]string{"l": `{"L":[{"S":"a"},{"S":"new"},{"S":"c"},{"S":"d"}]}`}},
		{"SET l[10] = :s", map[string]string{"l": `{"L":[{"S":"a"},{"S":"b"},{"S":"c"},{"S":"d"},{"S":"new"}]}`}},
		{"SET a = s, s = :s", map[string]string{"a": `{"S":"old"}`, "s": `{"S":"new"}`}},
		{"REMOVE s, m.x", map[string]string{"s": "", "m": `{"M":{"nest":{"M":{"y":{"S":"deep"}}}}}`}},
		{"REMOVE l[1], l[3]", map[string]string{"l": `{"L":[{"S":"a"},{"S":"c"}]}`}},
		{"REMOVE l[3], l[1]", map[string]string{"l": `{"L":[{"S":"a"},{"S":"c"}]}`}},
		{"REMOVE absent, m.absent, l[9]", map[string]string{"s": `{"S":"old"}`}},
		{"ADD n :five", map[string]string{"n": `{"N":"15"}`}},
		{"ADD cnt :one", map[string]string{"cnt": `{"N":"1"}`}},
		{"ADD tags :ss", map[string]string{"tags": `{"SS":["a","b","c"]}`}},
		{"ADD ns :ns", map[string]string{"ns": `{"NS":["1","2","3"]}`}},
		{"ADD newset :ss", map[string]string{"newset": `{"SS":["c","a"]}`}},
		{"ADD m.x :one", map[string]string{"m": `{"M":{"nest":{"M":{"y":{"S":"deep"}}},"x":{"N":"2"}}}`}},
		{"DELETE tags :ss", map[string]string{"tags": `{"SS":["b"]}`}},
		{"DELETE ns :ns", map[string]string{"ns": `{"NS":["2"]}`}},
		{"DELETE bs :bs", map[string]string{"bs": `{"BS":["AQ=="]}`}},
		{"DELETE absent :ss", map[string]string{"tags": `{"SS":["a","b"]}`}},
		{"SET s = :s REMOVE n ADD c :one DELETE tags :ss", map[string]string{"s": `{"S":"new"}`, "n": "", "c": `{"N":"1"}`, "tags": `{"SS":["b"]}`}},
		{"set s = :s remove n", map[string]string{"s": `{"S":"new"}`, "n": ""}},
	}
	for _, c := range cases {
		it := item(t, updFixture)
		before, _ := it.MarshalJSON()
		u, err := ParseUpdate(c.expr, env(t, nil, updValues))
		if err != nil {
			t.Errorf("ParseUpdate(%q): %v", c.expr, err)
			continue
		}
		out, err := u.Apply(it)
		if err != nil {
			t.Errorf("Apply(%q): %v", c.expr, err)
			continue
		}
		for name, want := range c.want {
			got, ok := out[name]
			if want == "" {
				if ok {
					t.Errorf("%q: %s should be removed, got %v", c.expr, name, got)
				}
				continue
			}
			if !ok || !attr.Equal(got, js(t, want)) {
				t.Errorf("%q: %s = %v, want %s", c.expr, name, got, want)
			}
		}
		if after, _ := it.MarshalJSON(); string(after) != string(before) {
			t.Errorf("%q mutated its input:\n%s\n%s", c.expr, before, after)
		}
	}
}

func TestUpdateDeleteLastElementRemovesSet(t *testing.T) {
	it := item(t, `{"tags":{"SS":["a","c"]}}`)
	u, err := ParseUpdate("DELETE tags :ss", env(t, nil, map[string]string{":ss": `{"SS":["a","c"]}`}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := u.Apply(it)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["tags"]; ok {
		t.Errorf("emptied set should be removed: %v", out)
	}
}

func TestUpdateRuntimeErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"SET s = s + :one", "An operand in the update expression has an incorrect data type"},
		{"SET n = absent + :one", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET x = absent", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET s = list_append(s, :l)", "An operand in the update expression has an incorrect data type"},
		{"SET absent.x = :s", "The document path provided in the update expression is invalid for update"},
		{"SET s.x = :s", "The document path provided in the update expression is invalid for update"},
		{"SET s[0] = :s", "The document path provided in the update expression is invalid for update"},
		{"SET l[7].x = :s", "The document path provided in the update expression is invalid for update"},
		{"ADD s :one", "An operand in the update expression has an incorrect data type"},
		{"ADD tags :ns", "An operand in the update expression has an incorrect data type"},
		{"DELETE tags :ns", "An operand in the update expression has an incorrect data type"},
		{"SET n = :b9 + :b9", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
	}
	for _, c := range cases {
		u, err := ParseUpdate(c.expr, env(t, nil, updValues))
		if err != nil {
			t.Errorf("ParseUpdate(%q): %v", c.expr, err)
			continue
		}
		_, err = u.Apply(item(t, updFixture))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Apply(%q)\n got: %s\nwant: %s", c.expr, got, c.want)
		}
	}
}

func TestUpdateParseErrors(t *testing.T) {
	cases := []parseErrCase{
		{"", "Invalid UpdateExpression: The expression can not be empty;"},
		{"INVALID SYNTAX HERE", `Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"`},
		{"SET a = :one SET b = :one", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"REMOVE a REMOVE b", `Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;`},
		{"SET a = :one, a = :five", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a.b = :one REMOVE a", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{"SET a[1] = :one REMOVE a.b", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [1]], path two: [a, b]"},
		{"ADD a :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"ADD a :m", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: MAP, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"DELETE a :one", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"SET a = list_append(a, :s)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{"SET a = a + :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"SET a = if_not_exists(:s, a)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"SET a = if_not_exists(a)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"SET a = foo(a, :s)", "Invalid UpdateExpression: Invalid function name; function: foo"},
		{"SET status = :s", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"SET #x = :s", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"SET a = :nope", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"SET a = :s,", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`},
		{"SET a :s", `Invalid UpdateExpression: Syntax error; token: ":s", near: "a :s"`},
		{"REMOVE a = :s", `Invalid UpdateExpression: Syntax error; token: "=", near: "a = :s"`},
		{"SET a = (b + :one) + :one", `Invalid UpdateExpression: Syntax error; token: "+", near: ") + :one"`},
		{"SET a = list_append(b, :one + :one)", `Invalid UpdateExpression: Syntax error; token: "+", near: ":one + :one"`},
	}
	wantParseErrors(t, "ParseUpdate", func(expr string) error {
		_, err := ParseUpdate(expr, env(t, nil, updValues))
		return err
	}, cases)
}

func TestUpdateNames(t *testing.T) {
	u, err := ParseUpdate("SET a.b = :one, c = :one REMOVE d ADD a2 :one", env(t, nil, updValues))
	if err != nil {
		t.Fatal(err)
	}
	got := u.Names()
	if len(got) != 4 || got[0] != "a" || got[1] != "c" || got[2] != "d" || got[3] != "a2" {
		t.Errorf("Names() = %v", got)
	}
}

func TestUpdateNestingLimit(t *testing.T) {
	// a.b.c... 31 levels deep of maps, then SET a value one level deeper
	deep := `{"S":"leaf"}`
	for range 30 {
		deep = `{"M":{"n":` + deep + `}}`
	}
	it := item(t, `{"a":`+deep+`}`)
	path := "a"
	for range 30 {
		path += ".n"
	}
	ok, err := ParseUpdate("SET "+path+" = :s", env(t, nil, map[string]string{":s": `{"S":"x"}`}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ok.Apply(it); err != nil {
		t.Errorf("replacing the level-31 leaf: %v", err)
	}
	tooDeep, err := ParseUpdate("SET "+path+" = :m", env(t, nil, map[string]string{":m": `{"M":{"x":{"M":{"y":{"S":"z"}}}}}`}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tooDeep.Apply(it); errMsg(err) != attr.ErrNesting {
		t.Errorf("nesting beyond 32 levels: %v", err)
	}
}
