package cmd

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// filterPattern reads `attribute op value`: a word operator needs spaces
// around it, a symbol none; == and != are read as = and <>.
var filterPattern = regexp.MustCompile(`^\s*([^\s=<>!]+)\s*(==|!=|<>|<=|>=|=|<|>|\s(?:begins_with|contains|not_exists|exists)\b)\s*(.*?)\s*$`)

// parseFilter reads a filter typed at f for the pane's relation: the value
// is typed by the attribute's declaration (as --set types it), quotes
// around it are dropped.
func parseFilter(rel *schema.Relation, dir ops.Direction, index schema.Index, text string) (ops.Filter, error) {
	g := filterPattern.FindStringSubmatch(text)
	if g == nil {
		return ops.Filter{}, fmt.Errorf("write attribute op value, e.g. grade = A (operators: %s)", strings.Join(ops.FilterOps, " "))
	}
	f := ops.Filter{Attr: g[1], Op: strings.TrimSpace(g[2])}
	switch f.Op {
	case "==":
		f.Op = "="
	case "!=":
		f.Op = "<>"
	}
	cols := listColumns(rel, dir, index)[1:]
	attr := slices.IndexFunc(rel.Attributes, func(a schema.Attribute) bool { return a.Name == f.Attr })
	if attr < 0 || !slices.Contains(cols, f.Attr) {
		return f, fmt.Errorf("%s is not an attribute the list holds; filter on one of: %s", f.Attr, strings.Join(cols, ", "))
	}
	value := unquote(g[3])
	if !ops.FilterOpTakesValue(f.Op) {
		if value != "" {
			return f, fmt.Errorf("%s takes no value", f.Op)
		}
		return f, nil
	}
	if value == "" {
		return f, fmt.Errorf("%s %s needs a value", f.Attr, f.Op)
	}
	v, err := schema.ParseValue(rel.Attributes[attr].Kind, value)
	if err != nil {
		return f, fmt.Errorf("%s is %s: %v", f.Attr, rel.Attributes[attr].Kind.Noun(), err)
	}
	f.Value = v
	return f, nil
}

// unquote drops one pair of quotes around a value.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// filterPreview is what the filter typed so far sends, with the pane's
// filters before it: the FilterExpression, its names and its values.
func (m *browseModel) filterPreview(text string) string {
	p := m.view.panes[m.focus]
	filters := slices.Clone(p.filters)
	if strings.TrimSpace(text) != "" {
		f, err := parseFilter(p.relation(), p.dir, m.sch.Table.Index, text)
		if err != nil {
			return err.Error()
		}
		filters = append(filters, f)
	}
	if len(filters) == 0 {
		return "no filter: every edge is listed"
	}
	pv, err := m.st.PreviewFilter(filters)
	if err != nil {
		return m.problem(err)
	}
	var names, values []string
	for _, k := range slices.Sorted(maps.Keys(pv.Names)) {
		names = append(names, k+"="+pv.Names[k])
	}
	for _, k := range slices.Sorted(maps.Keys(pv.Values)) {
		values = append(values, k+"="+avText(pv.Values[k]))
	}
	return fmt.Sprintf("FilterExpression: %s · names %s · values %s", pv.Expression, strings.Join(names, " "), strings.Join(values, " "))
}

// applyFilter adds the filter typed to the pane's (all must hold) and
// reads the list again from its start; nothing typed clears them.
func (m *browseModel) applyFilter(text string) tea.Cmd {
	p := m.view.panes[m.focus]
	if text == "" {
		if len(p.filters) == 0 {
			return nil
		}
		p.filters = nil
		m.note = "filters cleared"
		return m.restart(p)
	}
	f, err := parseFilter(p.relation(), p.dir, m.sch.Table.Index, text)
	if err != nil {
		m.status = err.Error()
		return nil
	}
	p.filters = append(p.filters, f)
	return m.restart(p)
}

// filterTitle says the pane's filters as they were typed.
func (p *browsePane) filterTitle() string {
	var parts []string
	for _, f := range p.filters {
		s := f.Attr + " " + f.Op
		if n, ok := f.Value.(schema.Number); ok {
			s += " " + string(n)
		} else if ops.FilterOpTakesValue(f.Op) {
			s += " " + cell(f.Value)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "filter " + strings.Join(parts, " and ")
}
