package cmd

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// addRelationCmds adds each relation's verbs (enroll, unenroll, enrolled,
// courses, members) as top-level commands.
func (a *app) addRelationCmds(root *cobra.Command, s *schema.Schema) {
	for _, rel := range s.Relations {
		for _, c := range a.relationCmds(rel) {
			c.GroupID = "relation"
			root.AddCommand(c)
		}
	}
}

// exampleIDs are made-up ids for help examples: real prefixes, plausible ids.
func exampleIDs(rel *schema.Relation) (from, to string) {
	name := func(sd schema.Side) string {
		if sd.Entity != nil {
			return strings.ToLower(sd.Entity.Name)
		}
		return strings.ToLower(strings.TrimSuffix(sd.Prefix, schema.Delimiter))
	}
	from, to = name(rel.From)+"1", name(rel.To)+"1"
	if from == to {
		to = name(rel.To) + "2"
	}
	return rel.From.Prefix + from, rel.To.Prefix + to
}

// exampleSet is a --set flag for the first edge attribute, typed by kind.
func exampleSet(attrs []schema.Attribute) string {
	if len(attrs) == 0 {
		return ""
	}
	a := attrs[0]
	v := map[schema.AttrKind]string{
		schema.KindString: "A", schema.KindNumber: "3", schema.KindBool: "true",
		schema.KindDate: "2026-09-01", schema.KindDatetime: "2026-09-01T09:00:00Z",
		schema.KindStrings: "a,b",
	}[a.Kind]
	if v == "" {
		v = "x"
	}
	return fmt.Sprintf(" --set %s=%s", a.Name, v)
}

// exampleUnset is an --unset flag for the first edge attribute.
func exampleUnset(attrs []schema.Attribute) string {
	if len(attrs) == 0 {
		return ""
	}
	return " --unset " + attrs[0].Name
}

func attrNames(attrs []schema.Attribute) string {
	if len(attrs) == 0 {
		return "none"
	}
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		parts[i] = fmt.Sprintf("%s (%s)", a.Name, a.Kind)
	}
	return strings.Join(parts, ", ")
}

func (a *app) relationCmds(rel *schema.Relation) []*cobra.Command {
	from, to := exampleIDs(rel)
	fromWord := strings.ToUpper(sideColumn(rel, rel.From))
	toWord := strings.ToUpper(sideColumn(rel, rel.To))
	l := a.sch.Layout()
	keys := l.EdgeKeys(rel, from, to)
	var cmds []*cobra.Command
	bareFrom, bareTo := strings.TrimPrefix(from, rel.From.Prefix), strings.TrimPrefix(to, rel.To.Prefix)

	if v := rel.Verbs.Link; v != "" {
		flags := &edgeFlags{}
		c := &cobra.Command{
			Use:   fmt.Sprintf("%s %s %s [--set name=value ...] [--unset name ...]", v, fromWord, toWord),
			Short: fmt.Sprintf("Link %s to %s (%s)", article(sideColumn(rel, rel.From)), article(sideColumn(rel, rel.To)), rel.Name),
			Long: fmt.Sprintf(`Link %s to %s: write the %s edge once (%s=%s %s=%s),
with the counters of both sides in the same transaction. Repeating it changes
nothing ("unchanged"); with --set it updates the edge's attributes, and with
--unset removes some, without counting twice. --set name=@FILE reads a value
from a file (@- standard input, @@ a literal @). Keys are %s<id> and %s<id>;
bare ids are accepted.
Edge attributes: %s.
%s`, fromWord, toWord, rel.Name, l.PK, keys.PK, l.SK, keys.SK, rel.From.Prefix, rel.To.Prefix, attrNames(rel.Attributes), requireEntitiesHelp(rel)),
			Example: withExamples(
				fmt.Sprintf("adjl %s %s %s%s", v, from, to, exampleSet(rel.Attributes)),
				fmt.Sprintf("adjl %s %s %s", v, bareFrom, bareTo),
				fmt.Sprintf("adjl %s %s %s%s", v, bareFrom, bareTo, exampleUnset(rel.Attributes)),
			),
			Args: exactArgs(fromWord, toWord),
			RunE: a.edgeRunE(rel, flags, a.linkRun),
		}
		flags.addLinkFlags(c, rel.Attributes)
		cmds = append(cmds, c)
	}
	if v := rel.Verbs.Unlink; v != "" {
		cmds = append(cmds, &cobra.Command{
			Use:   fmt.Sprintf("%s %s %s", v, fromWord, toWord),
			Short: fmt.Sprintf("Remove the %s edge between %s and %s", rel.Name, article(sideColumn(rel, rel.From)), article(sideColumn(rel, rel.To))),
			Long: fmt.Sprintf(`Remove the %s edge %s -> %s and decrement both sides' counters in the
same transaction. Removing an edge that does not exist changes nothing ("unchanged").`, rel.Name, fromWord, toWord),
			Example: withExamples(fmt.Sprintf("adjl %s %s %s", v, from, to)),
			Args:    exactArgs(fromWord, toWord),
			RunE:    a.edgeRunE(rel, &edgeFlags{}, a.unlinkRun),
		})
	}
	if v := rel.Verbs.Check; v != "" {
		flags := &edgeFlags{}
		c := &cobra.Command{
			Use:   fmt.Sprintf("%s %s %s", v, fromWord, toWord),
			Short: fmt.Sprintf("Check whether %s is linked to %s (exit 0 yes, 1 no)", article(sideColumn(rel, rel.From)), article(sideColumn(rel, rel.To))),
			Long: fmt.Sprintf(`Check the %s edge %s -> %s with one GetItem (%s=%s %s=%s).
Prints "linked" and exits 0, or prints "not linked" and exits 1; -o json prints
the answer and the edge's attributes. --consistent makes the read strongly consistent.`,
				rel.Name, fromWord, toWord, l.PK, keys.PK, l.SK, keys.SK),
			Example: withExamples(
				fmt.Sprintf("adjl %s %s %s", v, from, to),
				fmt.Sprintf("adjl %s %s %s -o json", v, from, to),
			),
			Args: exactArgs(fromWord, toWord),
			RunE: a.edgeRunE(rel, flags, a.checkRun),
		}
		flags.addCheckFlags(c)
		cmds = append(cmds, c)
	}
	if v := rel.Verbs.Forward; v != "" {
		cmds = append(cmds, a.listCmd(rel, ops.Forward, v, fromWord, from,
			fmt.Sprintf(`List the %ss %s is linked to (%s), one Query on the base table:
%s = %s AND begins_with(%s, %q). --consistent is allowed.`,
				sideColumn(rel, rel.To), article(sideColumn(rel, rel.From)), rel.Name, l.PK, from, l.SK, rel.EdgeSKPrefix())))
	}
	if v := rel.Verbs.Reverse; v != "" {
		index := a.sch.Table.Index.Name
		cmds = append(cmds, a.listCmd(rel, ops.Reverse, v, toWord, to,
			fmt.Sprintf(`List the %ss linked to %s (%s) from the inverted index %s:
%s = %s. Index reads are eventually consistent, so --consistent is refused.`,
				sideColumn(rel, rel.From), article(sideColumn(rel, rel.To)), rel.Name, index, l.IndexPK, reversePartitions(l, rel, to))))
	}
	return cmds
}

