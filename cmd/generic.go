package cmd

import (
	"github.com/adjl/adjl/ops"
	"github.com/spf13/cobra"
)

// The generic forms (adjl link RELATION FROM TO) do what the relation verbs
// do, for scripts that should not depend on a schema's verb names.

func (a *app) newLinkCmd() *cobra.Command {
	flags := &edgeFlags{}
	c := &cobra.Command{
		Use:   "link RELATION FROM TO [--set name=value ...] [--unset name ...]",
		Short: "Link two keys through a relation (generic form of the link verb)",
		Long: `Write the relation's edge between FROM and TO once, with both sides' counters in
the same transaction. Same as the relation's own link verb (for example enroll).`,
		Example: withExamples(
			"adjl link enrollment STU#a91 CRS#math204 --set grade=A",
			"adjl link follow ACTOR#alice TARGET#bob",
			"adjl link enrollment STU#a91 CRS#math204 --unset grade",
		),
		Args:              exactArgs("RELATION", "FROM", "TO"),
		ValidArgsFunction: a.completeFirst(relationNames),
		RunE:              a.edgeRunE(nil, flags, a.linkRun),
	}
	flags.addLinkFlags(c, nil)
	return c
}

func (a *app) newUnlinkCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "unlink RELATION FROM TO",
		Short:             "Remove the edge between two keys (generic form of the unlink verb)",
		Example:           withExamples("adjl unlink enrollment STU#a91 CRS#math204"),
		Args:              exactArgs("RELATION", "FROM", "TO"),
		ValidArgsFunction: a.completeFirst(relationNames),
		RunE:              a.edgeRunE(nil, &edgeFlags{}, a.unlinkRun),
	}
}

func (a *app) newCheckCmd() *cobra.Command {
	flags := &edgeFlags{}
	c := &cobra.Command{
		Use:   "check RELATION FROM TO",
		Short: "Check whether two keys are linked (exit 0 yes, 1 no)",
		Example: withExamples(
			"adjl check enrollment STU#a91 CRS#math204",
			"adjl check enrollment a91 math204 -o json",
		),
		Args:              exactArgs("RELATION", "FROM", "TO"),
		ValidArgsFunction: a.completeFirst(relationNames),
		RunE:              a.edgeRunE(nil, flags, a.checkRun),
	}
	flags.addCheckFlags(c)
	return c
}

func (a *app) newListCmd() *cobra.Command {
	var reverse bool
	opts := &listOptions{}
	c := &cobra.Command{
		Use:   "list RELATION KEY [--reverse]",
		Short: "List a relation from one key, forward or --reverse (paged)",
		Long: `List the edges of RELATION from KEY. Forward (the default) KEY is a from-side key
and the list is one Query on the base table; with --reverse KEY is a to-side key
and the list is one Query on the inverted index (eventually consistent).
Pages: --limit, --cursor, --all; --with-entity adds KEY's own item.`,
		Example: withExamples(
			"adjl list enrollment STU#a91",
			"adjl list enrollment CRS#math204 --reverse --limit 50 -o json",
		),
		Args:              exactArgs("RELATION", "KEY"),
		ValidArgsFunction: a.completeFirst(relationNames),
		RunE: func(c *cobra.Command, args []string) error {
			rel, err := a.relationArg(c, args[0])
			if err != nil {
				return err
			}
			dir := ops.Forward
			if reverse {
				dir = ops.Reverse
			}
			l, err := resolveList(rel, dir, args[1], *opts)
			if err != nil {
				return err
			}
			return a.listRun(c.Context(), l)
		},
	}
	c.Flags().BoolVar(&reverse, "reverse", false, "list from the to side (inverted index)")
	opts.addListFlags(c, "KEY")
	return c
}
