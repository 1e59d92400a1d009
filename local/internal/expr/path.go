package expr

import (
	"strconv"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
)

// Step is one element of a document path: a map key (Index < 0) or a list
// index.
type Step struct {
	Name  string
	Index int
}

// Path is a resolved document path such as a.b[1].c (placeholders already
// replaced by real names).
type Path []Step

// String renders the path the way DynamoDB's messages do: [a, b, [1], c].
func (p Path) String() string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, s := range p {
		if i > 0 {
			sb.WriteString(", ")
		}
		if s.Index >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.Index))
			sb.WriteByte(']')
		} else {
			sb.WriteString(s.Name)
		}
	}
	sb.WriteByte(']')
	return sb.String()
}

func (p Path) equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Get returns the value at p in it.
func (p Path) Get(it attr.Item) (attr.Value, bool) {
	v, ok := it[p[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, s := range p[1:] {
		if s.Index >= 0 {
			if v.Kind != attr.L || s.Index >= len(v.List) {
				return attr.Value{}, false
			}
			v = v.List[s.Index]
			continue
		}
		if v.Kind != attr.M {
			return attr.Value{}, false
		}
		if v, ok = v.Map[s.Name]; !ok {
			return attr.Value{}, false
		}
	}
	return v, true
}

// overlapCheck reports DynamoDB's overlap/conflict errors between target
// paths of one update or projection: a path that is a prefix of another
// overlaps; paths that first differ by a name/index mismatch conflict.
func overlapCheck(paths []Path) (overlap, conflict string) {
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			p, q := paths[i], paths[j]
			n := min(len(p), len(q))
			k := 0
			kindClash := false
			for ; k < n; k++ {
				if (p[k].Index >= 0) != (q[k].Index >= 0) {
					kindClash = true
					break
				}
				if p[k] != q[k] {
					break
				}
			}
			if kindClash {
				if conflict == "" {
					conflict = "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: " + p.String() + ", path two: " + q.String()
				}
				continue
			}
			if k == n && overlap == "" {
				overlap = "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: " + p.String() + ", path two: " + q.String()
			}
		}
	}
	return overlap, conflict
}
