package cmd

import (
	"fmt"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/verify"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"
)

func (a *app) newVerifyCmd() *cobra.Command {
	var skipCapacity bool
	c := &cobra.Command{
		Use:   "verify [--endpoint URL|aws] [--no-capacity-check]",
		Short: "Run every access pattern on a scratch table and check it is what schema show says",
		Long: `Create a scratch table (the schema's keys and index, on demand, named
TABLE-verify-XXXXXXXX), seed it with generated entities and edges, and run
every access pattern adjl schema show lists, the way the CLI runs it. Each
pattern is checked for:

  - its result: the edges, entity items and counters the seed implies;
  - its requests: exactly those schema show names, and never a Scan;
  - its capacity: what the backend reports consumed, against schema show's
    figure for small items (reads in 4 KB units, eventually consistent;
    the table's write units - index writes are shown, not compared).

A table of patterns is printed, and the scratch table is deleted afterwards,
also when something failed. Exit 0 when every pattern passed, 1 when one did
not (for CI).

With --endpoint local (the default) the scratch table lives in a throw-away
in-memory engine: the data file is not touched. --endpoint URL or aws runs
it there (it costs a few requests on AWS). --no-capacity-check reports the
capacity without comparing it, for reference servers that only approximate
it (moto).`,
		Example: withExamples(
			"adjl verify",
			"adjl --schema examples/social.yaml verify -o json",
			"adjl --endpoint aws --region eu-west-1 verify",
		),
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if a.explaining() {
				return usagef(c, "--explain does not apply to verify: it runs every pattern; adjl schema show lists what each sends")
			}
			s, err := a.schema()
			if err != nil {
				return err
			}
			api, where, closeAPI, err := a.verifyBackend(c)
			if err != nil {
				return err
			}
			defer closeAPI()
			if a.set.Verbose {
				fmt.Fprintf(a.io.ErrOut, "backend: %s\n", where)
			}
			rep, err := verify.Run(c.Context(), api, s, verify.Options{SkipCapacity: skipCapacity})
			if rep != nil && rep.Cleanup != "" {
				fmt.Fprintf(a.io.ErrOut, "warning: scratch table %s was not deleted: %s; delete it with: aws dynamodb delete-table --table-name %s\n",
					rep.Table, rep.Cleanup, rep.Table)
			}
			if err != nil {
				return err
			}
			if err := a.printVerify(s, rep, where); err != nil {
				return err
			}
			if rep.Failed() > 0 {
				return &statusError{code: ExitFalse}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&skipCapacity, "no-capacity-check", false, "report consumed capacity without comparing it")
	return c
}

// verifyBackend is the API verify runs on: a fresh in-memory engine for
// --endpoint local, else the configured backend.
func (a *app) verifyBackend(c *cobra.Command) (ops.API, string, func(), error) {
	if a.set.Endpoint == "local" && a.api == nil {
		e, err := openEngine("", true)
		if err != nil {
			return nil, "", nil, err
		}
		client := dynamodb.NewFromConfig(retryEnv(localConfig(e.HTTPClient()), a.getenv), a.clientOptions()...)
		return client, "the embedded engine, in memory", func() { e.Close() }, nil
	}
	be, err := a.openBackend(c.Context())
	if err != nil {
		return nil, "", nil, err
	}
	a.be = be // closed with the app
	return be.api, be.describe, func() {}, nil
}

func (a *app) printVerify(s *schema.Schema, rep *verify.Report, where string) error {
	if a.set.Output != "table" {
		results := make([]any, len(rep.Results))
		for i, r := range rep.Results {
			results[i] = orderedObject{
				{"pattern", r.Pattern.Name}, {"command", r.Pattern.Command}, {"ok", r.OK()},
				{"sent", r.Sent}, {"expected", schema.RequestsText(r.Want)},
				{"consumed", r.Consumed()}, {"expectedCapacity", r.WantCapacity.String()},
				{"problems", append([]string{}, r.Problems...)},
			}
		}
		return a.printer().object(orderedObject{
			{"schema", s.File}, {"backend", where}, {"scratchTable", rep.Table}, {"seeded", rep.Seeded},
			{"patterns", len(rep.Results)}, {"failed", rep.Failed()}, {"results", results},
		})
	}
	var rows [][]string
	for _, r := range rep.Results {
		result := "ok"
		if !r.OK() {
			result = "FAIL: " + strings.Join(r.Problems, "; ")
		}
		rows = append(rows, []string{r.Pattern.Name, sentText(r.Sent), r.Consumed(), result})
	}
	if err := printTable(a.io, []string{"pattern", "sent", "consumed", "result"}, rows); err != nil {
		return err
	}
	verdict := "all passed"
	if n := rep.Failed(); n > 0 {
		verdict = fmt.Sprintf("%d failed", n)
	}
	fate := "deleted after"
	if rep.Cleanup != "" {
		fate = "NOT deleted"
	}
	// On stderr, like the next-page hint: stdout stays one table (or TSV).
	_, err := fmt.Fprintf(a.notes(), "verify: %d %s on scratch table %s (%s; %d writes to seed it; %s): %s\n",
		len(rep.Results), english.Plural(len(rep.Results), "pattern", "patterns"), rep.Table, where, rep.Seeded, fate, verdict)
	return err
}

// sentText groups repeated requests: "4 × Query GSI1, GetItem".
func sentText(sent []string) string {
	var parts []string
	for i := 0; i < len(sent); {
		j := i
		for j < len(sent) && sent[j] == sent[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%d × %s", j-i, sent[i]))
		} else {
			parts = append(parts, sent[i])
		}
		i = j
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
