package cmd

import (
	"strings"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// The NAME arguments commands take: an entity (put), a relation (the
// generic forms, counters, reshard), or either (import, export).

func (a *app) entityArg(c *cobra.Command, name string) (*schema.Entity, error) {
	return schemaArg(a, c, "entity", name, (*schema.Schema).Entity, entityNames)
}

// relationArg looks up the RELATION argument.
func (a *app) relationArg(c *cobra.Command, name string) (*schema.Relation, error) {
	return schemaArg(a, c, "relation", name, (*schema.Schema).Relation, relationNames)
}

// targetArg resolves NAME to a relation or an entity.
func (a *app) targetArg(c *cobra.Command, name string) (rowfile.Target, error) {
	return schemaArg(a, c, "relation or entity", name, findTarget, targetNames)
}

// schemaArg resolves a NAME argument with find, whose zero value means not
// found; a name the schema does not define is a usage error listing the
// names it does.
func schemaArg[T comparable](a *app, c *cobra.Command, kind, name string, find func(*schema.Schema, string) T, names func(*schema.Schema) []string) (T, error) {
	var none T
	s, err := a.schema()
	if err != nil {
		return none, err
	}
	if v := find(s, name); v != none {
		return v, nil
	}
	return none, usagef(c, "unknown %s %q (the schema has: %s)", kind, name, strings.Join(names(s), ", "))
}

// findTarget finds NAME among the relations, then the entities.
func findTarget(s *schema.Schema, name string) rowfile.Target {
	if r := s.Relation(name); r != nil {
		return rowfile.Target{Relation: r}
	}
	if e := s.Entity(name); e != nil {
		return rowfile.Target{Entity: e}
	}
	return rowfile.Target{}
}

func entityNames(s *schema.Schema) []string {
	names := make([]string, len(s.Entities))
	for i, e := range s.Entities {
		names[i] = e.Name
	}
	return names
}

func relationNames(s *schema.Schema) []string {
	names := make([]string, len(s.Relations))
	for i, r := range s.Relations {
		names[i] = r.Name
	}
	return names
}

// targetNames are what import and export take as NAME: the schema's
// relations, then its entities.
func targetNames(s *schema.Schema) []string {
	return append(relationNames(s), entityNames(s)...)
}

// completeFirst offers names from the schema for a command's first argument
// and nothing after it.
func (a *app) completeFirst(names func(*schema.Schema) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || a.sch == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return names(a.sch), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNames offers the schema's relations and entities for NAME, and
// files after it (import's FILE).
func (a *app) completeNames(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 || a.sch == nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return targetNames(a.sch), cobra.ShellCompDirectiveNoFileComp
}
