package infer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/schema"
	"go.yaml.in/yaml/v3"
)

// YAML is the proposal as a schema file, with comments saying where it
// came from and what to check.
func (p *Proposal) YAML() []byte {
	doc := mapping(false)
	doc.HeadComment = strings.Join([]string{
		fmt.Sprintf("Proposed by `adjl schema infer` from %d %s of table %s, read with Scan", p.Items, english.Plural(p.Items, "item", "items"), p.Table),
		"(schema infer and reshard are the only adjl commands that Scan).",
		"A starting point: check the names, add verbs, then run adjl schema validate",
		"and adjl table describe (matchesSchema: true means the keys and index fit).",
	}, "\n")
	add(doc, "version", integer(schema.Version))
	add(doc, "table", p.tableNode())
	ents := mapping(false)
	for _, e := range p.Entities {
		n := mapping(true)
		add(n, "prefix", quoted(e.Prefix))
		if len(e.Attributes) > 0 {
			add(n, "attributes", attrsNode(e.Attributes))
		}
		add(ents, e.Name, n)
		n.LineComment = fmt.Sprintf("%d %s in the sample", e.Items, english.Plural(e.Items, "item", "items"))
	}
	add(doc, "entities", ents)
	if len(p.Relations) > 0 {
		rels := mapping(false)
		for _, r := range p.Relations {
			k := add(rels, r.Name, p.relationNode(r))
			k.LineComment = fmt.Sprintf("%d %s in the sample", r.Edges, english.Plural(r.Edges, "edge", "edges"))
		}
		k := add(doc, "relations", rels)
		k.HeadComment = "Give a relation verbs: {link: ..., unlink: ..., check: ..., forward: ..., reverse: ...}\nfor commands of its own; adjl link/unlink/check/list RELATION work without."
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		panic(fmt.Sprintf("encode a proposal built of strings: %v", err))
	}
	return b.Bytes()
}

func (p *Proposal) tableNode() *yaml.Node {
	t := mapping(false)
	add(t, "name", scalar(p.Table))
	add(t, "billing", scalar(p.Billing))
	if p.Billing == schema.BillingProvisioned {
		c := mapping(true)
		add(c, "read", integer(p.Read))
		add(c, "write", integer(p.Write))
		add(t, "capacity", c)
	}
	keys := mapping(true)
	add(keys, "pk", scalar(p.Layout.PK))
	add(keys, "sk", scalar(p.Layout.SK))
	add(t, "keys", keys)
	ix := mapping(true)
	add(ix, "name", scalar(p.Index))
	if p.Layout.Inverted() {
		add(ix, "layout", scalar(string(schema.LayoutInverted)))
	} else {
		ik := mapping(true)
		add(ik, "pk", scalar(p.Layout.IndexPK))
		add(ik, "sk", scalar(p.Layout.IndexSK))
		add(ix, "keys", ik)
	}
	add(ix, "projection", scalar(p.Projection))
	if len(p.Include) > 0 {
		inc := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range p.Include {
			inc.Content = append(inc.Content, scalar(a))
		}
		add(ix, "include", inc)
	}
	add(t, "index", ix)
	if p.NewIndex {
		ix.LineComment = "the table has no such index yet: adjl table apply creates it"
	}
	return t
}

func (p *Proposal) relationNode(r *Relation) *yaml.Node {
	n := mapping(false)
	add(n, "from", sideNode(r.From))
	add(n, "to", sideNode(r.To))
	add(n, "edge", quoted(r.Edge))
	if len(r.Attributes) > 0 {
		add(n, "attributes", attrsNode(r.Attributes))
	}
	if r.From1.Name != "" || r.To1.Name != "" {
		c := mapping(true)
		for _, end := range []struct {
			name string
			c    Counter
		}{{"from", r.From1}, {"to", r.To1}} {
			switch {
			case end.c.Name == "":
			case end.c.Shards > 1:
				sc := mapping(true)
				add(sc, "name", scalar(end.c.Name))
				add(sc, "shards", integer(int64(end.c.Shards)))
				add(c, end.name, sc)
			default:
				add(c, end.name, scalar(end.c.Name))
			}
		}
		add(n, "counters", c)
	}
	if r.Shards > 1 {
		add(n, "shards", integer(int64(r.Shards)))
	}
	return n
}

func sideNode(sd Side) *yaml.Node {
	if sd.Role == "" {
		return scalar(sd.Entity)
	}
	m := mapping(true)
	add(m, "entity", scalar(sd.Entity))
	add(m, "prefix", quoted(sd.Role))
	return m
}

func attrsNode(attrs []schema.Attribute) *yaml.Node {
	m := mapping(true)
	for _, a := range attrs {
		add(m, a.Name, scalar(string(a.Kind)))
	}
	return m
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

// scalar is a string, quoted by the encoder only where YAML would read it
// as something else.
func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// integer is a number.
func integer(n int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(n, 10)}
}

// quoted is a string always written in double quotes (prefixes: "" and the
// delimiter read as YAML would otherwise need thought).
func quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

// add appends key: value to m and returns the key node.
func add(m *yaml.Node, key string, value *yaml.Node) *yaml.Node {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	m.Content = append(m.Content, k, value)
	return k
}
