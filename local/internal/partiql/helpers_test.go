package partiql

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// composite is a table keyed by pk (S) and sk (N).
var composite = Schema{Hash: "pk", Range: "sk", HashKind: attr.S, RangeKind: attr.N}

// hashOnly is a table keyed by pk (S).
var hashOnly = Schema{Hash: "pk", HashKind: attr.S}

// show renders a value compactly for expected strings: 'text', 12, or the
// wire JSON of anything else.
func show(v attr.Value) string {
	switch v.Kind {
	case attr.S:
		return "'" + v.Str + "'"
	case attr.N:
		return v.Str
	}
	b, _ := v.MarshalJSON()
	return string(b)
}

// expand replaces the placeholders of an expression with the names and
// values they stand for, so tests read like the statement.
func expand(s string, ph Placeholders) string {
	var keys []string
	for k := range ph.Names {
		keys = append(keys, k)
	}
	for k := range ph.Values {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	for _, k := range keys {
		if n, ok := ph.Names[k]; ok {
			s = strings.ReplaceAll(s, k, n)
		} else {
			s = strings.ReplaceAll(s, k, show(ph.Values[k]))
		}
	}
	return s
}

// env is the expression environment of translated placeholders.
func env(t *testing.T, ph Placeholders) *expr.Env {
	t.Helper()
	e, err := expr.NewEnv(ph.Names, ph.Values)
	if err != nil {
		t.Fatalf("placeholders: %v", err)
	}
	return e
}

// parseWrite parses and translates a write statement.
func parseWrite(t *testing.T, src string, sc Schema, params ...attr.Value) (*Write, error) {
	t.Helper()
	st, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return PlanWrite(st, sc, params, false)
}

// parseRead parses and translates a SELECT.
func parseRead(t *testing.T, src string, sc Schema, params ...attr.Value) (*Read, error) {
	t.Helper()
	st, err := Parse(src)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*Select)
	if !ok {
		t.Fatalf("%s: parsed as %T", src, st)
	}
	return PlanSelect(sel, sc, params, true)
}

// wantMessage fails unless err is a partiql *Error with message msg.
func wantMessage(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Errorf("%s: error = %v (%T), want *Error %q", what, err, err, msg)
		return
	}
	if pe.Msg != msg {
		t.Errorf("%s:\n got  %q\n want %q", what, pe.Msg, msg)
	}
}

func num(s string) attr.Value {
	v, err := attr.Number(s)
	if err != nil {
		panic(err)
	}
	return v
}
