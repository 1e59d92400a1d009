package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "adjl",
		Short: "Many-to-many relationships in DynamoDB, the adjacency-list way",
		Long: `adjl models and queries many-to-many relationships in Amazon DynamoDB with the
adjacency-list pattern. A YAML schema (--schema, default ./adjl.yaml) names the
entities and relations; each relation adds its own verbs (enroll, members, ...).
Every read is one Query or GetItem, never a Scan.

Backends (--endpoint): local (the embedded engine, data in --data, the default),
aws (the SDK's default chain, --region, --profile), or the URL of any
DynamoDB-compatible server. Settings: flag > ADJL_* environment > config file
(--config, ./.adjl/config.yaml, $XDG_CONFIG_HOME/adjl/config.yaml) > default.`,
		Example: `  adjl --schema examples/school.yaml table create
  adjl put student a91 --set name=Ana
  adjl enroll STU#a91 CRS#math204 --set grade=A
  adjl members CRS#math204 -o json`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		Args:              noArgs,
		RunE:              groupRun,
		PersistentPreRunE: a.preRun,
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	addGlobalFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: err}
	})
	root.AddGroup(
		&cobra.Group{ID: "data", Title: "Entities and edges:"},
		&cobra.Group{ID: "admin", Title: "Table, schema and engine:"},
	)
	root.SetHelpCommandGroupID("admin")
	root.SetCompletionCommandGroupID("admin")
	for _, c := range []*cobra.Command{a.newPutCmd(), a.newGetCmd(), a.newDeleteCmd(),
		a.newLinkCmd(), a.newUnlinkCmd(), a.newCheckCmd(), a.newListCmd()} {
		c.GroupID = "data"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.newTableCmd(), a.newSchemaCmd(), a.newLocalCmd(), a.newVersionCmd()} {
		c.GroupID = "admin"
		root.AddCommand(c)
	}
	return root
}

// preRun resolves the settings once cobra has parsed the flags; from here
// on, errors come from the command itself.
func (a *app) preRun(c *cobra.Command, _ []string) error {
	a.started = true
	if err := a.resolveSettings(); err != nil {
		var u *usageError
		if ok := asUsage(err, &u); ok && u.cmd == nil {
			u.cmd = c
		}
		return err
	}
	return nil
}

func asUsage(err error, u **usageError) bool {
	e, ok := err.(*usageError)
	if ok {
		*u = e
	}
	return ok
}

// groupRun is the RunE of command groups (adjl, adjl table): bare, they
// print their help; an unknown word after them is a usage error.
func groupRun(c *cobra.Command, args []string) error {
	return c.Help()
}

// groupArgs refuses an unknown subcommand of a group.
func groupArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		var names []string
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		return usagef(c, "unknown command %q for %q (want one of: %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
	}
	return nil
}

func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		if c.HasSubCommands() {
			return groupArgs(c, args)
		}
		return usagef(c, "unexpected argument %q", args[0])
	}
	return nil
}

// exactArgs names the positional arguments, so a missing one is reported by
// name ("missing TO") rather than by count.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			missing := names[len(args):]
			return usagef(c, "missing %s", strings.Join(missing, " and "))
		case len(args) > len(names):
			return usagef(c, "unexpected argument %q (want %s)", args[len(names)], strings.Join(names, " "))
		}
		return nil
	}
}

// withExamples formats Example lines the way cobra prints them.
func withExamples(lines ...string) string {
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
