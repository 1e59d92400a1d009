package expr

import (
	"bytes"
	"slices"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// Evaluation of parsed conditions (condition.go) against an item: operand
// values, comparisons and functions, with DynamoDB's rules for missing
// attributes and mismatched types.

// Eval reports whether the item satisfies the condition. A nil item (no
// item stored under the key) has no attributes.
func (c *Condition) Eval(it attr.Item) (bool, error) {
	return c.root.test(it), nil
}

// value evaluates an operand node.
func (n *node) value(it attr.Item) (attr.Value, bool) {
	switch n.kind {
	case nValue:
		return n.val, true
	case nPath:
		return n.path.Get(it)
	case nSize:
		v, ok := n.kids[0].value(it)
		if !ok {
			return attr.Value{}, false
		}
		size, ok := sizeOf(v)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Int(int64(size)), true
	}
	return attr.Value{}, false
}

// sizeOf implements size(): string length in bytes, binary length, element
// counts of sets, lists and maps; other types have no size.
func sizeOf(v attr.Value) (int, bool) {
	switch v.Kind {
	case attr.S:
		return len(v.Str), true
	case attr.B:
		return len(v.Bytes), true
	case attr.SS, attr.NS:
		return len(v.Strs), true
	case attr.BS:
		return len(v.Bins), true
	case attr.L:
		return len(v.List), true
	case attr.M:
		return len(v.Map), true
	}
	return 0, false
}

// test evaluates a boolean node.
func (n *node) test(it attr.Item) bool {
	switch n.kind {
	case nAnd:
		return n.kids[0].test(it) && n.kids[1].test(it)
	case nOr:
		return n.kids[0].test(it) || n.kids[1].test(it)
	case nNot:
		return !n.kids[0].test(it)
	case nCmp:
		a, aok := n.kids[0].value(it)
		b, bok := n.kids[1].value(it)
		if n.op == tNe {
			return !aok || !bok || !attr.Equal(a, b)
		}
		if !aok || !bok {
			return false
		}
		if n.op == tEq {
			return attr.Equal(a, b)
		}
		if a.Kind != b.Kind || !scalar(a.Kind) {
			return false
		}
		c := attr.Compare(a, b)
		switch n.op {
		case tLt:
			return c < 0
		case tLe:
			return c <= 0
		case tGt:
			return c > 0
		case tGe:
			return c >= 0
		}
		return false
	case nBetween:
		a, ok := n.kids[0].value(it)
		lo, lok := n.kids[1].value(it)
		hi, hok := n.kids[2].value(it)
		if !ok || !lok || !hok || !scalar(a.Kind) || a.Kind != lo.Kind || a.Kind != hi.Kind {
			return false
		}
		return attr.Compare(a, lo) >= 0 && attr.Compare(a, hi) <= 0
	case nIn:
		a, ok := n.kids[0].value(it)
		if !ok {
			return false
		}
		for _, k := range n.kids[1:] {
			if b, ok := k.value(it); ok && attr.Equal(a, b) {
				return true
			}
		}
		return false
	case nFunc:
		return n.call(it)
	}
	return false
}

func (n *node) call(it attr.Item) bool {
	switch n.fn {
	case fnExists:
		_, ok := n.kids[0].path.Get(it)
		return ok
	case fnNotExists:
		_, ok := n.kids[0].path.Get(it)
		return !ok
	case fnType:
		v, ok := n.kids[0].value(it)
		t, tok := n.kids[1].value(it)
		return ok && tok && t.Kind == attr.S && v.Kind.String() == t.Str
	case fnBeginsWith:
		v, ok := n.kids[0].value(it)
		pre, pok := n.kids[1].value(it)
		if !ok || !pok || v.Kind != pre.Kind {
			return false
		}
		switch v.Kind {
		case attr.S:
			return strings.HasPrefix(v.Str, pre.Str)
		case attr.B:
			return bytes.HasPrefix(v.Bytes, pre.Bytes)
		}
		return false
	case fnContains:
		v, ok := n.kids[0].value(it)
		x, xok := n.kids[1].value(it)
		if !ok || !xok {
			return false
		}
		return contains(v, x)
	}
	return false
}

func contains(v, x attr.Value) bool {
	switch v.Kind {
	case attr.S:
		return x.Kind == attr.S && strings.Contains(v.Str, x.Str)
	case attr.B:
		return x.Kind == attr.B && bytes.Contains(v.Bytes, x.Bytes)
	case attr.SS:
		return x.Kind == attr.S && slices.Contains(v.Strs, x.Str)
	case attr.NS:
		return x.Kind == attr.N && slices.ContainsFunc(v.Strs, func(s string) bool { return attr.CompareNumbers(s, x.Str) == 0 })
	case attr.BS:
		return x.Kind == attr.B && slices.ContainsFunc(v.Bins, func(b []byte) bool { return bytes.Equal(b, x.Bytes) })
	case attr.L:
		return slices.ContainsFunc(v.List, func(e attr.Value) bool { return attr.Equal(e, x) })
	}
	return false
}
