package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The generated data: every entity gets items f1..f3 and t1..t3; every
// relation links f1->t1, f1->t2 and f2->t1. So f1 has two edges forward and
// t1 two in reverse, and f3->t3 is free for the link and unlink patterns.
var (
	fromIDs = []string{"f1", "f2", "f3"}
	toIDs   = []string{"t1", "t2", "t3"}
	links   = [][2]string{{"f1", "t1"}, {"f1", "t2"}, {"f2", "t1"}}
)

// world is the scratch table and what it holds.
type world struct {
	s  *schema.Schema
	st *ops.Store
}

// sample is a value of kind, as a user would type it with --set.
func sample(kind schema.AttrKind, id string) string {
	switch kind {
	case schema.KindNumber:
		return "7"
	case schema.KindBool:
		return "true"
	case schema.KindDate:
		return "2026-01-02"
	case schema.KindDatetime:
		return "2026-01-02T03:04:05Z"
	case schema.KindStrings:
		return "a,b"
	}
	return "v-" + id
}

func attrsFor(attrs []schema.Attribute, id string) (map[string]any, error) {
	out := map[string]any{}
	for _, a := range attrs {
		v, err := schema.ParseValue(a.Kind, sample(a.Kind, id))
		if err != nil {
			return nil, fmt.Errorf("sample %s value for %s: %w", a.Kind, a.Name, err)
		}
		out[a.Name] = v
	}
	return out, nil
}