// requireEntitiesHelp says whether a link needs both entity items to exist.
func requireEntitiesHelp(rel *schema.Relation) string {
	if rel.RequireEntities {
		return "The schema sets requireEntities: the link is refused (exit 1) unless both entity items exist.\n" +
			"An item an earlier link created to hold a counter exists: it satisfies the check."
	}
	return "The entity items need not exist (the link creates the items holding its counters);\n" +
		"--require-entities (or requireEntities: true in the schema) refuses the link, exit 1, unless both exist.\n" +
		"An item an earlier link created to hold a counter exists: it satisfies the check."
}

// listCmd builds a forward or reverse list verb.
func (a *app) listCmd(rel *schema.Relation, dir ops.Direction, verb, word, example, long string) *cobra.Command {
	opts := &listOptions{}
	c := &cobra.Command{
		Use:   fmt.Sprintf("%s %s", verb, word),
		Short: fmt.Sprintf("List the %ss of %s (%s, paged)", listNoun(rel, dir), article(strings.ToLower(word)), rel.Name),
		Long: long + `

Pages: --limit N rows per page, --cursor TOKEN to continue (the next-page
command is printed on stderr), --all for every page, --desc for last first
(ScanIndexForward false; a cursor keeps its direction). --with-entity also
returns the ` + strings.ToLower(word) + `'s own item on the first page: from the same Query
when nothing else shares the partition and the item sorts first, else one
GetItem more (adjl schema show says which).`,
		Example: withExamples(
			fmt.Sprintf("adjl %s %s", verb, example),
			fmt.Sprintf("adjl %s %s --limit 10 -o json", verb, example),
			fmt.Sprintf("adjl %s %s --desc --limit 5", verb, example),
			fmt.Sprintf("adjl %s %s --all --with-entity -o ndjson", verb, example),
			fmt.Sprintf("adjl %s %s --count", verb, example),
		),
		Args: exactArgs(word),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := resolveList(rel, dir, args[0], *opts)
			if err != nil {
				return err
			}
			return a.listRun(c.Context(), l)
		},
	}
	opts.addListFlags(c, strings.ToLower(word))
	return c
}

func listNoun(rel *schema.Relation, dir ops.Direction) string {
	if dir == ops.Forward {
		return sideColumn(rel, rel.To)
	}
	return sideColumn(rel, rel.From)
}

// unsetCompletion completes --unset with the declared attribute names.
func unsetCompletion(attrs []schema.Attribute) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := make([]string, len(attrs))
		for i, a := range attrs {
			out[i] = a.Name
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// setCompletion completes --set with the declared attribute names.
func setCompletion(attrs []schema.Attribute) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := make([]string, len(attrs))
		for i, a := range attrs {
			out[i] = a.Name + "="
		}
		return out, cobra.ShellCompDirectiveNoSpace
	}
}

// article puts "a" or "an" before a noun, for help text.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// reversePartitions describes the index partition(s) a reverse list reads.
func reversePartitions(l schema.Layout, rel *schema.Relation, to string) string {
	if rel.Shards <= 1 {
		return l.ReversePartition(rel, to, 0)
	}
	return fmt.Sprintf("%s ... %s (%d shards, queried in parallel and merged in order)",
		l.ReversePartition(rel, to, 0), l.ReversePartition(rel, to, rel.Shards-1), rel.Shards)
}
