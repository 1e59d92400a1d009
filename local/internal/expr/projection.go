package expr

import (
	"sort"

	"github.com/adjl/adjl/local/internal/attr"
)

// projNode is a trie of projected paths; a leaf takes the whole value.
type projNode struct {
	leaf    bool
	fields  map[string]*projNode
	indexes map[int]*projNode
}

// Projection is a parsed ProjectionExpression.
type Projection struct {
	root *projNode
}

// ParseProjection parses a ProjectionExpression.
func ParseProjection(s string, env *Env) (*Projection, error) {
	p := newParser(s, ProjectionExpression, env)
	var paths []Path
	if err := p.run(func() {
		paths = append(paths, p.path())
		for p.peek().kind == tComma {
			p.next()
			paths = append(paths, p.path())
		}
		p.expectEOF()
	}); err != nil {
		return nil, err
	}
	overlap, conflict := "", ""
	if p.sem.reserved == "" && p.sem.attrNameVal == "" {
		overlap, conflict = overlapCheck(paths)
	}
	if msg := first(p.sem.reserved, p.sem.attrNameVal, overlap, conflict); msg != "" {
		return nil, errorf(p.prefix() + msg)
	}
	pr := &Projection{root: &projNode{}}
	for _, path := range paths {
		n := pr.root
		for _, s := range path {
			n = n.child(s)
		}
		n.leaf = true
	}
	return pr, nil
}

func (n *projNode) child(s Step) *projNode {
	if s.Index >= 0 {
		return childIn(&n.indexes, s.Index)
	}
	return childIn(&n.fields, s.Name)
}

// childIn returns the node under k in *m, adding it (and the map) if absent.
func childIn[K comparable](m *map[K]*projNode, k K) *projNode {
	if *m == nil {
		*m = map[K]*projNode{}
	}
	c := (*m)[k]
	if c == nil {
		c = &projNode{}
		(*m)[k] = c
	}
	return c
}

// Apply returns a new item holding only the projected parts of it. Selected
// list elements keep their relative order and are packed together, as
// DynamoDB returns them; parts that do not exist are left out.
func (pr *Projection) Apply(it attr.Item) attr.Item {
	out := make(attr.Item, len(pr.root.fields))
	for name, n := range pr.root.fields {
		if v, ok := it[name]; ok {
			if pv, ok := n.project(v); ok {
				out[name] = pv
			}
		}
	}
	return out
}

func (n *projNode) project(v attr.Value) (attr.Value, bool) {
	if n.leaf {
		return v, true
	}
	switch {
	case v.Kind == attr.M && n.fields != nil:
		m := make(map[string]attr.Value, len(n.fields))
		for name, c := range n.fields {
			if e, ok := v.Map[name]; ok {
				if pv, ok := c.project(e); ok {
					m[name] = pv
				}
			}
		}
		if len(m) == 0 {
			return attr.Value{}, false
		}
		return attr.Map(m), true
	case v.Kind == attr.L && n.indexes != nil:
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var l []attr.Value
		for _, i := range idx {
			if i < len(v.List) {
				if pv, ok := n.indexes[i].project(v.List[i]); ok {
					l = append(l, pv)
				}
			}
		}
		if len(l) == 0 {
			return attr.Value{}, false
		}
		return attr.List(l), true
	}
	return attr.Value{}, false
}
