package cmd

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

func (a *app) newSchemaCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "schema",
		Short: "Validate, show, draw, export or infer the schema; adjl help schema documents the file",
		Long:  schemaReferenceHelp(),
		Example: withExamples(
			"adjl help schema",
			"adjl schema validate examples/school.yaml",
			"adjl --schema examples/social.yaml schema show",
			"adjl schema diagram --format mermaid",
			"adjl schema export --format terraform",
			"adjl schema infer legacy > adjl.yaml",
		),
		Args: groupArgs,
		RunE: groupRun,
	}
	c.AddCommand(a.newSchemaValidateCmd(), a.newSchemaShowCmd(), a.newSchemaDiagramCmd(), a.newSchemaExportCmd(), a.newSchemaInferCmd())
	return c
}

func (a *app) newSchemaValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a schema file (default: --schema) and report every problem with file:line:col",
		Example: withExamples(
			"adjl schema validate",
			"adjl schema validate examples/school.yaml",
		),
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(c, "unexpected argument %s (want at most one FILE)", quoteArg(args[1]))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			path, s, err := a.schemaPath, a.sch, a.schErr
			if len(args) == 1 {
				path = args[0]
				s, err = loadSchemaFile(path, "arg")
			}
			if err != nil {
				return err
			}
			return a.printer().result(fmt.Sprintf("%s: valid (%d %s, %d %s)", path,
				len(s.Entities), english.Plural(len(s.Entities), "entity", "entities"),
				len(s.Relations), english.Plural(len(s.Relations), "relation", "relations")),
				orderedObject{
					{"file", path}, {"valid", true},
					{"entities", len(s.Entities)}, {"relations", len(s.Relations)},
				})
		},
	}
}

func (a *app) newSchemaShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the derived key layout (with example keys) and the access patterns",
		Long: `Show, for each entity and relation, the key attributes its items get (with example
ids), then every access pattern with the single DynamoDB operation and index
that serves it, the requests one run sends and the capacity they consume
with small items. No pattern is a Scan; adjl verify runs every pattern and
checks all of this.`,
		Example: withExamples("adjl schema show", "adjl --schema examples/social.yaml schema show -o json"),
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := a.schema()
			if err != nil {
				return err
			}
			layout := keyLayout(s)
			patterns := s.AccessPatterns()
			switch a.set.Output {
			case "table":
				return a.printSchemaTables(s, layout, patterns)
			case "csv":
				return &usageError{cmd: c, err: fmt.Errorf("schema show has two tables; use -o table, json, ndjson or yaml")}
			case "ndjson":
				p := a.printer()
				for _, r := range layout {
					if err := p.object(append(orderedObject{{"section", "keys"}}, r...)); err != nil {
						return err
					}
				}
				for _, pt := range patterns {
					if err := p.object(append(orderedObject{{"section", "patterns"}}, patternRecord(s, pt)...)); err != nil {
						return err
					}
				}
				return nil
			}
			keys := make([]any, len(layout))
			for i, r := range layout {
				keys[i] = r
			}
			pats := make([]any, len(patterns))
			for i, pt := range patterns {
				pats[i] = patternRecord(s, pt)
			}
			return a.printer().object(orderedObject{
				{"file", s.File},
				{"table", tableRecord(s)},
				{"keys", keys},
				{"patterns", pats},
			})
		},
	}
}

func tableRecord(s *schema.Schema) orderedObject {
	l := s.Layout()
	rec := orderedObject{{"name", s.Table.Name}, {"billing", s.Table.Billing},
		{"partitionKey", l.PK}, {"sortKey", l.SK},
		{"index", s.Table.Index.Name}, {"layout", string(l.Kind)},
		{"indexPartitionKey", l.IndexPK}, {"indexSortKey", l.IndexSK},
		{"projection", s.Table.Index.Projection}}
	if len(s.Table.Index.Include) > 0 {
		rec = append(rec, field{"include", s.Table.Index.Include})
	}
	return rec
}

