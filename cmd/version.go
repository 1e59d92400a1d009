package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time: -ldflags "-X github.com/adjl/adjl/cmd.Version=v1.2.3".
var Version = ""

// version is Version, else the module version go install recorded, else "dev".
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionLine is what adjl version and adjl --version print.
func versionLine() string {
	return fmt.Sprintf("adjl %s (%s, %s/%s)", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print adjl's version",
		Example: withExamples("adjl version", "adjl version -o json"),
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.printer().result(versionLine(), orderedObject{{"version", version()}, {"go", runtime.Version()},
				{"platform", runtime.GOOS + "/" + runtime.GOARCH}})
		},
	}
}
