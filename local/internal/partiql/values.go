package partiql

import (
	"errors"
	"strconv"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// Schema is what translation needs to know about the table or index a
// statement names: its key attributes and their types.
type Schema struct {
	Hash, Range         string    // Range is "" for a table without a sort key
	HashKind, RangeKind attr.Kind // S, N or B
}

func (sc Schema) keyNames() []string {
	if sc.Range == "" {
		return []string{sc.Hash}
	}
	return []string{sc.Hash, sc.Range}
}

func (sc Schema) kind(name string) attr.Kind {
	if name == sc.Hash {
		return sc.HashKind
	}
	return sc.RangeKind
}

// CheckParams refuses a request with fewer parameters than the statement
// has ? placeholders. DynamoDB accepts extra parameters.
func CheckParams(st Statement, params []attr.Value) error {
	if st.Params() > len(params) {
		return errorf(msgParamCount)
	}
	return nil
}

// constant reports whether e denotes a value known before any item is read:
// a literal, a parameter or a collection of them.
func constant(e Expr) bool {
	switch e.(type) {
	case *LitExpr, *ParamExpr, *ListExpr, *BagExpr, *MapExpr:
		return true
	}
	return false
}

// value converts a constant to an attribute value. path names its place in
// DynamoDB's messages ("root", "root.a", "root[1]"), depth is its nesting
// level (1 at the top).
func value(e Expr, params []attr.Value, path string, depth int) (attr.Value, error) {
	if depth > attr.MaxDepth {
		return attr.Value{}, errorf("Nesting Levels have exceeded supported limits under %s", path)
	}
	switch e := e.(type) {
	case *LitExpr:
		if e.Num == "" {
			return e.V, nil
		}
		v, err := attr.Number(e.Num)
		if err != nil {
			return attr.Value{}, errorf("%s under %s", validationText(err), path)
		}
		return v, nil
	case *ParamExpr:
		if depth > 1 {
			return attr.Value{}, errorAt(e.Pos, "Unsupported data type: Parameter under key %s", path)
		}
		if e.N >= len(params) {
			return attr.Value{}, errorf(msgParamCount)
		}
		return params[e.N], nil
	case *ListExpr:
		l := make([]attr.Value, 0, len(e.Elems))
		for i, el := range e.Elems {
			v, err := value(el, params, path+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return attr.Value{}, err
			}
			l = append(l, v)
		}
		return attr.List(l), nil
	case *MapExpr:
		m := make(map[string]attr.Value, len(e.Keys))
		for i, k := range e.Keys {
			name, err := tupleKey(k, path)
			if err != nil {
				return attr.Value{}, err
			}
			if _, dup := m[name]; dup {
				return attr.Value{}, errorf("Duplicate keys in tuple. Key: %s under %s", name, path)
			}
			v, err := value(e.Vals[i], params, path+"."+name, depth+1)
			if err != nil {
				return attr.Value{}, err
			}
			m[name] = v
		}
		return attr.Map(m), nil
	case *BagExpr:
		return bag(e, path)
	case *CallExpr:
		return attr.Value{}, errorAt(e.Pos, "Unsupported data type: %s under key %s", e.Name, path)
	case *MissingExpr:
		return attr.Value{}, errorAt(e.Pos, "Unsupported data type: MISSING under key %s", path)
	}
	return attr.Value{}, errorAt(e.position(), "Unsupported data type: %s under key %s", kindName(e), path)
}

// tupleKey reads the name of a tuple member, which must be a string.
func tupleKey(k Expr, path string) (string, error) {
	if lit, ok := k.(*LitExpr); ok && lit.Num == "" && lit.V.Kind == attr.S {
		return lit.V.Str, nil
	}
	typ := "UNKNOWN"
	switch k := k.(type) {
	case *LitExpr:
		typ = "DECIMAL"
		if k.Num == "" {
			typ = k.V.Kind.String()
		}
	case *ParamExpr:
		typ = "PARAMETER"
	}
	return "", errorf("Tuple keys must be of type String. Actual type: %s under %s", typ, path)
}

// bag converts <<...>>: a string or number set of literals.
func bag(e *BagExpr, path string) (attr.Value, error) {
	if len(e.Elems) == 0 {
		return attr.Value{}, errorf(msgEmptyBag)
	}
	var strs, texts []string
	kind := attr.Invalid
	for _, el := range e.Elems {
		lit, ok := el.(*LitExpr)
		k := attr.Invalid
		switch {
		case ok && lit.Num != "":
			k = attr.NS
		case ok && lit.V.Kind == attr.S:
			k = attr.SS
		}
		if k == attr.Invalid || kind != attr.Invalid && k != kind {
			return attr.Value{}, errorf(msgBagType)
		}
		kind = k
		if k == attr.SS {
			strs = append(strs, lit.V.Str)
			continue
		}
		v, err := attr.Number(lit.Num)
		if err != nil {
			return attr.Value{}, errorf("%s under %s", validationText(err), path)
		}
		strs = append(strs, v.Str)
		texts = append(texts, lit.Num)
	}
	if kind == attr.SS {
		v, err := attr.StringSet(strs...)
		if err != nil {
			return attr.Value{}, errorf("%s", validationText(err))
		}
		return v, nil
	}
	v, err := attr.NumberSet(strs...)
	if err != nil {
		return attr.Value{}, errorf("One or more parameter values were invalid: Input collection [%s] contains duplicates! under %s", strings.Join(texts, ", "), path)
	}
	return v, nil
}

// validationText is the message of an attribute validation error.
func validationText(err error) string {
	var ve *attr.ValidationError
	if errors.As(err, &ve) {
		return ve.Msg
	}
	return err.Error()
}