// keyLayout lists the items the schema produces with example keys: each
// entity item, each role item, each relation's edge, with the key
// attributes the layout gives them (the inverted layout's index keys are
// the table keys, so it shows two).
func keyLayout(s *schema.Schema) []orderedObject {
	l := s.Layout()
	row := func(item string, k schema.Keys, note string) orderedObject {
		r := append(orderedObject{{"item", item}}, keysRecord(l, k)...)
		if note != "" {
			r = append(r, field{"note", note})
		}
		return r
	}
	var out []orderedObject
	for _, e := range s.Entities {
		out = append(out, row(e.Name, l.ItemKeys(e.Prefix+strings.ToLower(e.Name)+"1"), "entity item"))
	}
	seen := map[string]bool{}
	for _, r := range s.Relations {
		from, to := exampleIDs(r)
		for _, sd := range []struct {
			side schema.Side
			key  string
		}{{r.From, from}, {r.To, to}} {
			if sd.side.Entity == nil || sd.side.Prefix == sd.side.Entity.Prefix || seen[sd.side.Prefix] {
				continue
			}
			seen[sd.side.Prefix] = true
			out = append(out, row(sd.side.Entity.Name+" as "+sideColumn(r, sd.side), l.ItemKeys(sd.key), "role item (counters)"))
		}
		note := r.Name + " edge"
		if r.Shards > 1 {
			note += fmt.Sprintf(", %s sharded %d ways", l.IndexPK, r.Shards)
		}
		keys := l.EdgeKeys(r, from, to)
		if r.IsComposite() {
			keys.IndexSK = r.CompositeIndexSK("<"+r.Sort.By+">", from)
		}
		if r.Sort != nil {
			note += ", ordered by " + r.Sort.Signature()
		}
		out = append(out, row(r.Name, keys, note))
	}
	return out
}

func patternRecord(s *schema.Schema, p schema.Pattern) orderedObject {
	index := p.Index
	if index == "" {
		index = "table"
	}
	reqs := s.Requests(p)
	return orderedObject{
		{"name", p.Name}, {"command", p.Command}, {"operation", p.Operation}, {"index", index},
		{"key", p.KeyCondition}, {"filter", p.Filter},
		{"requests", schema.RequestsText(reqs)}, {"capacity", schema.CapacityOf(reqs).String()},
		{"notes", p.Notes},
	}
}

func (a *app) printSchemaTables(s *schema.Schema, layout []orderedObject, patterns []schema.Pattern) error {
	idx := s.Table.Index
	proj := idx.Projection
	if len(idx.Include) > 0 {
		proj += " " + strings.Join(idx.Include, ",")
	}
	l := s.Layout()
	index := idx.Name
	if l != schema.DefaultLayout {
		index = fmt.Sprintf("%s, %s layout on %s, %s", idx.Name, l.Kind, l.IndexPK, l.IndexSK)
	}
	fmt.Fprintf(a.io.Out, "Key layout (table %s, index %s, projection %s, %s):\n", s.Table.Name, index, proj, s.Table.Billing)
	cols := append(append([]string{"item"}, l.KeyNames()...), "note")
	var rows [][]string
	for _, r := range layout {
		rows = append(rows, cells(r, cols...))
	}
	if err := printTable(a.io, cols, rows); err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out, "\nAccess patterns:")
	rows = rows[:0]
	for _, p := range patterns {
		rows = append(rows, cells(patternRecord(s, p), "name", "command", "operation", "index", "key", "filter", "requests", "capacity", "notes"))
	}
	return printTable(a.io, []string{"pattern", "command", "operation", "index", "key condition", "filter", "requests", "capacity", "notes"}, rows)
}

func cells(rec orderedObject, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		v, _ := rec.get(n)
		out[i] = cell(v)
	}
	return out
}
