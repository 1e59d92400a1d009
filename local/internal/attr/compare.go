package attr

import (
	"bytes"
	"strings"
)

// Compare orders two scalar values of the same kind the way DynamoDB sorts
// keys and evaluates < <= > >=: S by UTF-8 bytes, N numerically, B by
// unsigned bytes. Values of other or mixed kinds order by kind so the result
// is total, but callers must check kinds before treating it as meaningful.
func Compare(a, b Value) int {
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	switch a.Kind {
	case S:
		return strings.Compare(a.Str, b.Str)
	case N:
		return CompareNumbers(a.Str, b.Str)
	case B:
		return bytes.Compare(a.Bytes, b.Bytes)
	}
	return 0
}

// Equal reports deep equality as DynamoDB's = operator sees it: numbers by
// value, sets ignoring order, maps and lists recursively.
func Equal(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case S:
		return a.Str == b.Str
	case N:
		return a.Str == b.Str || CompareNumbers(a.Str, b.Str) == 0
	case B:
		return bytes.Equal(a.Bytes, b.Bytes)
	case BOOL:
		return a.Bool == b.Bool
	case NULL:
		return true
	case M:
		if len(a.Map) != len(b.Map) {
			return false
		}
		for k, av := range a.Map {
			bv, ok := b.Map[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case L:
		if len(a.List) != len(b.List) {
			return false
		}
		for i := range a.List {
			if !Equal(a.List[i], b.List[i]) {
				return false
			}
		}
		return true
	case SS:
		return sameStrings(a.Strs, b.Strs, func(x, y string) bool { return x == y })
	case NS:
		return sameStrings(a.Strs, b.Strs, func(x, y string) bool { return x == y || CompareNumbers(x, y) == 0 })
	case BS:
		if len(a.Bins) != len(b.Bins) {
			return false
		}
		for _, x := range a.Bins {
			found := false
			for _, y := range b.Bins {
				if bytes.Equal(x, y) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return false
}

// sameStrings compares two duplicate-free sets.
func sameStrings(a, b []string, eq func(x, y string) bool) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 16 {
		seen := make(map[string]struct{}, len(a))
		for _, x := range a {
			seen[x] = struct{}{}
		}
		ok := true
		for _, y := range b {
			if _, in := seen[y]; !in {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if eq(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// EqualItems reports whether two items hold equal attributes.
func EqualItems(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}
