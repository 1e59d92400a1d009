package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// exitCodeDocs is the exit-code table as users read it (adjl help
// exit-codes); ExitCode is the code that decides them.
var exitCodeDocs = []struct {
	code    int
	meaning string
	example string
}{
	{ExitOK, "success; a check verb found the edge", "adjl enrolled STU#a91 CRS#math204"},
	{ExitFalse, "a check verb found no edge; get/delete found no item; a link requiring entities found one missing; table plan --exit-code or verify found a difference", "adjl get STU#nobody"},
	{ExitUsage, "usage or input error: bad argument, flag, key, --set value or cursor (nothing was sent); a stored value export cannot write as asked (stdout then holds an incomplete file)", "adjl enroll CRS#math204 STU#a91"},
	{ExitSchema, "invalid schema file (each problem is printed as file:line:col)", "adjl --schema broken.yaml schema validate"},
	{ExitTable, "table missing, or different from the schema", "adjl members CRS#math204 (before adjl table create)"},
	{ExitConflict, "conditional conflict: the entity still has edges, a transaction conflicted, or the table has deletion protection", "adjl delete STU#a91 (without --cascade)"},
	{ExitUnreachable, "backend unreachable, unauthorised (or no usable credentials), failing (HTTP 5xx) after the SDK's retries, or answering something other than DynamoDB; local data file locked, unopenable or unwritable (a full disk); local serve cannot listen on its address; stdout cannot be written (a full disk: what the command changed is done, its output is lost; a reader that went away, as in adjl ... | head, ends the output quietly)", "adjl --endpoint http://127.0.0.1:1 get STU#a91"},
	{ExitThrottled, "throttled after the SDK's retries (retry later, or raise the table's capacity)", ""},
	{ExitRejected, "import --skip-invalid wrote the valid lines, but rejected others (printed as FILE:LINE, copied to --rejects FILE)", "adjl import enrollment data.csv --skip-invalid --rejects bad.csv"},
	{ExitInternal, "internal error: a bug in adjl, please report it", ""},
	{ExitInterrupted, "interrupted (Ctrl-C or SIGTERM)", ""},
}

// exitCodesHelp renders exitCodeDocs for the help topic.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("adjl's exit code tells a script what happened; the message on stderr says why\nand, where it can, how to fix it.\n\n  code  meaning\n")
	for _, d := range exitCodeDocs {
		fmt.Fprintf(&b, "  %4d  %s\n", d.code, d.meaning)
		if d.example != "" {
			fmt.Fprintf(&b, "        e.g. %s\n", d.example)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// newExitCodesTopic is a help topic (no Run): `adjl help exit-codes`.
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What adjl's exit codes mean (0 ok, 1 no, 2 usage, 3 schema, 4 table, ..., 8 rejected)",
		Long:  exitCodesHelp(),
		Example: withExamples(
			"adjl help exit-codes",
			"adjl enrolled STU#a91 CRS#math204 && echo linked",
		),
	}
}