// seed writes the entities and edges, returning how many writes it made.
func (w *world) seed(ctx context.Context) (int, error) {
	n := 0
	for _, e := range w.s.Entities {
		for _, id := range append(slices.Clone(fromIDs), toIDs...) {
			attrs, err := attrsFor(e.Attributes, id)
			if err != nil {
				return n, err
			}
			if _, err := w.st.PutEntity(ctx, e, id, attrs); err != nil {
				return n, err
			}
			n++
		}
	}
	for _, r := range w.s.Relations {
		for _, l := range links {
			attrs, err := attrsFor(r.Attributes, l[0])
			if err != nil {
				return n, err
			}
			if _, _, err := w.st.Link(ctx, r, l[0], l[1], attrs); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// linked lists the seeded ids linked to id: forward (from id) or reverse.
func linked(id string, forward bool) []string {
	var out []string
	for _, l := range links {
		switch {
		case forward && l[0] == id:
			out = append(out, l[1])
		case !forward && l[1] == id:
			out = append(out, l[0])
		}
	}
	return out
}

func str(it ops.Item, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func num(it ops.Item, name string) string {
	if n, ok := it[name].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// do runs pattern p once, as the CLI command it names would, and returns
// what was wrong with the result.
func (w *world) do(ctx context.Context, p schema.Pattern) []string {
	r := p.Relation
	fail := func(format string, args ...any) []string { return []string{fmt.Sprintf(format, args...)} }
	switch p.Kind {
	case schema.PatternGet:
		key := p.Entity.Prefix + "f1"
		it, err := w.st.GetEntity(ctx, key, false)
		if err != nil {
			return fail("get %s: %v", key, err)
		}
		return w.checkEntity(it, p.Entity, "f1")
	case schema.PatternCounterGet:
		prefix, id, end := r.From.Prefix, "f1", schema.FromEnd
		if p.End == schema.ToEnd {
			prefix, id, end = r.To.Prefix, "t1", schema.ToEnd
		}
		it, err := w.st.GetEntity(ctx, prefix+id, false)
		if err != nil {
			return fail("get %s: %v", prefix+id, err)
		}
		name, _ := r.Counter(end)
		if got := num(it, name); got != "2" {
			return fail("%s of %s%s is %q, want 2", name, prefix, id, got)
		}
	case schema.PatternForward, schema.PatternForwardEntity:
		return w.checkList(ctx, r, ops.Forward, p.Kind == schema.PatternForwardEntity)
	case schema.PatternReverse, schema.PatternReverseEntity:
		return w.checkList(ctx, r, ops.Reverse, p.Kind == schema.PatternReverseEntity)
	case schema.PatternCheck:
		_, ok, err := w.st.Check(ctx, r, "f1", "t1", false)
		switch {
		case err != nil:
			return fail("check: %v", err)
		case !ok:
			return fail("check f1 t1 found no edge; it was linked")
		}
	case schema.PatternLink:
		attrs, err := attrsFor(r.Attributes, "f3")
		if err != nil {
			return fail("%v", err)
		}
		out, _, err := w.st.Link(ctx, r, "f3", "t3", attrs)
		switch {
		case err != nil:
			return fail("link: %v", err)
		case out != ops.Created:
			return fail("link f3 t3: %s, want %s", out, ops.Created)
		}
	case schema.PatternUnlink:
		out, _, err := w.st.Unlink(ctx, r, "f3", "t3")
		switch {
		case err != nil:
			return fail("unlink: %v", err)
		case out != ops.Deleted:
			return fail("unlink f3 t3: %s, want %s", out, ops.Deleted)
		}
	default:
		return fail("adjl verify does not know how to run a %q pattern", p.Kind)
	}
	return nil
}

// checkList lists f1's edges (forward) or t1's (reverse), as the list
// commands do, and checks the page holds each edge linked to it and, with
// the entity, that side's item.
func (w *world) checkList(ctx context.Context, r *schema.Relation, dir ops.Direction, withEntity bool) []string {
	q := ops.ListQuery{Relation: r, Direction: dir, Key: "f1", WithEntity: withEntity}
	keyAttr, end, keyOf := w.s.Layout().SK, schema.FromEnd, func(id string) string { return r.Edge + r.To.Prefix + id }
	if dir == ops.Reverse {
		q.Key = "t1"
		keyAttr, end, keyOf = w.s.Layout().PK, schema.ToEnd, func(id string) string { return r.From.Prefix + id }
	}
	page, err := w.st.List(ctx, q)
	if err != nil {
		return []string{fmt.Sprintf("list: %v", err)}
	}
	var want []string
	for _, id := range linked(q.Key, dir == ops.Forward) {
		want = append(want, keyOf(id))
	}
	probs := listProblems(page, keyAttr, want)
	if withEntity {
		probs = append(probs, w.checkSideItem(page.Entity, r, end)...)
	}
	return probs
}

// listProblems checks a page holds exactly the edges with the wanted values
// of attribute keyAttr, and no next page.
func listProblems(page *ops.Page, keyAttr string, want []string) []string {
	var got []string
	for _, it := range page.Items {
		got = append(got, str(it, keyAttr))
	}
	slices.Sort(got)
	slices.Sort(want)
	var out []string
	if !slices.Equal(got, want) {
		out = append(out, fmt.Sprintf("listed %s %s; want %s", keyAttr, orNothing(got), strings.Join(want, ", ")))
	}
	if page.Next != "" {
		out = append(out, "a next page for a list that fits in one")
	}
	return out
}

// checkEntity checks an entity item read back: its type (where the layout
// records one) and the generated string attributes.
func (w *world) checkEntity(it ops.Item, e *schema.Entity, id string) []string {
	if len(it) == 0 {
		return []string{"no item " + e.Prefix + id}
	}
	var out []string
	if t := w.s.Layout().Type; t != "" && str(it, t) != e.Name {
		got := str(it, t)
		out = append(out, fmt.Sprintf("item %s%s has type %q, want %q", e.Prefix, id, got, e.Name))
	}
	for _, a := range e.Attributes {
		if _, ok := it[a.Name]; !ok {
			out = append(out, fmt.Sprintf("item %s%s lacks %s", e.Prefix, id, a.Name))
		} else if a.Kind == schema.KindString && str(it, a.Name) != sample(a.Kind, id) {
			out = append(out, fmt.Sprintf("item %s%s has %s %q, want %q", e.Prefix, id, a.Name, str(it, a.Name), sample(a.Kind, id)))
		}
	}
	return out
}

// checkSideItem checks the side item a list --with-entity returned: the
// entity item itself (a side without a role), or the role item, which
// exists once a counter was kept on it. Its counter must count the edges.
func (w *world) checkSideItem(it ops.Item, r *schema.Relation, end schema.End) []string {
	side, id := r.From, "f1"
	if end == schema.ToEnd {
		side, id = r.To, "t1"
	}
	counter, _ := r.Counter(end)
	switch {
	case len(it) == 0 && (counter != "" || !side.HasRole()):
		return []string{"no " + side.Prefix + id + " item with the list"}
	case len(it) == 0:
		return nil // a role item without counters is never written
	case str(it, w.s.Layout().PK) != side.Prefix+id:
		return []string{fmt.Sprintf("the item with the list is %s, want %s%s", str(it, w.s.Layout().PK), side.Prefix, id)}
	case counter != "" && num(it, counter) != "2":
		return []string{fmt.Sprintf("%s of %s%s is %q, want 2", counter, side.Prefix, id, num(it, counter))}
	}
	if !side.HasRole() {
		return w.checkEntity(it, side.Entity, id)
	}
	return nil
}
