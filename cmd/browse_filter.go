package cmd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
)

// filterSyntax is what f takes, for its prompt.
const filterSyntax = `attribute op value: grade = B, grade <> A, begins_with(grade, "A"), attribute_not_exists(grade); "and" joins them`

// paneFilter is what the text typed at f makes of the pane's list: a
// range on an ordered relation's sort attribute (its order's index serves
// it as the key condition), else conditions for the FilterExpression,
// after those the pane has. The text is read as list --where and --filter
// read theirs.
func (p *browsePane) paneFilter(text string) (where *schema.Condition, filters []schema.Condition, err error) {
	rel := p.relation()
	where, filters = p.where, slices.Clone(p.filters)
	if strings.TrimSpace(text) == "" {
		return where, filters, nil
	}
	if p.ordered() && where == nil {
		if c, err := rel.ParseWhere(text); err == nil {
			return &c, filters, nil
		}
	}
	conds, err := rel.ParseFilter(text)
	if err != nil {
		return nil, nil, err
	}
	return where, append(filters, conds...), nil
}

// filterPreview is the Query the filter typed so far makes, a line each:
// its key condition and FilterExpression with their placeholders, then
// what the names and values stand for.
func (m *browseModel) filterPreview(text string) string {
	p := m.view.panes[m.focus]
	where, filters, err := p.paneFilter(text)
	if err != nil {
		return strings.TrimPrefix(message(err), "--filter ")
	}
	q := p.query(m.view.key, m.limit)
	q.Cursor, q.From, q.Where, q.Filter = "", "", where, filters
	pv, err := m.st.PreviewList(q)
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
	lines := []string{"KeyConditionExpression: " + pv.KeyCondition}
	if pv.Filter != "" {
		lines = append(lines, "FilterExpression: "+pv.Filter)
	}
	lines = append(lines, fmt.Sprintf("names %s · values %s", strings.Join(names, " "), strings.Join(values, " ")))
	return strings.Join(lines, "\n")
}

// applyFilter adds what was typed at f to the pane's list (all must hold)
// and reads it again from its start; nothing typed clears every filter.
func (m *browseModel) applyFilter(text string) tea.Cmd {
	p := m.view.panes[m.focus]
	if text == "" {
		if p.where == nil && len(p.filters) == 0 {
			return nil
		}
		p.where, p.filters = nil, nil
		m.note = "filters cleared"
		return m.restart(p)
	}
	where, filters, err := p.paneFilter(text)
	if err != nil {
		m.status = strings.TrimPrefix(message(err), "--filter ")
		return nil
	}
	p.where, p.filters = where, filters
	return m.restart(p)
}

// filterTitle says the pane's range and filters.
func (p *browsePane) filterTitle() string {
	var parts []string
	if p.where != nil {
		parts = append(parts, "where "+p.where.String())
	}
	for _, c := range p.filters {
		parts = append(parts, "filter "+c.String())
	}
	return strings.Join(parts, " · ")
}

// listQuery is q with the pane's range, filters and order.
func (p *browsePane) listQuery(q ops.ListQuery) ops.ListQuery {
	q.Where, q.Filter = p.where, p.filters
	q.Descending, q.Ascending = p.readOrder()
	return q
}
