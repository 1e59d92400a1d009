// Package diagram draws a schema's model: each entity with its key prefix
// and attributes, and each relation as two arrows - the forward one (from
// side to to side, read from the base table) labelled with the edge's keys,
// its verbs and counters, and the reverse one (read through the inverted
// index, over its shards). It renders Mermaid (which GitHub shows in
// Markdown) and Graphviz DOT. It is pure: a schema in, text out.
package diagram

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/schema"
)

// Formats are the diagram formats, in the order help lists them.
var Formats = []string{"mermaid", "dot"}

// Render draws s in format (one of Formats).
func Render(s *schema.Schema, format string) ([]byte, error) {
	m := modelOf(s)
	switch format {
	case "mermaid":
		return []byte(m.mermaid()), nil
	case "dot":
		return []byte(m.dot()), nil
	}
	return nil, fmt.Errorf("unknown diagram format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// model is what both formats draw: nodes and labelled arrows, each label a
// list of lines.
type model struct {
	title string
	nodes []node
	edges []edge
}

type node struct {
	id    string
	lines []string
}

type edge struct {
	from, to string
	reverse  bool // drawn dashed: a read through the index
	lines    []string
}

// nodeID keeps generated identifiers clear of each format's keywords
// (Mermaid's "end", DOT's "node" and "edge").
func nodeID(entity string) string { return "e_" + strings.ReplaceAll(entity, "-", "_") }

func modelOf(s *schema.Schema) model {
	idx := s.Table.Index.Name
	if idx == "" {
		idx = schema.DefaultIndexName
	}
	proj := s.Table.Index.Projection
	if proj == "" {
		proj = schema.ProjectionAll
	}
	l := s.Layout()
	m := model{title: fmt.Sprintf("table %s, index %s (%s)", s.Table.Name, idx, proj)}
	if l != schema.DefaultLayout {
		m.title = fmt.Sprintf("table %s (%s, %s), index %s (%s layout on %s, %s; %s)", s.Table.Name, l.PK, l.SK, idx, l.Kind, l.IndexPK, l.IndexSK, proj)
	}
	for _, e := range s.Entities {
		lines := []string{e.Name, "key " + e.Prefix + "id"}
		for _, a := range e.Attributes {
			lines = append(lines, a.Name+": "+string(a.Kind))
		}
		m.nodes = append(m.nodes, node{id: nodeID(e.Name), lines: lines})
	}
	for _, r := range s.Relations {
		from, to := r.From.Prefix+"id", r.To.Prefix+"id"
		edgeName := "edge " + r.Edge
		if r.Edge == "" {
			edgeName = "no edge prefix"
		}
		fwd := []string{
			fmt.Sprintf("%s (%s)", r.Name, edgeName),
			fmt.Sprintf("%s %s, %s %s", l.PK, from, l.SK, r.EdgeSKPrefix()+"id"),
		}
		var verbs []string
		for _, v := range []struct{ kind, name string }{{"link", r.Verbs.Link}, {"unlink", r.Verbs.Unlink}, {"check", r.Verbs.Check}} {
			if v.name != "" {
				verbs = append(verbs, v.kind+" "+v.name)
			}
		}
		if len(verbs) > 0 {
			fwd = append(fwd, strings.Join(verbs, ", "))
		}
		fwd = append(fwd, "forward: "+verb(r.Verbs.Forward, "list "+r.Name)+" reads "+from+" via the table")
		if c := counters(r); c != "" {
			fwd = append(fwd, c)
		}
		rev := []string{"reverse: " + verb(r.Verbs.Reverse, "list "+r.Name+" --reverse") + " reads " + to + " via " + idx}
		if r.Shards > 1 {
			rev = append(rev, fmt.Sprintf("%s %s#0..%d (%d shards)", l.IndexPK, to, r.Shards-1, r.Shards))
		} else {
			rev = append(rev, l.IndexPK+" "+l.ReversePartition(r, to, 0)+", "+l.IndexSK+" "+from)
		}
		m.edges = append(m.edges,
			edge{from: nodeID(r.From.Entity.Name), to: nodeID(r.To.Entity.Name), lines: fwd},
			edge{from: nodeID(r.To.Entity.Name), to: nodeID(r.From.Entity.Name), reverse: true, lines: rev})
	}
	return m
}

func verb(v, generic string) string {
	if v == "" {
		return generic
	}
	return v
}

// counters describes the relation's counters: "counters courseCount on STU#,
// studentCount on CRS# (8 shards)".
func counters(r *schema.Relation) string {
	var parts []string
	for _, end := range []schema.End{schema.FromEnd, schema.ToEnd} {
		name, n := r.Counter(end)
		if name == "" {
			continue
		}
		prefix := r.From.Prefix
		if end == schema.ToEnd {
			prefix = r.To.Prefix
		}
		part := name + " on " + prefix
		if n > 1 {
			part += fmt.Sprintf(" (%d shards)", n)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "counters " + strings.Join(parts, ", ")
}

// mermaid is a flowchart: entities as rounded boxes, forward reads as solid
// arrows, reverse reads as dotted ones.
func (m model) mermaid() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart LR\n", m.title)
	for _, n := range m.nodes {
		fmt.Fprintf(&b, "  %s(\"%s\")\n", n.id, mermaidText(n.lines))
	}
	for _, e := range m.edges {
		if e.reverse {
			fmt.Fprintf(&b, "  %s -. \"%s\" .-> %s\n", e.from, mermaidText(e.lines), e.to)
		} else {
			fmt.Fprintf(&b, "  %s -- \"%s\" --> %s\n", e.from, mermaidText(e.lines), e.to)
		}
	}
	return b.String()
}

// mermaidText joins label lines with <br/>; a double quote would end the
// label, so it becomes Mermaid's #quot; entity.
func mermaidText(lines []string) string {
	return strings.ReplaceAll(strings.Join(lines, "<br/>"), `"`, "#quot;")
}

// dot is a Graphviz digraph with the same nodes and arrows.
func (m model) dot() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph adjl {\n  label=%s;\n  labelloc=t;\n  rankdir=LR;\n  node [shape=box, style=rounded];\n", dotString([]string{m.title}))
	for _, n := range m.nodes {
		fmt.Fprintf(&b, "  %s [label=%s];\n", n.id, dotString(n.lines))
	}
	for _, e := range m.edges {
		style := ""
		if e.reverse {
			style = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %s -> %s [label=%s%s];\n", e.from, e.to, dotString(e.lines), style)
	}
	b.WriteString("}\n")
	return b.String()
}

// dotString quotes label lines for DOT, each line centred (\n).
func dotString(lines []string) string {
	esc := make([]string, len(lines))
	for i, l := range lines {
		esc[i] = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(l)
	}
	return `"` + strings.Join(esc, `\n`) + `"`
}
