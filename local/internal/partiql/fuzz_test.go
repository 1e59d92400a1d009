package partiql

import (
	"errors"
	"strings"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// FuzzParse checks that any text is either refused with an *Error or
// parsed into a statement whose translation is refused with an *Error or
// yields expressions the item API's parser reads without a syntax error:
// the generated text is always well formed, so every refusal a user sees is
// about the statement.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "tbl" WHERE pk = 'a' AND sk BETWEEN 1 AND 5 ORDER BY sk DESC`,
		`SELECT a.b[1], "c d" FROM tbl."idx" WHERE x IN [1, 'two', ?] OR NOT attribute_exists(y)`,
		`INSERT INTO tbl VALUE {'pk': ?, 'sk': -1.5e3, 's': <<'a'>>, 'l': [true, null, {'k': 1}]}`,
		`UPDATE tbl SET a = a + 1, s = set_add(s, <<1, 2>>) REMOVE b[0] WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`,
		`DELETE FROM tbl WHERE pk = ? AND sk = 2 AND v IS NOT MISSING RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = 1 AND size(v) > 3)`,
		`FROM tbl WHERE pk = 'a' AND sk = 1 SET v = list_append(v, [1]) -- done`,
		`SELECT * FROM tbl WHERE pk = 'a' AND (attribute_exists(x) = true OR contains(s, 'z') <> false)`,
		`SELECT * FROM tbl WHERE /* c */ x IS BOOL AND y IS NULL AND z != 1;`,
	} {
		f.Add(s)
	}
	params := []attr.Value{attr.String("a"), attr.Int(1), attr.Null()}
	f.Fuzz(func(t *testing.T, src string) {
		st, err := Parse(src)
		if err != nil {
			wantError(t, src, err)
			return
		}
		for _, sc := range []Schema{composite, hashOnly} {
			switch s := st.(type) {
			case *Select:
				rd, err := PlanSelect(s, sc, params, true)
				if err != nil {
					wantError(t, src, err)
					continue
				}
				e := fuzzEnv(t, rd.Placeholders)
				readable(t, src, rd.Filter, e, expr.ParseFilter)
				for _, b := range rd.Branches {
					readable(t, src, b.Filter, e, expr.ParseFilter)
				}
			default:
				w, err := PlanWrite(st, sc, params, false)
				if err != nil {
					wantError(t, src, err)
					continue
				}
				e := fuzzEnv(t, w.Placeholders)
				readable(t, src, w.Condition, e, expr.ParseCondition)
				readable(t, src, w.Update, e, func(s string, e *expr.Env) (*expr.Update, error) { return expr.ParseUpdate(s, e) })
			}
		}
	})
}

func wantError(t *testing.T, src string, err error) {
	var pe *Error
	if !errors.As(err, &pe) || pe.Msg == "" {
		t.Fatalf("%q: error %T %v, want *Error with a message", src, err, err)
	}
}

func fuzzEnv(t *testing.T, ph Placeholders) *expr.Env {
	e, err := expr.NewEnv(ph.Names, ph.Values)
	if err != nil {
		t.Fatalf("placeholders %v: %v", ph, err)
	}
	return e
}

// readable fails when generated expression text is not well formed.
func readable[T any](t *testing.T, src, text string, e *expr.Env, parse func(string, *expr.Env) (T, error)) {
	if text == "" {
		return
	}
	_, err := parse(text, e)
	var ee *expr.Error
	if err != nil && (!errors.As(err, &ee) || strings.Contains(ee.Msg, "Syntax error")) {
		t.Fatalf("%q translated to %q: %v", src, text, err)
	}
}
