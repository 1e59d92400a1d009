package partiql

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// Read is a translated SELECT. When the WHERE fixes the partition key of
// every alternative it is one Query per Branch, read in order; otherwise
// (Scan) the whole table or index is read with Filter, the WHERE clause.
type Read struct {
	Table, Index string
	Scan         bool
	Filter       string // of a Scan; "" for none
	Branches     []Branch
	// Forward is the sort key order within each branch: false for ORDER BY
	// the sort key DESC.
	Forward bool
	Columns []Column // nil for SELECT *
	Placeholders
}

// Branch is one Query of a SELECT: a partition and an optional sort key
// condition, with the rest of its alternative of the WHERE as a filter.
type Branch struct {
	Hash   attr.Value
	SortOp string // "", "=", "<", "<=", ">", ">=", "BETWEEN" or "begins_with"
	Sort   [2]attr.Value
	Filter string // "" for none
}

// Column is one projected path and the name its value is returned under:
// the path's last name with the indexes after it (m.k[1] as "k[1]").
type Column struct {
	Name string
	Path expr.Path
}

// maxBranches is how many key ranges one SELECT may read.
const maxBranches = 50

// maxDNF bounds the alternatives the planner expands a WHERE into; a WHERE
// with more becomes a Scan.
const maxDNF = 1024

// PlanSelect translates a SELECT on a table or index of schema sc.
// strictKeys refuses key values of the wrong type, as ExecuteStatement
// does; batch and transaction reads leave that to the item read.
func PlanSelect(s *Select, sc Schema, params []attr.Value, strictKeys bool) (*Read, error) {
	if err := CheckParams(s, params); err != nil {
		return nil, err
	}
	rd := &Read{Table: s.Table, Index: s.Index, Forward: true, Scan: true}
	var err error
	if rd.Columns, err = columns(s); err != nil {
		return nil, err
	}
	r := newRender(params)
	if s.Where != nil {
		if rd.Filter, err = newRender(params).cond(s.Where); err != nil {
			return nil, err
		}
		branches, keyed, err := r.branches(s.Where, sc, strictKeys)
		if err != nil {
			return nil, err
		}
		if keyed {
			rd.Scan, rd.Filter, rd.Branches = false, "", branches
		} else if rd.Filter, err = r.cond(s.Where); err != nil {
			return nil, err
		}
	}
	if err := rd.order(s, sc); err != nil {
		return nil, err
	}
	rd.Placeholders = *r.ph
	return rd, nil
}

// Key returns the one item a SELECT of batch or transaction reads names:
// the full primary key by equality and nothing else.
func (rd *Read) Key(sc Schema) (attr.Item, bool) {
	if rd.Scan || len(rd.Branches) != 1 || rd.Index != "" {
		return nil, false
	}
	b := rd.Branches[0]
	if b.Filter != "" {
		return nil, false
	}
	key := attr.Item{sc.Hash: b.Hash}
	switch {
	case sc.Range == "" && b.SortOp != "":
		return nil, false
	case sc.Range != "":
		if b.SortOp != "=" {
			return nil, false
		}
		key[sc.Range] = b.Sort[0]
	}
	return key, true
}

