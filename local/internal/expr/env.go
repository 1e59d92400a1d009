package expr

import (
	"maps"
	"slices"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// Env holds a request's ExpressionAttributeNames and ExpressionAttributeValues
// and records which ones its expressions used, because DynamoDB rejects
// requests that define placeholders no expression refers to. Parse every
// expression of a request with the same Env, then call Unused.
type Env struct {
	Names  map[string]string
	Values map[string]attr.Value

	usedNames  map[string]struct{}
	usedValues map[string]struct{}
}

// NewEnv validates the placeholder maps the way DynamoDB does before any
// expression is parsed: they must not be empty when present, keys must be
// "#" or ":" followed by letters, digits or underscores, and no name may
// stand for "".
func NewEnv(names map[string]string, values map[string]attr.Value) (*Env, error) {
	return newEnv(names, values, true)
}

// NewStatementEnv is NewEnv for the placeholders the engine writes for a
// PartiQL statement: their names are the statement's identifiers, which the
// check of ExpressionAttributeNames' values does not cover (its message
// would name a placeholder the statement does not have).
func NewStatementEnv(names map[string]string, values map[string]attr.Value) (*Env, error) {
	return newEnv(names, values, false)
}

func newEnv(names map[string]string, values map[string]attr.Value, checkNames bool) (*Env, error) {
	if err := checkPlaceholders("ExpressionAttributeNames", names, '#'); err != nil {
		return nil, err
	}
	if checkNames {
		if err := checkNameValues(names); err != nil {
			return nil, err
		}
	}
	if err := checkPlaceholders("ExpressionAttributeValues", values, ':'); err != nil {
		return nil, err
	}
	return &Env{Names: names, Values: values}, nil
}

// checkPlaceholders refuses a placeholder map (nil: not sent) that is empty
// or has a key that is not sigil followed by letters, digits or
// underscores; member names the map in the message.
func checkPlaceholders[V any](member string, m map[string]V, sigil byte) error {
	if m == nil {
		return nil
	}
	if len(m) == 0 {
		return errorf(member + " must not be empty")
	}
	// The first invalid key in sorted order is named; sorting only when
	// there is one keeps valid requests free of it.
	bad, found := "", false
	for k := range m {
		if !validPlaceholder(k, sigil) && (!found || k < bad) {
			bad, found = k, true
		}
	}
	if found {
		return errorf(member + ` contains invalid key: Syntax error; key: "` + bad + `"`)
	}
	return nil
}

// checkNameValues refuses a name placeholder that stands for "": attribute
// names are at least one character long ("Naming rules" in DynamoDB's
// developer guide). The message is DynamoDB's as clients quote it; that
// the keys' syntax is checked first, and the first such key in sorted
// order named, is a model.
func checkNameValues(names map[string]string) error {
	bad, found := "", false
	for k, v := range names {
		if v == "" && (!found || k < bad) {
			bad, found = k, true
		}
	}
	if found {
		return errorf("ExpressionAttributeNames contains invalid value: Empty attribute name for key " + bad)
	}
	return nil
}

func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isIdentPart(k[i]) {
			return false
		}
	}
	return true
}

// name resolves a #name placeholder and marks it used.
func (e *Env) name(ph string) (string, bool) {
	if e == nil {
		return "", false
	}
	return use(e.Names, &e.usedNames, ph)
}

// value resolves a :value placeholder and marks it used.
func (e *Env) value(ph string) (attr.Value, bool) {
	if e == nil {
		return attr.Value{}, false
	}
	return use(e.Values, &e.usedValues, ph)
}

// use looks placeholder ph up in m and, when it is there, adds it to used.
func use[V any](m map[string]V, used *map[string]struct{}, ph string) (V, bool) {
	v, ok := m[ph]
	if ok {
		if *used == nil {
			*used = make(map[string]struct{}, len(m))
		}
		(*used)[ph] = struct{}{}
	}
	return v, ok
}

// Unused reports placeholders that no parsed expression referred to, names
// first, with DynamoDB's message.
func (e *Env) Unused() error {
	if e == nil || len(e.usedNames) == len(e.Names) && len(e.usedValues) == len(e.Values) {
		return nil
	}
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(e.Names)) {
		if _, ok := e.usedNames[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return errorf("Value provided in ExpressionAttributeNames unused in expressions: keys: {" + strings.Join(missing, ", ") + "}")
	}
	for _, k := range slices.Sorted(maps.Keys(e.Values)) {
		if _, ok := e.usedValues[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return errorf("Value provided in ExpressionAttributeValues unused in expressions: keys: {" + strings.Join(missing, ", ") + "}")
	}
	return nil
}
