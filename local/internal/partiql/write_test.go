package partiql

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// checkWrite fails unless w's expressions parse as the item API parses
// them, and returns them with their placeholders expanded.
func checkWrite(t *testing.T, w *Write) (cond, upd string) {
	t.Helper()
	e := env(t, w.Placeholders)
	if w.Condition != "" {
		if _, err := expr.ParseCondition(w.Condition, e); err != nil {
			t.Errorf("condition %q does not parse: %v", w.Condition, err)
		}
	}
	if w.Update != "" {
		if _, err := expr.ParseUpdate(w.Update, e); err != nil {
			t.Errorf("update %q does not parse: %v", w.Update, err)
		}
	}
	if err := e.Unused(); err != nil {
		t.Errorf("translation left placeholders unused: %v", err)
	}
	return expand(w.Condition, w.Placeholders), expand(w.Update, w.Placeholders)
}

func TestPlanInsert(t *testing.T) {
	w, err := parseWrite(t, `INSERT INTO tbl VALUE {'pk': ?, 'sk': 1.50, 's': <<'a', 'b'>>, 'n': <<1, 2.0>>, 'l': [1, 'x', null], 'm': {'b': true}}`,
		composite, attr.String("k"))
	if err != nil {
		t.Fatal(err)
	}
	cond, _ := checkWrite(t, w)
	if w.Kind != Put || cond != "attribute_not_exists(pk)" {
		t.Errorf("kind %v, condition %q", w.Kind, cond)
	}
	ss, _ := attr.StringSet("a", "b")
	ns, _ := attr.NumberSet("1", "2")
	want := attr.Item{"pk": attr.String("k"), "sk": num("1.5"), "s": ss, "n": ns,
		"l": attr.List([]attr.Value{num("1"), attr.String("x"), attr.Null()}), "m": attr.Map(map[string]attr.Value{"b": attr.Bool(true)})}
	if !attr.EqualItems(w.Item, want) {
		t.Errorf("item = %v\nwant %v", w.Item, want)
	}
}

func TestPlanUpdate(t *testing.T) {
	for _, c := range []struct{ src, cond, upd string }{
		{`UPDATE tbl SET a = 1 WHERE pk = 'x' AND sk = 2`, "attribute_exists(pk)", "SET a = 1"},
		{`UPDATE tbl SET n = n + 1, m.k[2] = 'v' SET c = list_append(c, [1]) REMOVE r, l[0] WHERE sk = 2 AND 'x' = pk AND v > 3`,
			"attribute_exists(pk) AND v > 3", `SET n = n + 1, m.k[2] = 'v', c = list_append(c, {"L":[{"N":"1"}]}) REMOVE r, l[0]`},
		{`UPDATE tbl SET s = set_add(s, <<'a'>>) SET t = set_delete(t, <<1>>) WHERE pk = 'x' AND sk = 2`,
			"attribute_exists(pk)", `ADD s {"SS":["a"]} DELETE t {"NS":["1"]}`},
		{`UPDATE tbl SET v = if_not_exists(v, 0) WHERE (pk = 'x' AND sk = 2) AND (a = 1 OR b IS MISSING)`,
			"attribute_exists(pk) AND (a = 1 OR attribute_not_exists(b))", "SET v = if_not_exists(v, 0)"},
		{`FROM tbl WHERE pk = 'x' AND sk = 2 AND pk = 'x' REMOVE gone`, "attribute_exists(pk)", "REMOVE gone"},
		{`UPDATE tbl SET "order" = 1 WHERE pk = 'x' AND sk = 2 AND attribute_exists("size")`,
			"attribute_exists(pk) AND attribute_exists(size)", "SET order = 1"},
	} {
		w, err := parseWrite(t, c.src, composite)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		cond, upd := checkWrite(t, w)
		if cond != c.cond || upd != c.upd {
			t.Errorf("%s:\n condition %q, want %q\n update    %q, want %q", c.src, cond, c.cond, upd, c.upd)
		}
		if !attr.EqualItems(w.Key, attr.Item{"pk": attr.String("x"), "sk": num("2")}) {
			t.Errorf("%s: key = %v", c.src, w.Key)
		}
	}
}

