package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjl/adjl/diagram"
	"github.com/adjl/adjl/iac"
	"github.com/spf13/cobra"
)

func (a *app) newSchemaExportCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "export --format create-table-json|cloudformation|terraform",
		Short: "Print the schema's table as create-table JSON, a CloudFormation template or Terraform",
		Long: `Print the table the schema asks for - keys, the inverted index, billing and
the settings the schema manages - as infrastructure code, from the same
definition adjl table create uses:

  create-table-json  the CreateTable request, for
                     aws dynamodb create-table --cli-input-json file://table.json
                     (TTL and point-in-time recovery are separate requests: the
                     commands for them are printed on stderr)
  cloudformation     a template with one AWS::DynamoDB::Table (retained on
                     delete and replacement)
  terraform          an aws_dynamodb_table resource (hashicorp/aws provider)

A table made from any of them is one adjl table create reports as matching.
-o does not apply: the output is the --format chosen.`,
		Example: withExamples(
			"adjl schema export --format create-table-json > table.json",
			"aws dynamodb create-table --cli-input-json file://table.json",
			"adjl schema export --format cloudformation > table.yaml",
			"adjl schema export --format terraform > dynamodb.tf",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := a.refuseOutputFlag(c, "create-table-json is JSON"); err != nil {
				return err
			}
			switch {
			case format == "":
				return usagef(c, "missing --format (one of %s)", strings.Join(iac.Formats, ", "))
			case !slices.Contains(iac.Formats, format):
				return usagef(c, "--format %q: want one of %s", format, strings.Join(iac.Formats, ", "))
			}
			s, err := a.schema()
			if err != nil {
				return err
			}
			out, err := iac.Export(s, format)
			if err != nil {
				return err
			}
			if _, err := a.io.Out.Write(out); err != nil {
				return err
			}
			if format == "create-table-json" {
				if follow := iac.FollowUp(s); len(follow) > 0 {
					fmt.Fprintln(a.notes(), "note: CreateTable takes no TTL or point-in-time recovery; once the table is ACTIVE, run:")
					for _, cmd := range follow {
						fmt.Fprintln(a.notes(), "  "+cmd)
					}
					fmt.Fprintln(a.notes(), "(or adjl table apply --yes)")
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "`FORMAT`: "+strings.Join(iac.Formats, ", "))
	c.RegisterFlagCompletionFunc("format", fixedCompletion(iac.Formats...))
	return c
}

func (a *app) newSchemaDiagramCmd() *cobra.Command {
	format := "mermaid"
	c := &cobra.Command{
		Use:   "diagram [--format mermaid|dot]",
		Short: "Draw the schema: entities, relations, verbs, indexes, counters and shards",
		Long: `Draw the schema's model. Each entity is a box with its key prefix and
attributes. Each relation is a solid arrow from its from side to its to side,
labelled with the edge's prefix and keys, its link/unlink/check verbs, the
forward verb (which reads the from side through the table) and its counters,
and a dashed arrow back for the reverse verb (which reads the to side through
the inverted index, over its shards).

--format mermaid (the default) renders in GitHub Markdown inside a
` + "```mermaid" + ` block; --format dot is for Graphviz (dot -Tsvg). -o does not
apply: the output is the --format chosen.`,
		Example: withExamples(
			"adjl schema diagram",
			"adjl --schema examples/social.yaml schema diagram --format dot | dot -Tsvg > social.svg",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := a.refuseOutputFlag(c, "mermaid and dot are its formats"); err != nil {
				return err
			}
			if !slices.Contains(diagram.Formats, format) {
				return usagef(c, "--format %q: want one of %s", format, strings.Join(diagram.Formats, ", "))
			}
			s, err := a.schema()
			if err != nil {
				return err
			}
			out, err := diagram.Render(s, format)
			if err != nil {
				return err
			}
			_, err = a.io.Out.Write(out)
			return err
		},
	}
	c.Flags().StringVar(&format, "format", format, "`FORMAT`: "+strings.Join(diagram.Formats, ", "))
	c.RegisterFlagCompletionFunc("format", fixedCompletion(diagram.Formats...))
	return c
}

// refuseOutputFlag refuses -o on a command that writes only its --format:
// printing Terraform for -o json would look like a bug. -o table (a no-op)
// and an output set by ADJL_OUTPUT or a config file (a default for the data
// commands) pass.
func (a *app) refuseOutputFlag(c *cobra.Command, formats string) error {
	if a.set == nil || a.set.Output == defaultOutput || !strings.HasPrefix(a.set.origin["output"], "flag") {
		return nil
	}
	return &usageError{err: fmt.Errorf("-o %s does not apply to %s: it writes the --format given", a.set.Output, c.CommandPath()),
		hint: "drop -o and choose --format (" + formats + ")"}
}