func columns(s *Select) ([]Column, error) {
	if s.Star {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []Column
	for _, c := range s.Columns {
		var col Column
		last := 0
		for i, st := range c.Steps {
			if st.IsIndex {
				col.Path = append(col.Path, expr.Step{Index: st.Index})
				continue
			}
			col.Path = append(col.Path, expr.Step{Name: st.Name, Index: -1})
			last = i
		}
		col.Name = c.Steps[last].Name
		for _, st := range c.Steps[last+1:] {
			col.Name += "[" + strconv.Itoa(st.Index) + "]"
		}
		if seen[col.Name] {
			return nil, errorf("Duplicate identifiers in select clause: %s", col.Name)
		}
		seen[col.Name] = true
		out = append(out, col)
	}
	return out, nil
}

// branches plans the WHERE as Queries: its alternatives (the disjunctive
// normal form, with IN on a key attribute read as alternatives) must each
// fix the partition key by equality, and may bound the sort key. keyed is
// false when any does not, and the SELECT is a Scan.
func (r *render) branches(where Expr, sc Schema, strictKeys bool) ([]Branch, bool, error) {
	alts := dnf(where, sc)
	if alts == nil {
		return nil, false, nil
	}
	var out []Branch
	for _, alt := range alts {
		b, keyed, err := r.branch(alt, sc, strictKeys)
		if err != nil || !keyed {
			return nil, false, err
		}
		out = append(out, b)
	}
	if len(out) > maxBranches {
		return nil, false, errorf(msgTooManyReads)
	}
	if err := checkOverlap(out); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// dnf expands a condition into alternatives of conditions that must all
// hold; nil when there would be more than maxDNF.
func dnf(e Expr, sc Schema) [][]Expr {
	switch e := e.(type) {
	case *BinaryExpr:
		switch e.Op {
		case "OR":
			l, r := dnf(e.L, sc), dnf(e.R, sc)
			if l == nil || r == nil || len(l)+len(r) > maxDNF {
				return nil
			}
			return append(l, r...)
		case "AND":
			l, r := dnf(e.L, sc), dnf(e.R, sc)
			if l == nil || r == nil || len(l)*len(r) > maxDNF {
				return nil
			}
			var out [][]Expr
			for _, a := range l {
				for _, b := range r {
					out = append(out, append(slices.Clip(a), b...))
				}
			}
			return out
		}
	case *InExpr:
		if !e.Not && keyPath(e.X, sc) != "" && len(e.List) > 0 && len(e.List) <= maxInOperands && allConstant(e.List) {
			var out [][]Expr
			for _, v := range e.List {
				out = append(out, []Expr{&BinaryExpr{Pos: e.Pos, Op: "=", L: e.X, R: v}})
			}
			return out
		}
	}
	return [][]Expr{{e}}
}

func allConstant(es []Expr) bool {
	for _, e := range es {
		if !constant(e) {
			return false
		}
	}
	return true
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// atomKind says what one condition of an alternative means for the plan.
type atomKind uint8

const (
	atomFilter atomKind = iota // a filter on the items read
	atomScan                   // a key condition a Query cannot take
	atomHash                   // partition key = value
	atomSort                   // a sort key condition
)

// classify reads one condition of an alternative, as DynamoDB's planner
// does: an equality on the partition key and a comparison, BETWEEN or
// begins_with on the sort key are key conditions; any other use of a key
// attribute (<>, NOT, a function, a second partition key value) leaves the
// SELECT a Scan.
func classify(e Expr, sc Schema) (kind atomKind, op string, vals []Expr) {
	switch e := e.(type) {
	case *BinaryExpr:
		if _, ok := flipped[e.Op]; !ok {
			return atomFilter, "", nil
		}
		name, other, op := keyPath(e.L, sc), e.R, e.Op
		if name == "" {
			name, other, op = keyPath(e.R, sc), e.L, flipped[e.Op]
		}
		switch {
		case name == "":
			if keyInCall(e.L, sc) || keyInCall(e.R, sc) {
				return atomScan, "", nil
			}
			return atomFilter, "", nil
		case name == sc.Hash && op != "=":
			return atomScan, "", nil
		case name == sc.Hash && constant(other):
			return atomHash, op, []Expr{other}
		case name == sc.Hash:
			return atomFilter, "", nil
		case op == "<>":
			return atomScan, "", nil
		case constant(other):
			return atomSort, op, []Expr{other}
		}
		return atomFilter, "", nil
	case *BetweenExpr:
		switch keyPath(e.X, sc) {
		case "":
			return atomFilter, "", nil
		case sc.Hash:
			return atomScan, "", nil
		}
		if e.Not {
			return atomScan, "", nil
		}
		if constant(e.Lo) && constant(e.Hi) {
			return atomSort, "BETWEEN", []Expr{e.Lo, e.Hi}
		}
		return atomFilter, "", nil
	case *CallExpr:
		if !keyInCall(e, sc) {
			return atomFilter, "", nil
		}
		if e.Name == "begins_with" && len(e.Args) == 2 && sc.Range != "" && sc.RangeKind != attr.N && keyPath(e.Args[0], sc) == sc.Range && constant(e.Args[1]) {
			return atomSort, "begins_with", e.Args[1:]
		}
		return atomScan, "", nil
	case *InExpr:
		if keyPath(e.X, sc) != "" {
			return atomScan, "", nil
		}
	case *IsExpr:
		if keyPath(e.X, sc) != "" {
			return atomScan, "", nil
		}
	case *UnaryExpr:
		if k, _, _ := classify(e.X, sc); k != atomFilter {
			return atomScan, "", nil
		}
	}
	return atomFilter, "", nil
}

// keyInCall reports whether e is a function call with a key attribute as an
// argument.
func keyInCall(e Expr, sc Schema) bool {
	c, ok := e.(*CallExpr)
	if !ok {
		return false
	}
	for _, a := range c.Args {
		if keyPath(a, sc) != "" {
			return true
		}
	}
	return false
}

// branch plans one alternative of the WHERE.
func (r *render) branch(alt []Expr, sc Schema, strictKeys bool) (Branch, bool, error) {
	var b Branch
	hashSet := false
	var filters []Expr
	for _, a := range alt {
		kind, op, vals := classify(a, sc)
		switch kind {
		case atomScan:
			return b, false, nil
		case atomFilter:
			filters = append(filters, a)
			continue
		}
		vs := make([]attr.Value, len(vals))
		for i, ve := range vals {
			v, err := value(ve, r.params, "root", 1)
			if err != nil {
				return b, false, err
			}
			vs[i] = v
		}
		if kind == atomHash {
			if hashSet && !attr.Equal(b.Hash, vs[0]) {
				return b, false, nil
			}
			b.Hash, hashSet = vs[0], true
			continue
		}
		if b.SortOp != "" {
			if b.SortOp != op || !attr.Equal(b.Sort[0], vs[0]) || len(vs) > 1 && !attr.Equal(b.Sort[1], vs[1]) {
				return b, false, nil
			}
			continue
		}
		b.SortOp = op
		copy(b.Sort[:], vs)
	}
	if !hashSet {
		return b, false, nil
	}
	if strictKeys {
		if b.Hash.Kind != sc.HashKind {
			return b, false, errorf("Key attribute's data type should match its data type in table's schema: Key %s", sc.Hash)
		}
		for _, v := range b.Sort[:] {
			if !v.IsZero() && v.Kind != sc.RangeKind {
				return b, false, errorf("Key attribute's data type should match its data type in table's schema: Key %s", sc.Range)
			}
		}
	}
	var err error
	b.Filter, err = r.conjunction(filters)
	return b, true, err
}

// sortRange is the span of encoded sort keys a branch reads, [lo, hi); nil
// lo is unbounded below, nil hi unbounded above.
func (b Branch) sortRange() (lo, hi []byte, empty bool) {
	k := func(v attr.Value) []byte { return attr.AppendKey(nil, v) }
	switch b.SortOp {
	case "=":
		return k(b.Sort[0]), succ(k(b.Sort[0])), false
	case "<":
		return nil, k(b.Sort[0]), false
	case "<=":
		return nil, succ(k(b.Sort[0])), false
	case ">":
		return succ(k(b.Sort[0])), nil, false
	case ">=":
		return k(b.Sort[0]), nil, false
	case "BETWEEN":
		if b.Sort[0].Kind != b.Sort[1].Kind || attr.Compare(b.Sort[0], b.Sort[1]) > 0 {
			return nil, nil, true
		}
		return k(b.Sort[0]), succ(k(b.Sort[1])), false
	case "begins_with":
		p := attr.AppendKeyPrefix(nil, b.Sort[0])
		return p, succ(p), false
	}
	return nil, nil, false
}

// succ is the smallest byte string above every string that starts with p
// (nil when there is none).
func succ(p []byte) []byte {
	out := bytes.Clone(p)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xFF {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

// below compares a lower bound with an upper bound, nil being infinite.
func below(lo, hi []byte) bool {
	return lo == nil || hi == nil || bytes.Compare(lo, hi) < 0
}

// checkOverlap refuses two branches of one partition whose sort key ranges
// overlap: DynamoDB would read (and return) an item twice.
func checkOverlap(bs []Branch) error {
	for i := range bs {
		lo1, hi1, e1 := bs[i].sortRange()
		for j := i + 1; j < len(bs); j++ {
			lo2, hi2, e2 := bs[j].sortRange()
			if e1 || e2 || !attr.Equal(bs[i].Hash, bs[j].Hash) {
				continue
			}
			if below(lo1, hi2) && below(lo2, hi1) {
				return errorf(msgOverlap)
			}
		}
	}
	return nil
}

// order applies ORDER BY: it needs a key condition, names only key
// attributes, and orders the branches by partition key and their items by
// sort key.
func (rd *Read) order(s *Select, sc Schema) error {
	if len(s.OrderBy) == 0 {
		return nil
	}
	if s.Where == nil {
		return errorf(msgOrderByNoWhere)
	}
	var hashTerm, rangeTerm *OrderTerm
	for i := range s.OrderBy {
		t := &s.OrderBy[i]
		switch {
		case t.Name == sc.Hash:
			hashTerm = t
		case sc.Range != "" && t.Name == sc.Range:
			rangeTerm = t
		default:
			return errorf("Variable reference %s in ORDER BY clause must be part of the primary key", t.Name)
		}
	}
	if rd.Scan {
		return errorf(msgOrderByNoHash)
	}
	if hashTerm == nil {
		for _, b := range rd.Branches[1:] {
			if !attr.Equal(b.Hash, rd.Branches[0].Hash) {
				return errorf(msgOrderByHashNeeded)
			}
		}
	}
	if rangeTerm != nil {
		rd.Forward = !rangeTerm.Desc
	}
	slices.SortStableFunc(rd.Branches, func(a, b Branch) int {
		if c := attr.Compare(a.Hash, b.Hash); c != 0 {
			if hashTerm != nil && hashTerm.Desc {
				return -c
			}
			return c
		}
		la, _, _ := a.sortRange()
		lb, _, _ := b.sortRange()
		c := bytes.Compare(la, lb)
		if !rd.Forward {
			return -c
		}
		return c
	})
	return nil
}