func TestPlanUpdateReturning(t *testing.T) {
	for ret, want := range map[string]string{"ALL OLD": "ALL_OLD", "MODIFIED OLD": "UPDATED_OLD", "ALL NEW": "ALL_NEW", "MODIFIED NEW": "UPDATED_NEW"} {
		w, err := parseWrite(t, `UPDATE tbl SET a = 1 WHERE pk = 'x' RETURNING `+ret+` *`, hashOnly)
		if err != nil {
			t.Fatal(err)
		}
		if w.Returning != want {
			t.Errorf("RETURNING %s = %q, want %q", ret, w.Returning, want)
		}
	}
}

func TestPlanDelete(t *testing.T) {
	w, err := parseWrite(t, `DELETE FROM tbl WHERE pk = 'x' AND sk = 2 AND attribute_exists(a) RETURNING ALL OLD *`, composite)
	if err != nil {
		t.Fatal(err)
	}
	if cond, _ := checkWrite(t, w); cond != "attribute_exists(a)" || w.Kind != DeleteItem || w.Returning != "ALL_OLD" {
		t.Errorf("condition %q kind %v returning %q", cond, w.Kind, w.Returning)
	}
	w, err = parseWrite(t, `DELETE FROM tbl WHERE pk = 'x' AND sk = 2`, composite)
	if err != nil {
		t.Fatal(err)
	}
	if w.Condition != "" {
		t.Errorf("DELETE by key alone has condition %q; a missing item is deleted without error", w.Condition)
	}
}

