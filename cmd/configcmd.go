package cmd

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func (a *app) newConfigCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the settings in force and where each came from",
		Long: `Settings come from, in order: a flag, an ADJL_* environment variable, a config
file, the default. 'adjl config show' prints each resolved setting with the
layer it came from (for a config file, the file and line); 'adjl config path'
the config files adjl looks for and which one it read.`,
		Example: withExamples("adjl config show", "adjl --endpoint aws config show -o json", "adjl config path"),
		Args:    groupArgs,
		RunE:    groupRun,
	}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print every setting, its value and where it came from",
		Long: `Print every global setting as adjl resolved it for this command line: its value
and its origin - "flag --NAME", "environment ADJL_NAME", "config file FILE line
N" or "default". Flags given with 'config show' count, as they would for any
other command.`,
		Example: withExamples("adjl config show", "adjl config show -o json", "adjl --endpoint http://127.0.0.1:8000 config show -o json"),
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return a.configShowRun() },
	})
	c.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the config files adjl looks for and which one it read",
		Long: `Print the config files in the order adjl looks for them - --config or
ADJL_CONFIG when set, else ./.adjl/config.yaml, then
$XDG_CONFIG_HOME/adjl/config.yaml (~/.config/adjl/config.yaml when XDG_CONFIG_HOME
is unset) - and for each whether it was read. The first one that exists is the
only one read.`,
		Example: withExamples("adjl config path", "adjl --config ci.yaml config path"),
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return a.configPathRun() },
	})
	return c
}

// settingRow is one global setting as resolved for this command line.
type settingRow struct {
	name   string
	value  any // a string, or a bool for switches
	origin string
}

// settingRows are the global settings in the order of their names.
func (a *app) settingRows() []settingRow {
	var rows []settingRow
	a.root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		var value any = a.v.GetString(f.Name)
		switch {
		case f.Value.Type() == "bool":
			value = a.v.GetBool(f.Name)
		case f.Name == "config":
			value = a.set.ConfigFile
		case f.Name == "output":
			value = a.set.Output
		case f.Name == "endpoint":
			value = a.set.Endpoint
		}
		rows = append(rows, settingRow{f.Name, value, a.set.origin[f.Name]})
	})
	slices.SortFunc(rows, func(x, y settingRow) int { return cmp.Compare(x.name, y.name) })
	return rows
}

func (a *app) configShowRun() error {
	p := a.printer()
	if err := p.beginList([]string{"setting", "value", "origin"}, nil); err != nil {
		return err
	}
	for _, r := range a.settingRows() {
		if err := p.row(orderedObject{{"setting", r.name}, {"value", r.value}, {"origin", r.origin}}); err != nil {
			return err
		}
	}
	return p.endList("")
}

func (a *app) configPathRun() error {
	p := a.printer()
	if err := p.beginList([]string{"file", "status"}, nil); err != nil {
		return err
	}
	row := func(file, status string) error {
		return p.row(orderedObject{{"file", file}, {"status", status}})
	}
	if o := a.set.origin["config"]; o != "default" {
		// Named by --config or ADJL_CONFIG: the only file looked at (a
		// missing one is an error before any command runs).
		if err := row(a.set.ConfigFile, "read ("+o+")"); err != nil {
			return err
		}
		for _, c := range configCandidates(a.getenv) {
			if err := row(c, "not looked at: "+o+" names the file"); err != nil {
				return err
			}
		}
		return p.endList("")
	}
	for _, c := range configCandidates(a.getenv) {
		var status string
		st, err := os.Stat(c)
		switch {
		case c == a.set.ConfigFile:
			status = "read"
		case errors.Is(err, fs.ErrNotExist):
			status = "not found"
		case err != nil:
			status = "cannot read: " + err.Error()
		case st.IsDir():
			status = "not read: a directory"
		default:
			status = "not read: " + a.set.ConfigFile + " comes first"
		}
		if err := row(c, status); err != nil {
			return err
		}
	}
	return p.endList("")
}
