package cmd

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlPrinter buffers a list and writes it as one YAML document with the
// same shape as the JSON output.
type yamlPrinter struct {
	w      io.Writer
	entity orderedObject
	items  []any
}

func (p *yamlPrinter) object(rec orderedObject) error           { return writeYAML(p.w, rec) }
func (p *yamlPrinter) result(_ string, rec orderedObject) error { return p.object(rec) }
func (p *yamlPrinter) carriesNext() bool                        { return true }

func (p *yamlPrinter) beginList(_ []string, entity orderedObject) error {
	p.entity, p.items = entity, []any{}
	return nil
}

func (p *yamlPrinter) row(rec orderedObject) error {
	p.items = append(p.items, rec)
	return nil
}

func (p *yamlPrinter) endList(next string) error {
	var doc orderedObject
	if p.entity != nil {
		doc = append(doc, field{"entity", entityOrNull(p.entity)})
	}
	doc = append(doc, field{"items", p.items})
	if next != "" {
		doc = append(doc, field{"next", next})
	}
	return writeYAML(p.w, doc)
}

func writeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(v)); err != nil {
		return fmt.Errorf("write yaml: %w", err)
	}
	return enc.Close()
}

// yamlNode builds the node tree by hand so that field order is kept and
// numbers keep every digit (json.Number would otherwise print as a string).
func yamlNode(v any) *yaml.Node {
	scalar := func(tag, val string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: val} }
	switch t := v.(type) {
	case nil:
		return scalar("!!null", "null")
	case orderedObject:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, f := range t {
			n.Content = append(n.Content, scalar("!!str", f.Name), yamlNode(f.Value))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			n.Content = append(n.Content, scalar("!!str", k), yamlNode(t[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range t {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range t {
			n.Content = append(n.Content, scalar("!!str", e))
		}
		return n
	case []json.Number:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range t {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case json.Number:
		if strings.ContainsAny(t.String(), ".eE") {
			return scalar("!!float", t.String())
		}
		return scalar("!!int", t.String())
	case string:
		return scalar("!!str", t)
	case bool:
		return scalar("!!bool", fmt.Sprint(t))
	case []byte:
		return scalar("!!binary", base64.StdEncoding.EncodeToString(t))
	case int, int32, int64, float64:
		return yamlNode(json.Number(fmt.Sprint(t)))
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return scalar("!!str", fmt.Sprint(v))
	}
	return &n
}
