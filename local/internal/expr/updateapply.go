package expr

import (
	"sort"

	"github.com/adjl/adjl/local/internal/attr"
)

// Application of a parsed update (update.go) to an item: SET, REMOVE, ADD
// and DELETE on copies of the containers along the changed paths.

// Apply returns the item after the update. Every right-hand side is read
// from the original item, as in DynamoDB. The input item is not modified:
// containers along changed paths are copied, untouched values are shared.
func (u *Update) Apply(it attr.Item) (attr.Item, error) {
	out, err := u.apply(it)
	if err == errBadOperandType && u.legacy {
		return nil, errLegacyTypeMismatch
	}
	return out, err
}

func (u *Update) apply(it attr.Item) (attr.Item, error) {
	out := make(attr.Item, len(it)+len(u.sets)+len(u.adds))
	for k, v := range it {
		out[k] = v
	}
	for _, a := range u.sets {
		v, err := a.val.eval(it)
		if err != nil {
			return nil, err
		}
		if err := setPath(out, a.path, v); err != nil {
			return nil, err
		}
	}
	if err := removePaths(out, u.removes); err != nil {
		return nil, err
	}
	for _, a := range u.adds {
		cur, ok := a.path.Get(out)
		var nv attr.Value
		switch {
		case !ok:
			nv = a.val
		case cur.Kind == attr.N && a.val.Kind == attr.N:
			x, err1 := cur.Decimal()
			y, err2 := a.val.Decimal()
			if err1 != nil || err2 != nil {
				return nil, errBadOperandType
			}
			sum, err := x.Add(y)
			if err != nil {
				return nil, err
			}
			nv = attr.Value{Kind: attr.N, Str: sum.String()}
		case cur.Kind == a.val.Kind && isSet(cur.Kind):
			nv = setUnion(cur, a.val)
		default:
			return nil, errBadOperandType
		}
		if err := setPath(out, a.path, nv); err != nil {
			return nil, err
		}
	}
	for _, a := range u.deletes {
		cur, ok := a.path.Get(out)
		if !ok {
			continue
		}
		if cur.Kind != a.val.Kind || !isSet(cur.Kind) {
			return nil, errBadOperandType
		}
		nv := setDifference(cur, a.val)
		var err error
		if setLen(nv) == 0 {
			err = removePaths(out, []Path{a.path})
		} else {
			err = setPath(out, a.path, nv)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evalOperands evaluates both operands of a binary operator (list_append,
// + and -), left first.
func (v *uval) evalOperands(it attr.Item) (attr.Value, attr.Value, error) {
	a, err := v.kids[0].eval(it)
	if err != nil {
		return attr.Value{}, attr.Value{}, err
	}
	b, err := v.kids[1].eval(it)
	if err != nil {
		return attr.Value{}, attr.Value{}, err
	}
	return a, b, nil
}

func (v *uval) eval(it attr.Item) (attr.Value, error) {
	switch v.kind {
	case uValue:
		return v.val, nil
	case uPath:
		x, ok := v.path.Get(it)
		if !ok {
			return attr.Value{}, errMissingAttr
		}
		return x, nil
	case uIfNotExists:
		if x, ok := v.path.Get(it); ok {
			return x, nil
		}
		return v.kids[1].eval(it)
	case uListAppend:
		a, b, err := v.evalOperands(it)
		if err != nil {
			return attr.Value{}, err
		}
		if a.Kind != attr.L || b.Kind != attr.L {
			return attr.Value{}, errBadOperandType
		}
		l := make([]attr.Value, 0, len(a.List)+len(b.List))
		l = append(append(l, a.List...), b.List...)
		return attr.List(l), nil
	case uPlus, uMinus:
		a, b, err := v.evalOperands(it)
		if err != nil {
			return attr.Value{}, err
		}
		if a.Kind != attr.N || b.Kind != attr.N {
			return attr.Value{}, errBadOperandType
		}
		x, err1 := a.Decimal()
		y, err2 := b.Decimal()
		if err1 != nil || err2 != nil {
			return attr.Value{}, errBadOperandType
		}
		if v.kind == uMinus {
			y = y.Negate()
		}
		r, err := x.Add(y)
		if err != nil {
			return attr.Value{}, err
		}
		return attr.Value{Kind: attr.N, Str: r.String()}, nil
	}
	return attr.Value{}, errBadOperandType
}

func isSet(k attr.Kind) bool { return k == attr.SS || k == attr.NS || k == attr.BS }

func setLen(v attr.Value) int {
	if v.Kind == attr.BS {
		return len(v.Bins)
	}
	return len(v.Strs)
}

func setHas(v attr.Value, i int, in attr.Value) bool {
	switch in.Kind {
	case attr.BS:
		for _, b := range v.Bins {
			if string(b) == string(in.Bins[i]) {
				return true
			}
		}
	case attr.NS:
		for _, s := range v.Strs {
			if attr.CompareNumbers(s, in.Strs[i]) == 0 {
				return true
			}
		}
	default:
		for _, s := range v.Strs {
			if s == in.Strs[i] {
				return true
			}
		}
	}
	return false
}

// setUnion returns a new set holding a's elements then b's new ones.
func setUnion(a, b attr.Value) attr.Value {
	out := attr.Value{Kind: a.Kind}
	if a.Kind == attr.BS {
		out.Bins = append([][]byte(nil), a.Bins...)
		for i := range b.Bins {
			if !setHas(a, i, b) {
				out.Bins = append(out.Bins, b.Bins[i])
			}
		}
		return out
	}
	out.Strs = append([]string(nil), a.Strs...)
	for i := range b.Strs {
		if !setHas(a, i, b) {
			out.Strs = append(out.Strs, b.Strs[i])
		}
	}
	return out
}

// setDifference returns a new set with a's elements not in b.
func setDifference(a, b attr.Value) attr.Value {
	out := attr.Value{Kind: a.Kind}
	if a.Kind == attr.BS {
		for i := range a.Bins {
			if !setHas(b, i, a) {
				out.Bins = append(out.Bins, a.Bins[i])
			}
		}
		return out
	}
	for i := range a.Strs {
		if !setHas(b, i, a) {
			out.Strs = append(out.Strs, a.Strs[i])
		}
	}
	return out
}

// setPath stores v at path in out (whose top-level map is already a copy),
// copying every container it descends through.
func setPath(out attr.Item, path Path, v attr.Value) error {
	if len(path) > 1 && len(path)-1+attr.Depth(v) > attr.MaxDepth {
		return errorf(attr.ErrNesting)
	}
	if len(path) == 1 {
		out[path[0].Name] = v
		return nil
	}
	cur, ok := out[path[0].Name]
	if !ok {
		return errInvalidPath
	}
	nv, err := setIn(cur, path[1:], v)
	if err != nil {
		return err
	}
	out[path[0].Name] = nv
	return nil
}

func setIn(c attr.Value, rest Path, v attr.Value) (attr.Value, error) {
	s := rest[0]
	if s.Index >= 0 {
		if c.Kind != attr.L {
			return attr.Value{}, errInvalidPath
		}
		l := append(make([]attr.Value, 0, len(c.List)+1), c.List...)
		if len(rest) == 1 {
			if s.Index >= len(l) {
				l = append(l, v) // DynamoDB appends past-the-end indexes
			} else {
				l[s.Index] = v
			}
			return attr.List(l), nil
		}
		if s.Index >= len(l) {
			return attr.Value{}, errInvalidPath
		}
		nv, err := setIn(l[s.Index], rest[1:], v)
		if err != nil {
			return attr.Value{}, err
		}
		l[s.Index] = nv
		return attr.List(l), nil
	}
	if c.Kind != attr.M {
		return attr.Value{}, errInvalidPath
	}
	m := make(map[string]attr.Value, len(c.Map)+1)
	for k, e := range c.Map {
		m[k] = e
	}
	if len(rest) == 1 {
		m[s.Name] = v
		return attr.Map(m), nil
	}
	child, ok := m[s.Name]
	if !ok {
		return attr.Value{}, errInvalidPath
	}
	nv, err := setIn(child, rest[1:], v)
	if err != nil {
		return attr.Value{}, err
	}
	m[s.Name] = nv
	return attr.Map(m), nil
}

// removePaths removes paths from out. List elements are removed by their
// original indexes, highest first, so several removals from one list do not
// shift one another. Missing paths are ignored.
func removePaths(out attr.Item, paths []Path) error {
	if len(paths) > 1 {
		paths = append([]Path(nil), paths...)
		sort.SliceStable(paths, func(i, j int) bool { return lastIndex(paths[i]) > lastIndex(paths[j]) })
	}
	for _, path := range paths {
		if len(path) == 1 {
			delete(out, path[0].Name)
			continue
		}
		cur, ok := out[path[0].Name]
		if !ok {
			continue
		}
		nv, changed, err := removeIn(cur, path[1:])
		if err != nil {
			return err
		}
		if changed {
			out[path[0].Name] = nv
		}
	}
	return nil
}

func removeIn(c attr.Value, rest Path) (attr.Value, bool, error) {
	s := rest[0]
	if s.Index >= 0 {
		if c.Kind != attr.L {
			return c, false, errInvalidPath
		}
		if s.Index >= len(c.List) {
			return c, false, nil
		}
		l := append(make([]attr.Value, 0, len(c.List)), c.List...)
		if len(rest) == 1 {
			l = append(l[:s.Index], l[s.Index+1:]...)
			return attr.List(l), true, nil
		}
		nv, changed, err := removeIn(l[s.Index], rest[1:])
		if err != nil || !changed {
			return c, false, err
		}
		l[s.Index] = nv
		return attr.List(l), true, nil
	}
	if c.Kind != attr.M {
		return c, false, errInvalidPath
	}
	child, ok := c.Map[s.Name]
	if !ok {
		return c, false, nil
	}
	m := make(map[string]attr.Value, len(c.Map))
	for k, e := range c.Map {
		m[k] = e
	}
	if len(rest) == 1 {
		delete(m, s.Name)
		return attr.Map(m), true, nil
	}
	nv, changed, err := removeIn(child, rest[1:])
	if err != nil || !changed {
		return c, false, err
	}
	m[s.Name] = nv
	return attr.Map(m), true, nil
}

// lastIndex orders removals: map keys first, then list indexes descending.
func lastIndex(p Path) int {
	if i := p[len(p)-1].Index; i >= 0 {
		return i
	}
	return int(^uint(0) >> 1)
}
