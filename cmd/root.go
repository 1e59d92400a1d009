package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
(--config, ./.adjl/config.yaml, $XDG_CONFIG_HOME/adjl/config.yaml) > default.

Exit codes: 0 ok, 1 check false or not found, 2 usage or input, 3 invalid schema,
4 table missing or different, 5 conflict, 6 backend unreachable, 7 throttled,
8 import lines rejected, 10 internal; details in 'adjl help exit-codes'.`,
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
	root.Version = version()
	root.SetVersionTemplate(versionLine() + "\n")
	addGlobalFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: flagError(err)}
	})
	if a.sch == nil && a.schErr != nil && !schema.IsInvalid(a.schErr) {
		// A new user's first `adjl --help` should say why no enroll or
		// members is listed.
		root.Long += fmt.Sprintf("\n\nNote: %v, so no relation verbs are listed;\nname a schema with --schema, or write a starter ./adjl.yaml with adjl init.", a.schErr)
	}
	if a.sch != nil {
		// First, so the schema's own verbs head the help.
		root.AddGroup(&cobra.Group{ID: "relation", Title: "Relation verbs (from " + a.sch.File + "):"})
	}
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
	for _, c := range []*cobra.Command{a.newInitCmd(), a.newTableCmd(), a.newSchemaCmd(), a.newVerifyCmd(), a.newLocalCmd(), a.newConfigCmd(), a.newVersionCmd()} {
		c.GroupID = "admin"
		root.AddCommand(c)
	}
	root.AddCommand(a.newReshardCmd(), a.newImportCmd(), a.newExportCmd(), a.newCountersCmd())
	b := a.newBrowseCmd()
	b.GroupID = "data"
	root.AddCommand(b)
	root.AddCommand(newExitCodesTopic())
	root.RegisterFlagCompletionFunc("output", fixedCompletion(outputFormats...))
	root.RegisterFlagCompletionFunc("endpoint", fixedCompletion("local", "aws", "http://127.0.0.1:8000"))
	return root
}

// listFlagNames are the flags only list commands have.
var listFlagNames = []string{"limit", "cursor", "all", "with-entity", "desc"}

// flagError makes pflag's "unknown flag: --cursor" say where a list flag
// belongs.
func flagError(err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if ok && slices.Contains(listFlagNames, name) {
		return fmt.Errorf("--%s applies only to list commands (relation list verbs such as members, and adjl list)", name)
	}
	if ok && name == "consistent" {
		return errors.New("--consistent applies only to reads: list commands, check verbs and get")
	}
	// pflag's own wording ends in strconv's ("strconv.ParseInt: parsing
	// "abc": invalid syntax"); a number flag says what it takes instead.
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) && strings.HasPrefix(bad.GetFlag().Value.Type(), "int") {
		name, value := bad.GetFlag().Name, bad.GetValue()
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("invalid --%s %q: the number is too large", name, value)
		}
		return fmt.Errorf("invalid --%s %q: want a whole number, such as --%s 10", name, value, name)
	}
	return err
}

// tuneBuiltins gives cobra's help and completion commands adjl's argument
// checks and examples: `adjl completion tcsh` is a usage error, not help.
// It runs after SetOut: cobra's completion commands capture the writer.
func tuneBuiltins(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	shellExamples := map[string][]string{
		"bash":       {"source <(adjl completion bash)", "adjl completion bash > /etc/bash_completion.d/adjl"},
		"zsh":        {`adjl completion zsh > "${fpath[1]}/_adjl"`},
		"fish":       {"adjl completion fish > ~/.config/fish/completions/adjl.fish"},
		"powershell": {"adjl completion powershell | Out-String | Invoke-Expression"},
	}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = withExamples("adjl help enroll", "adjl help exit-codes")
			c.Args = func(hc *cobra.Command, args []string) error {
				if len(args) == 0 {
					return nil
				}
				found, _, err := root.Find(args)
				if err != nil || found == root || found.Name() != args[len(args)-1] {
					return &usageError{err: fmt.Errorf("unknown help topic %q", strings.Join(args, " ")),
						hint: "'adjl --help' lists the commands; 'adjl help exit-codes' explains exit codes"}
				}
				return nil
			}
		case "completion":
			c.Args, c.RunE = groupArgs, groupRun
			c.Example = withExamples("source <(adjl completion bash)", "adjl completion zsh > \"${fpath[1]}/_adjl\"")
			for _, sh := range c.Commands() {
				if ex, ok := shellExamples[sh.Name()]; ok {
					sh.Example = withExamples(ex...)
				}
			}
		}
	}
}

// fixedCompletion completes a flag with a fixed list of values.
func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// preRun resolves the settings once cobra has parsed the flags; from here
// on, errors come from the command itself.
func (a *app) preRun(c *cobra.Command, _ []string) error {
	a.started, a.cmd = true, c
	err := a.resolveSettings()
	a.setColor()
	var u *usageError
	if errors.As(err, &u) && u.cmd == nil {
		u.cmd = c
	}
	return err
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
		msg := fmt.Sprintf("unknown command %s for %q", quoteArg(args[0]), c.CommandPath())
		if sugg := suggestions(c, args[0]); len(sugg) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(sugg, " or "))
		}
		return usagef(c, "%s (want one of: %s)", msg, strings.Join(names, ", "))
	}
	return nil
}

func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		if c.HasSubCommands() {
			return groupArgs(c, args)
		}
		return usagef(c, "unexpected argument %s", quoteArg(args[0]))
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
			return usagef(c, "unexpected argument %s (want %s)", quoteArg(args[len(names)]), strings.Join(names, " "))
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
