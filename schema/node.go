package schema

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The schema is read by walking yaml.Node rather than decoding into structs:
// only nodes know their line and column, and every message must carry them.

// pair is one key: value entry of a YAML mapping.
type pair struct{ key, val *yaml.Node }

// name is the key's text.
func (p pair) name() string { return p.key.Value }

// maxAliasHops bounds alias resolution; YAML aliases cannot chain, but fuzzed
// input must never loop.
const maxAliasHops = 8

// deref follows aliases (*anchor) to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasHops; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// pairs returns a mapping's entries in file order. Non-mapping values,
// non-scalar keys, merge keys and duplicate keys are reported; the bad entries
// are skipped. what names the mapping in messages ("entities", "entity student").
func (c *collect) pairs(n *yaml.Node, what, example string) []pair {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		if isNull(n) {
			c.addf(n.Line, n.Column, "%s is empty; write it as a mapping, e.g. %s", what, example)
		} else {
			c.addf(n.Line, n.Column, "%s must be a mapping (name: value entries), not %s; e.g. %s", what, describe(n), example)
		}
		return nil
	}
	seen := make(map[string]*yaml.Node)
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		switch {
		case k == nil || k.Kind != yaml.ScalarNode:
			c.addf(n.Content[i].Line, n.Content[i].Column, "keys in %s must be plain names", what)
			continue
		case k.Tag == "!!merge":
			c.addf(k.Line, k.Column, "merge keys (<<) are not supported in %s; write the fields out", what)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			c.addf(k.Line, k.Column, "duplicate key %q in %s (first at line %d); remove one of them", k.Value, what, first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{key: k, val: v})
	}
	return out
}

// fields is pairs for a mapping with a fixed set of field names: any other
// key is reported with the list of allowed ones.
func (c *collect) fields(n *yaml.Node, what, example string, allowed ...string) map[string]pair {
	out := make(map[string]pair)
	for _, p := range c.pairs(n, what, example) {
		if !slices.Contains(allowed, p.name()) {
			c.addf(p.key.Line, p.key.Column, "unknown field %q in %s; allowed fields: %s", p.name(), what, strings.Join(allowed, ", "))
			continue
		}
		out[p.name()] = p
	}
	return out
}

// require reports each missing field at the node that should hold it.
func (c *collect) require(f map[string]pair, at *yaml.Node, what string, hints ...[2]string) bool {
	ok := true
	for _, h := range hints {
		if _, found := f[h[0]]; !found {
			c.addf(at.Line, at.Column, "%s is missing the required field %q; add %s", what, h[0], h[1])
			ok = false
		}
	}
	return ok
}

// str returns a scalar's text. Null, mappings and sequences are reported.
func (c *collect) str(p pair, what string) (string, bool) {
	v := deref(p.val)
	switch {
	case v == nil || isNull(v):
		c.addf(p.key.Line, p.key.Column, "%s has no value; give it one", what)
		return "", false
	case v.Kind != yaml.ScalarNode:
		c.addf(v.Line, v.Column, "%s must be a single value, not %s", what, describe(v))
		return "", false
	}
	return v.Value, true
}

// integer returns a scalar integer (YAML forms such as 0x10 included).
func (c *collect) integer(p pair, what string) (int64, bool) {
	return typedScalar[int64](c, p, what, "!!int", "a whole number")
}

// boolean returns a scalar true or false.
func (c *collect) boolean(p pair, what string) (bool, bool) {
	return typedScalar[bool](c, p, what, "!!bool", "true or false")
}

// typedScalar decodes a scalar of the YAML tag into a T; anything else is
// reported as not being want ("a whole number"), at the value or, where
// there is none, at the key.
func typedScalar[T any](c *collect, p pair, what, tag, want string) (T, bool) {
	v := deref(p.val)
	var x T
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag != tag || v.Decode(&x) != nil {
		at := p.key
		if v != nil {
			at = v
		}
		c.addf(at.Line, at.Column, "%s must be %s, not %s", what, want, describe(v))
		var zero T
		return zero, false
	}
	return x, true
}

// strList returns a sequence of scalars (a single scalar is refused so that
// `include: a, b` is not silently read as one name).
func (c *collect) strList(p pair, what string) ([]string, []*yaml.Node, bool) {
	v := deref(p.val)
	if v == nil || v.Kind != yaml.SequenceNode {
		at := p.key
		if v != nil {
			at = v
		}
		c.addf(at.Line, at.Column, "%s must be a list, e.g. [name, email], not %s", what, describe(v))
		return nil, nil, false
	}
	var out []string
	var nodes []*yaml.Node
	ok := true
	for _, it := range v.Content {
		it = deref(it)
		if it == nil || it.Kind != yaml.ScalarNode || isNull(it) {
			c.addf(v.Line, v.Column, "%s must contain only names", what)
			ok = false
			continue
		}
		out = append(out, it.Value)
		nodes = append(nodes, it)
	}
	return out, nodes, ok
}

// describe names a node's shape for messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil || isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}

// Node kinds, shortened for switch statements.
const (
	mappingKind = yaml.MappingNode
	seqKind     = yaml.SequenceNode
)
