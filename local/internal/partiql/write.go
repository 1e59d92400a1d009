package partiql

import (
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// WriteKind is the item operation a write statement becomes.
type WriteKind uint8

// The item operations of INSERT, UPDATE, DELETE and EXISTS.
const (
	Put        WriteKind = iota // INSERT: PutItem if no item has the key
	UpdateItem                  // UPDATE: UpdateItem of an existing item
	DeleteItem                  // DELETE: DeleteItem
	CheckItem                   // EXISTS: a transaction's ConditionCheck
)

// Write is a translated INSERT, UPDATE, DELETE or EXISTS: the item operation
// DynamoDB runs for it, with its key (or item) and expressions.
type Write struct {
	Kind      WriteKind
	Table     string
	Key       attr.Item // UpdateItem, DeleteItem, CheckItem
	Item      attr.Item // Put
	Condition string    // ConditionExpression, "" for none
	Update    string    // UpdateExpression of UpdateItem
	Placeholders
	// Returning is the ReturnValues of RETURNING: ALL_OLD, UPDATED_OLD,
	// ALL_NEW, UPDATED_NEW, or "" when the statement has none.
	Returning string
}

// PlanWrite translates a write statement for a table of schema sc. In a
// transaction (inTx) a WHERE that misses key attributes is not refused
// here: the key lacks them, and the item operation refuses it, as
// DynamoDB's transaction does.
func PlanWrite(st Statement, sc Schema, params []attr.Value, inTx bool) (*Write, error) {
	if err := CheckParams(st, params); err != nil {
		return nil, err
	}
	r := newRender(params)
	w := &Write{Table: st.TableName()}
	switch s := st.(type) {
	case *Insert:
		w.Kind = Put
		if s.Value == nil {
			return nil, errorf(msgInsertFormat)
		}
		m, ok := s.Value.(*MapExpr)
		if !ok {
			return nil, errorf(msgInsertFormat)
		}
		w.Item = attr.Item{}
		for i, k := range m.Keys {
			name, err := tupleKey(k, "root")
			if err != nil {
				return nil, err
			}
			if _, dup := w.Item[name]; dup {
				return nil, errorf("Duplicate keys in tuple. Key: %s under root", name)
			}
			v, err := value(m.Vals[i], params, "root", 1)
			if err != nil {
				return nil, err
			}
			w.Item[name] = v
		}
		w.Condition = "attribute_not_exists(" + r.name(sc.Hash) + ")"
	case *Update:
		w.Kind = UpdateItem
		w.Returning = s.Returning
		key, rest, err := r.dmlKey(s.Where, sc, inTx)
		if err != nil {
			return nil, err
		}
		w.Key = key
		if w.Update, err = r.update(s.Actions); err != nil {
			return nil, err
		}
		exists := "attribute_exists(" + r.name(sc.Hash) + ")"
		if w.Condition, err = r.conjunction(rest); err != nil {
			return nil, err
		}
		if w.Condition == "" {
			w.Condition = exists
		} else {
			w.Condition = exists + " AND " + w.Condition
		}
	case *Delete:
		w.Kind = DeleteItem
		if s.Returning != "" && s.Returning != "ALL_OLD" {
			return nil, errorf("Invalid returning clause: RETURNING %s. Only RETURNING ALL OLD * is allowed in DELETE statements.", s.Returning)
		}
		w.Returning = s.Returning
		key, rest, err := r.dmlKey(s.Where, sc, inTx)
		if err != nil {
			return nil, err
		}
		w.Key = key
		if w.Condition, err = r.conjunction(rest); err != nil {
			return nil, err
		}
	case *Exists:
		w.Kind = CheckItem
		w.Table = s.Select.Table
		if s.Select.Index != "" {
			return nil, errorf("Operations on indices are not supported in transactions")
		}
		if s.Select.Where == nil {
			return nil, errorf(msgExistsShape)
		}
		if _, err := newRender(params).cond(s.Select.Where); err != nil {
			return nil, err
		}
		key := attr.Item{}
		var rest []Expr
		for _, c := range conjuncts(s.Select.Where, nil) {
			if name, ve, ok := keyEquality(c, sc); ok {
				if _, seen := key[name]; !seen {
					v, err := value(ve, params, "root", 1)
					if err != nil {
						return nil, err
					}
					key[name] = v
					continue
				}
			}
			rest = append(rest, c)
		}
		if len(key) != len(sc.keyNames()) || len(rest) == 0 {
			return nil, errorf(msgExistsShape)
		}
		w.Key = key
		exists := "attribute_exists(" + r.name(sc.Hash) + ")"
		cond, err := r.conjunction(rest)
		if err != nil {
			return nil, err
		}
		w.Condition = exists + " AND " + cond
	default:
		return nil, errorf("Unsupported operation: %s", "Select")
	}
	w.Placeholders = *r.ph
	return w, nil
}

// conjuncts flattens nested ANDs into their operands.
func conjuncts(e Expr, out []Expr) []Expr {
	if b, ok := e.(*BinaryExpr); ok && b.Op == "AND" {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, e)
}

// conjunction renders conditions joined with AND ("" for none).
func (r *render) conjunction(cs []Expr) (string, error) {
	parts := make([]string, len(cs))
	for i, c := range cs {
		t, p, err := r.condPrec(c)
		if err != nil {
			return "", err
		}
		parts[i] = at(t, p, precAnd)
	}
	return strings.Join(parts, " AND "), nil
}

// keyPath returns the key attribute a path names, or "" when it names
// something else (another attribute, or a path into one).
func keyPath(e Expr, sc Schema) string {
	p, ok := e.(*PathExpr)
	if !ok || len(p.Steps) != 1 {
		return ""
	}
	if n := p.Steps[0].Name; n == sc.Hash || sc.Range != "" && n == sc.Range {
		return n
	}
	return ""
}

// keyEquality recognises key = constant (or constant = key).
func keyEquality(e Expr, sc Schema) (string, Expr, bool) {
	b, ok := e.(*BinaryExpr)
	if !ok || b.Op != "=" {
		return "", nil, false
	}
	if n := keyPath(b.L, sc); n != "" && constant(b.R) {
		return n, b.R, true
	}
	if n := keyPath(b.R, sc); n != "" && constant(b.L) {
		return n, b.L, true
	}
	return "", nil, false
}

// dmlKey takes the key of an UPDATE or DELETE from the equalities of the
// WHERE's top-level AND, and returns the other conditions.
func (r *render) dmlKey(where Expr, sc Schema, inTx bool) (attr.Item, []Expr, error) {
	key := attr.Item{}
	var rest []Expr
	if where != nil {
		if _, err := newRender(r.params).cond(where); err != nil {
			return nil, nil, err
		}
		for _, c := range conjuncts(where, nil) {
			name, ve, ok := keyEquality(c, sc)
			if !ok {
				rest = append(rest, c)
				continue
			}
			v, err := value(ve, r.params, "root", 1)
			if err != nil {
				return nil, nil, err
			}
			if old, seen := key[name]; seen {
				if !attr.Equal(old, v) {
					return nil, nil, &Error{Msg: "Multiple conditions on same key " + name + ". Only single item Update/Insert/Delete are supported", Cancels: true}
				}
				continue
			}
			key[name] = v
		}
	}
	if !inTx {
		for _, n := range sc.keyNames() {
			if _, ok := key[n]; !ok {
				return nil, nil, errorf(msgMandatoryKey)
			}
		}
		for _, n := range sc.keyNames() {
			if key[n].Kind != sc.kind(n) {
				return nil, nil, errorf("Key attribute's data type should match its data type in table's schema: Key %s", n)
			}
		}
	}
	return key, rest, nil
}
