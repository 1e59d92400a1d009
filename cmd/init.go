package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adjl/adjl/examples"
	"github.com/spf13/cobra"
)

// defaultTemplate is what a bare `adjl init` writes: a model that runs as
// it is, so the first commands after init show something.
const defaultTemplate = "school"

func (a *app) newInitCmd() *cobra.Command {
	var force bool
	names := examples.Templates()
	c := &cobra.Command{
		Use:   "init [" + strings.Join(names, "|") + "] [--force]",
		Short: "Write a commented starter schema (./adjl.yaml, or --schema FILE)",
		Long: `Write a commented schema from a template built into adjl: school (students
and the courses they take), social (a follower graph with shards and sharded
counters) or blank (one entity to rename, and a relation to fill in). The
default is school. The file goes where --schema points (./adjl.yaml by
default); an existing file is refused unless --force is given.`,
		Example: withExamples(
			"adjl init",
			"adjl init social --schema social.yaml",
			"adjl init blank --force",
		),
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usagef(c, "unexpected argument %s (want at most one template)", quoteArg(args[1]))
			case len(args) == 1 && !slices.Contains(names, args[0]):
				return usagef(c, "unknown template %q: want one of %s", args[0], strings.Join(names, ", "))
			}
			return nil
		},
		ValidArgs: names,
		RunE: func(c *cobra.Command, args []string) error {
			name := defaultTemplate
			if len(args) == 1 {
				name = args[0]
			}
			text, _ := examples.Template(name)
			path := a.schemaPath
			if err := writeNewFile(path, text, force); err != nil {
				if errors.Is(err, fs.ErrExist) {
					return &usageError{cmd: c, err: fmt.Errorf("%s already exists; init leaves it as it is", path),
						hint: "pass --force to overwrite it, or --schema OTHER.yaml to write the template elsewhere"}
				}
				return &usageError{cmd: c, err: fmt.Errorf("cannot write %s: %w", path, unwrapPath(err)),
					hint: "choose a writable location with --schema FILE"}
			}
			schemaFlag := ""
			if a.schemaSource != "default" {
				schemaFlag = " --schema " + shellQuote(path)
			}
			fmt.Fprintf(a.io.Out, "wrote %s (the %s template)\n", path, name)
			if !a.set.Quiet {
				fmt.Fprintf(a.io.Out, "next: adjl%s schema show\n      adjl%s table create --wait\n", schemaFlag, schemaFlag)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&force, "force", "f", false, "overwrite an existing file")
	return c
}

// writeNewFile writes data to path. Without force the file is created
// exclusively (an existing path is fs.ErrExist, even one that appears
// meanwhile); with force it is replaced through a temporary file and a
// rename, so the old schema is never left half overwritten. A failed write
// removes what it created.
func writeNewFile(path string, data []byte, force bool) error {
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".adjl-init-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// unwrapPath drops *fs.PathError's operation and path: the message names
// the path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
