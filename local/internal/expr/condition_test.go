package expr

import (
	"testing"
)

const fixture = `{
 "pk": {"S": "STU#a91"},
 "name": {"S": "Ada Lovelace"},
 "age": {"N": "36"},
 "score": {"N": "-1.5"},
 "bin": {"B": "AQID"},
 "ok": {"BOOL": true},
 "nothing": {"NULL": true},
 "tags": {"SS": ["math", "poetry"]},
 "nums": {"NS": ["1", "2.5"]},
 "bins": {"BS": ["AQ==", "Ag=="]},
 "lst": {"L": [{"S": "x"}, {"N": "7"}, {"M": {"deep": {"S": "y"}}}]},
 "mp": {"M": {"a": {"M": {"b": {"N": "1"}}}, "s": {"S": "in"}}},
 "blank": {"S": ""}
}`

var condValues = map[string]string{
	":s": `{"S":"Ada Lovelace"}`, ":ada": `{"S":"Ada"}`, ":n36": `{"N":"36"}`, ":n36b": `{"N":"3.6E1"}`,
	":n10": `{"N":"10"}`, ":n40": `{"N":"40"}`, ":neg": `{"N":"-2"}`, ":zero": `{"N":"0"}`,
	":math": `{"S":"math"}`, ":t": `{"BOOL":true}`, ":null": `{"NULL":true}`, ":b1": `{"B":"AQ=="}`,
	":b01": `{"B":"AQI="}`, ":n2_5": `{"N":"2.50"}`, ":x": `{"S":"x"}`, ":love": `{"S":"Love"}`,
	":tSS": `{"S":"SS"}`, ":tN": `{"S":"N"}`, ":tM": `{"S":"M"}`, ":tL": `{"S":"L"}`, ":tS": `{"S":"S"}`,
	":n3": `{"N":"3"}`, ":n2": `{"N":"2"}`, ":ss": `{"SS":["poetry","math"]}`, ":in": `{"S":"in"}`,
	":n1": `{"N":"1"}`, ":n7": `{"N":"7"}`, ":y": `{"S":"y"}`, ":a": `{"S":"A"}`, ":z": `{"S":"z"}`,
}