func TestPlanExists(t *testing.T) {
	st, err := Parse(`EXISTS(SELECT * FROM tbl WHERE pk = 'x' AND sk = 2 AND pk = 'y' AND Awards IS MISSING)`)
	if err != nil {
		t.Fatal(err)
	}
	w, err := PlanWrite(st, composite, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	cond, _ := checkWrite(t, w)
	if want := "attribute_exists(pk) AND pk = 'y' AND attribute_not_exists(Awards)"; cond != want || w.Kind != CheckItem {
		t.Errorf("condition %q, want %q (a second value for a key stays a condition)", cond, want)
	}
	for _, src := range []string{
		`EXISTS(SELECT * FROM tbl WHERE pk = 'x' AND sk = 2)`,
		`EXISTS(SELECT * FROM tbl WHERE pk = 'x' AND v = 2)`,
		`EXISTS(SELECT * FROM tbl)`,
	} {
		st, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = PlanWrite(st, composite, nil, true)
		wantMessage(t, src, err, "EXISTS() must contain a single item read with additional condition")
	}
}

func TestPlanWriteRefusals(t *testing.T) {
	for _, c := range []struct {
		src    string
		params []attr.Value
		msg    string
	}{
		{`UPDATE tbl SET a = 1 WHERE pk = 'x'`, nil, "Where clause does not contain a mandatory equality on all key attributes"},
		{`UPDATE tbl SET a = 1`, nil, "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM tbl WHERE pk = 'x' OR sk = 1`, nil, "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM tbl WHERE pk IN ['x'] AND sk = 1`, nil, "Where clause does not contain a mandatory equality on all key attributes"},
		{`UPDATE tbl SET a = 1 WHERE pk = 'x' AND sk = 1 AND pk = 'y'`, nil, "Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported"},
		{`UPDATE tbl SET a = 1 WHERE pk = 'x' AND sk = '1'`, nil, "Key attribute's data type should match its data type in table's schema: Key sk"},
		{`UPDATE tbl SET a = ? WHERE pk = 'x' AND sk = 1`, nil, "Number of parameters in request and statement don't match."},
		{`DELETE FROM tbl WHERE pk = 'x' AND sk = 1 RETURNING ALL NEW *`, nil, "Invalid returning clause: RETURNING ALL_NEW. Only RETURNING ALL OLD * is allowed in DELETE statements."},
		{`INSERT INTO tbl VALUE ?`, []attr.Value{attr.String("x")}, "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'pk': 'b'}`, nil, "Duplicate keys in tuple. Key: pk under root"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'm': {'k': ?}}`, []attr.Value{attr.String("v")}, "Unsupported data type: Parameter under key root.k at 1:46:1"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'n': 1e126}`, nil, "Number overflow. Attempting to store a number with magnitude larger than supported range under root"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'l': [1, 1e126]}`, nil, "Number overflow. Attempting to store a number with magnitude larger than supported range under root[1]"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 's': <<>>}`, nil, "Empty bags are not supported"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 's': <<'a', 1>>}`, nil, "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 's': <<'b', 'b'>>}`, nil, "One or more parameter values were invalid: Input collection [b, b] contains duplicates."},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'n': <<2, 2.0>>}`, nil, "One or more parameter values were invalid: Input collection [2, 2.0] contains duplicates! under root"},
		{`INSERT INTO tbl VALUE {'pk': 'a', 'ss': set_add(<<'a'>>, <<'b'>>)}`, nil, "Unsupported data type: set_add under key root at 1:41:7"},
		{`UPDATE tbl SET t = set_add(ss, <<'x'>>) WHERE pk = 'x' AND sk = 1`, nil, "The first argument to SET_ADD must equal the assignment value at 1:20:7"},
		{`UPDATE tbl SET ss = set_add(ss, 'x') WHERE pk = 'x' AND sk = 1`, nil, "The second argument to SET_ADD must be a value with type SET at 1:29:2"},
		{`UPDATE tbl SET ss = set_delete(ss) WHERE pk = 'x' AND sk = 1`, nil, "SET_DELETE must have exactly two arguments at 1:21:10"},
		{`UPDATE tbl SET n = 'a' + 1 WHERE pk = 'x' AND sk = 1`, nil, "Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{`UPDATE tbl SET n = n - null WHERE pk = 'x' AND sk = 1`, nil, "Incorrect operand type for operator or function; operator or function: -, operand type: NULL"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND n IS NULL OR n IS INT`, nil, "Unsupported data type for IS operator: INTEGER. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND EXISTS(a)`, nil, "Unrecognized function: exists at 1:52:6"},
		{`UPDATE tbl SET d = {'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}} WHERE pk = 'x' AND sk = 1`, nil,
			"Nesting Levels have exceeded supported limits under root.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND flag IN [` + repeatList(101) + `]`, nil, "The IN operator is provided with too many operands; number of operands: 101"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND a = MISSING`, nil, "MISSING must be compared using IS operator"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND a LIKE 'b%'`, nil, "Unsupported operator in Condition Expression. Operator: like"},
		{`UPDATE tbl SET n = n * 2 WHERE pk = 'x' AND sk = 1`, nil, "Unsupported operator in Update Expression. Operator: *"},
		{`UPDATE tbl SET l = list_append(l + l, [1]) WHERE pk = 'x' AND sk = 1`, nil, "Unsupported operator in Update Expression. Operator: +"},
		{`UPDATE tbl SET n = if_not_exists(n, 0 - 1) WHERE pk = 'x' AND sk = 1`, nil, "Unsupported operator in Update Expression. Operator: -"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND val < true`, nil, "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
		{`UPDATE tbl SET n = 1 WHERE pk = 'x' AND sk = 1 AND val BETWEEN [1] AND [2]`, nil, "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"},
	} {
		_, err := parseWrite(t, c.src, composite, c.params...)
		wantMessage(t, c.src, err, c.msg)
	}
}

func repeatList(n int) string {
	s := ""
	for i := range n {
		if i > 0 {
			s += ","
		}
		s += "'v'"
	}
	return s
}

// In a transaction a WHERE that misses key attributes is not refused at
// translation: the item operation refuses the key, and the transaction
// reports it as the statement's cancellation reason.
func TestPlanWriteInTransactionLeavesKeysToTheItemOperation(t *testing.T) {
	st, err := Parse(`UPDATE tbl SET a = 1 WHERE pk = 'x'`)
	if err != nil {
		t.Fatal(err)
	}
	w, err := PlanWrite(st, composite, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !attr.EqualItems(w.Key, attr.Item{"pk": attr.String("x")}) {
		t.Errorf("key = %v", w.Key)
	}
	st, err = Parse(`UPDATE tbl SET a = 1 WHERE pk = 'x' AND sk = 1 AND pk = 'y'`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = PlanWrite(st, composite, nil, true)
	if pe, ok := err.(*Error); !ok || !pe.Cancels {
		t.Errorf("two values for one key: %v, want an error that cancels", err)
	}
}

// Comparisons of a condition with TRUE or FALSE are the condition or its
// negation; anything else compared with a condition is refused.
func TestPlanBooleanComparisons(t *testing.T) {
	for src, want := range map[string]string{
		"attribute_exists(nope) = false":   "attribute_exists(pk) AND NOT attribute_exists(nope)",
		"true = attribute_exists(n)":       "attribute_exists(pk) AND attribute_exists(n)",
		"(n BETWEEN 0 AND 5) <> true":      "attribute_exists(pk) AND NOT n BETWEEN 0 AND 5",
		"NOT attribute_exists(n) = true":   "attribute_exists(pk) AND NOT attribute_exists(n)",
		"contains(s, 'z') = false":         "attribute_exists(pk) AND NOT contains(s, 'z')",
		"x <> 1 AND y != 2":                "attribute_exists(pk) AND x <> 1 AND y <> 2",
		"n IS NOT NULL AND b IS BOOL":      `attribute_exists(pk) AND NOT n = {"NULL":true} AND attribute_type(b, 'BOOL')`,
		"x NOT IN [1, 2] AND NOT y IN (3)": "attribute_exists(pk) AND NOT x IN (1, 2) AND NOT y IN (3)",
		"size(s) > 3":                      "attribute_exists(pk) AND size(s) > 3",
	} {
		w, err := parseWrite(t, `UPDATE tbl SET a = 1 WHERE pk = 'x' AND `+src, hashOnly)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if cond, _ := checkWrite(t, w); cond != want {
			t.Errorf("%s:\n got  %q\n want %q", src, cond, want)
		}
	}
}

// The rendered condition keeps the statement's grouping: evaluated by the
// expression package on every combination of a, b and c, it agrees with
// the PartiQL condition's meaning.
func TestPlanConditionKeepsGrouping(t *testing.T) {
	for src, want := range map[string]func(a, b, c bool) bool{
		"a = 1 AND b = 1 OR c = 1":          func(a, b, c bool) bool { return a && b || c },
		"a = 1 AND (b = 1 OR c = 1)":        func(a, b, c bool) bool { return a && (b || c) },
		"NOT (a = 1 OR b = 1) AND c = 1":    func(a, b, c bool) bool { return !(a || b) && c },
		"NOT a = 1 OR b = 1":                func(a, b, c bool) bool { return !a || b },
		"(a = 1 OR b = 1) = false OR c = 1": func(a, b, c bool) bool { return !(a || b) || c },
		"a = 1 OR b = 1 AND NOT (c = 1)":    func(a, b, c bool) bool { return a || b && !c },
		"NOT (NOT (a = 1 AND b = 1))":       func(a, b, c bool) bool { return a && b },
	} {
		w, err := parseWrite(t, `DELETE FROM tbl WHERE pk = 'x' AND (`+src+`)`, hashOnly)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		c, err := expr.ParseCondition(w.Condition, env(t, w.Placeholders))
		if err != nil {
			t.Fatalf("%s: %q: %v", src, w.Condition, err)
		}
		for i := range 8 {
			a, b, cc := i&1 != 0, i&2 != 0, i&4 != 0
			it := attr.Item{}
			for name, on := range map[string]bool{"a": a, "b": b, "c": cc} {
				if on {
					it[name] = num("1")
				} else {
					it[name] = num("0")
				}
			}
			got, _ := c.Eval(it)
			if got != want(a, b, cc) {
				t.Errorf("%s as %q: a=%v b=%v c=%v gives %v", src, expand(w.Condition, w.Placeholders), a, b, cc, got)
			}
		}
	}
}
