package cmd

import (
	"strings"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// completeNames offers the schema's relations and entities.
func (a *app) completeNames(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 || a.sch == nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return targetNames(a.sch), cobra.ShellCompDirectiveNoFileComp
}

// targetNames are what import and export take as NAME: the schema's
// relations, then its entities.
func targetNames(s *schema.Schema) []string {
	var out []string
	for _, r := range s.Relations {
		out = append(out, r.Name)
	}
	for _, e := range s.Entities {
		out = append(out, e.Name)
	}
	return out
}

// targetArg resolves NAME to a relation or an entity.
func (a *app) targetArg(c *cobra.Command, name string) (rowfile.Target, error) {
	s, err := a.schema()
	if err != nil {
		return rowfile.Target{}, err
	}
	if r := s.Relation(name); r != nil {
		return rowfile.Target{Relation: r}, nil
	}
	if e := s.Entity(name); e != nil {
		return rowfile.Target{Entity: e}, nil
	}
	return rowfile.Target{}, usagef(c, "unknown relation or entity %q (the schema has: %s)", name, strings.Join(targetNames(s), ", "))
}