func TestConditionEval(t *testing.T) {
	it := item(t, fixture)
	cases := []struct {
		expr string
		want bool
	}{
		// comparators
		{"#n = :s", true},
		{"#n = :ada", false},
		{"age = :n36b", true},
		{"age <> :n36", false},
		{"age <> :s", true},
		{"absent <> :s", true},
		{"absent = :s", false},
		{"age < :n40", true},
		{"age <= :n36", true},
		{"age > :n36", false},
		{"age >= :n36", true},
		{"score < :zero", true},
		{"score > :neg", true},
		{"#n > :ada", true},
		{"#n < :ada", false},
		{"age < :s", false},
		{"bin > :b1", true},
		{"bin < :b01", false},
		{"ok = :t", true},
		{"ok < :t", false},
		{"nothing = :null", true},
		{"tags = :ss", true},
		{"nums = :nums2", true},
		{"mp.a.b = :n1", true},
		{"#m.s = :in", true},
		{"lst[1] = :n7", true},
		{"lst[2].deep = :y", true},
		{"lst[9] = :n7", false},
		{"mp.absent.b = :n1", false},
		{"age = age2", false},
		// BETWEEN and IN
		{"age BETWEEN :n10 AND :n40", true},
		{"age between :n36 and :n36b", true},
		{"age BETWEEN :n40 AND :n40", false},
		{"#n BETWEEN :love AND :z", false},
		{"#n BETWEEN :ada AND :z", true},
		{"age BETWEEN :a AND :z", false},
		{"age IN (:n10, :n36)", true},
		{"age IN (:n10, :n40)", false},
		{"#n IN (:s)", true},
		{"absent IN (:s)", false},
		// logic and precedence
		{"age = :n36 AND #n = :s", true},
		{"age = :n10 OR #n = :s", true},
		{"age = :n10 OR #n = :ada AND age = :n36", false},
		{"(age = :n10 OR #n = :s) AND age = :n36", true},
		{"NOT age = :n10", true},
		{"NOT (age = :n36)", false},
		{"NOT age = :n10 AND NOT age = :n40", true},
		{"age = :n10 OR NOT (age = :n10)", true},
		{"(age) = :n36", true},
		// functions
		{"attribute_exists(age)", true},
		{"attribute_exists(mp.a.b)", true},
		{"attribute_exists(lst[5])", false},
		{"attribute_not_exists(absent)", true},
		{"attribute_not_exists(pk)", false},
		{"attribute_type(tags, :tSS)", true},
		{"attribute_type(age, :tN)", true},
		{"attribute_type(mp, :tM)", true},
		{"attribute_type(lst, :tL)", true},
		{"attribute_type(age, :tS)", false},
		{"attribute_type(absent, :tS)", false},
		{"begins_with(#n, :ada)", true},
		{"begins_with(#n, :love)", false},
		{"begins_with(bin, :b01)", true},
		{"begins_with(age, :ada)", false},
		{"begins_with(absent, :ada)", false},
		{"contains(#n, :love)", true},
		{"contains(#n, :x)", false},
		{"contains(tags, :math)", true},
		{"contains(tags, :ada)", false},
		{"contains(nums, :n2_5)", true},
		{"contains(bins, :b1)", true},
		{"contains(lst, :x)", true},
		{"contains(lst, :n7)", true},
		{"contains(lst, :y)", false},
		{"contains(age, :n36)", false},
		{"contains(bin, :b01)", true},
		{"size(#n) = :n12", true},
		{"size(tags) = :n2", true},
		{"size(lst) = :n3", true},
		{"size(mp) = :n2", true},
		{"size(bin) = :n3", true},
		{"size(blank) = :zero", true},
		{"size(age) = :n2", false},
		{"size(absent) = :zero", false},
		{"size(#n) > size(tags)", true},
		{"size(lst) BETWEEN :n2 AND :n3", true},
	}
	vals := map[string]string{":n12": `{"N":"12"}`, ":nums2": `{"NS":["2.5","1"]}`}
	for k, v := range condValues {
		vals[k] = v
	}
	for _, c := range cases {
		e := env(t, map[string]string{"#n": "name", "#m": "mp"}, vals)
		cond, err := ParseCondition(c.expr, e)
		if err != nil {
			t.Errorf("ParseCondition(%q): %v", c.expr, err)
			continue
		}
		got, err := cond.Eval(it)
		if err != nil || got != c.want {
			t.Errorf("Eval(%q) = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
}

func TestConditionOnMissingItem(t *testing.T) {
	e := env(t, nil, map[string]string{":v": `{"N":"1"}`})
	c, err := ParseCondition("attribute_not_exists(pk) AND version <> :v", e)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Eval(nil); !ok {
		t.Error("a put guarded by attribute_not_exists must pass on a absent item")
	}
}

func TestConditionNames(t *testing.T) {
	e := env(t, map[string]string{"#s": "status"}, map[string]string{":v": `{"N":"1"}`})
	c, err := ParseCondition("a.b = :v AND (#s = :v OR size(c[1]) > :v) AND a = :v", e)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Names()
	want := []string{"a", "status", "c"}
	if len(got) != len(want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Names() = %v, want %v", got, want)
		}
	}
}

func TestConditionErrors(t *testing.T) {
	names := map[string]string{"#n": "name", "#u": "unused"}
	vals := map[string]string{":s": `{"S":"a"}`, ":s2": `{"S":"b"}`, ":n": `{"N":"1"}`, ":bool": `{"BOOL":true}`, ":ss": `{"SS":["a"]}`}
	cases := []parseErrCase{
		{"", "Invalid ConditionExpression: The expression can not be empty;"},
		{"a = = :s", `Invalid ConditionExpression: Syntax error; token: "=", near: "= = :s"`},
		{"a-b", `Invalid ConditionExpression: Syntax error; token: "-", near: "a-b"`},
		{"a =", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "="`},
		{"NOT #n", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "#n"`},
		{"()", `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`},
		{"a = :s ! b", `Invalid ConditionExpression: Syntax error; token: "!", near: ":s ! b"`},
		{"a = :s AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{"a AND b", `Invalid ConditionExpression: Syntax error; token: "AND", near: "a AND b"`},
		{"a = 5", `Invalid ConditionExpression: Syntax error; token: "5", near: "= 5"`},
		{"a[x] = :s", `Invalid ConditionExpression: Syntax error; token: "x", near: "[x]"`},
		{"status = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"a.Data = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Data"},
		{"#x = :s", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"a = :x", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"attribute_exists(a, b)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"attribute_exists(:s)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"begins_with(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"attribute_type(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type(a, :s)", "Invalid ConditionExpression: Invalid attribute type name found; type: a, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{"size(:bool) = :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"attribute_exists(a) = :bool", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"a = a", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"contains(#n, name2) AND contains(b.c, b.c)", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [b, c]"},
		{"a BETWEEN :s AND :n", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {S:a}, upper bound operand: AttributeValue: {N:1}"},
		{"a BETWEEN :s2 AND :s", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{"((a = :s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"((a)) = :s", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		// priority: redundant parentheses beat an unknown function, which beats a reserved word
		{"status = :x AND foo(a) AND ((b = :s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"status = :x AND foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"status = :x", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
	}
	wantParseErrors(t, "ParseCondition", func(expr string) error {
		_, err := ParseCondition(expr, env(t, names, vals))
		return err
	}, cases)
	_, err := ParseFilter("status = :s", env(t, nil, vals))
	if got := errMsg(err); got != "Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: status" {
		t.Errorf("filter prefix: %s", got)
	}
}

func TestConditionAcceptsValidForms(t *testing.T) {
	vals := map[string]string{":s": `{"S":"a"}`, ":n": `{"N":"1"}`}
	for _, s := range []string{
		"(a = :s)",
		"(a = :s) AND (b = :s)",
		"((a = :s) AND (b = :s))",
		"(a) = (:s)",
		"a.b[0].c = :s",
		"a . b [ 0 ] = :s",
		"size(a) > :n",
		"(size(a)) > :n",
		"a IN (:s,:n)",
		"NOT NOT a = :s",
		"a=:s and b<>:s or not c>=:n",
		"contains(a, :s)",
	} {
		if _, err := ParseCondition(s, env(t, nil, vals)); err != nil {
			t.Errorf("ParseCondition(%q): %v", s, err)
		}
	}
}

func TestInLimit(t *testing.T) {
	vals := map[string]string{":n": `{"N":"1"}`}
	list := ":n"
	for i := 1; i < 101; i++ {
		list += ", :n"
	}
	_, err := ParseCondition("a IN ("+list+")", env(t, nil, vals))
	if got := errMsg(err); got != "Invalid ConditionExpression: Too many operands for operator or function; operator or function: IN, number of operands: 101" {
		t.Errorf("101 IN operands: %s", got)
	}
}
