package cmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/diagram"
	"github.com/adjl/adjl/iac"
	"github.com/adjl/adjl/schema"
)

func TestSchemaExportAndDiagramPrintTheRenderings(t *testing.T) {
	isolate(t)
	path := example(t, "social.yaml")
	s, err := schema.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range iac.Formats {
		r := adjl(t, runOpts{}, "--schema", path, "schema", "export", "--format", f)
		want, _ := iac.Export(s, f)
		if r.code != 0 || r.out != string(want) || r.err != "" {
			t.Errorf("export --format %s: exit %d, stderr %q, stdout equal %v", f, r.code, r.err, r.out == string(want))
		}
	}
	for _, f := range diagram.Formats {
		r := adjl(t, runOpts{}, "--schema", path, "schema", "diagram", "--format", f)
		want, _ := diagram.Render(s, f)
		if r.code != 0 || r.out != string(want) {
			t.Errorf("diagram --format %s: exit %d, %s", f, r.code, r.err)
		}
	}
	if r := adjl(t, runOpts{}, "--schema", path, "schema", "diagram"); !strings.HasPrefix(r.out, "---\ntitle: table social") {
		t.Errorf("diagram defaults to mermaid: %q", r.out)
	}
	// -o on the command line is refused (it would be ignored); ADJL_OUTPUT
	// is a default for the data commands and leaves the rendering alone.
	for _, args := range [][]string{{"schema", "export", "--format", "terraform", "-o", "json"}, {"schema", "diagram", "-o", "yaml"}} {
		r := adjl(t, runOpts{}, append([]string{"--schema", path}, args...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, "does not apply to adjl "+strings.Join(args[:2], " ")) || r.out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and -o refused", args, r.code, r.out, r.err)
		}
	}
	t.Setenv("ADJL_OUTPUT", "json")
	if r := adjl(t, runOpts{}, "--schema", path, "schema", "diagram"); r.code != 0 || !strings.HasPrefix(r.out, "---\ntitle: table social") {
		t.Errorf("diagram with ADJL_OUTPUT=json: exit %d, %q", r.code, r.out)
	}
	t.Setenv("ADJL_OUTPUT", "")
	for _, args := range [][]string{{"schema", "export"}, {"schema", "export", "--format", "pulumi"}, {"schema", "diagram", "--format", "svg"}} {
		r := adjl(t, runOpts{}, append([]string{"--schema", path}, args...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, "want one of") && !strings.Contains(r.err, "missing --format") {
			t.Errorf("%v: exit %d, %s", args, r.code, r.err)
		}
	}
}

// settingsSchema has every table setting, two of which (TTL, PITR) the
// create-table JSON cannot carry.
const settingsSchema = `version: 1
table:
  name: settings
  ttl: expiresAt
  tags: {team: data}
  pointInTimeRecovery: true
entities:
  student: {prefix: "STU#"}
  course: {prefix: "CRS#"}
relations:
  enrollment: {from: student, to: course, edge: "ENROLL#"}
`

// TestCreateTableJSONWithTheAWSCLI: `aws dynamodb create-table
// --cli-input-json file://...` accepts the export as is against adjl local
// serve, and adjl table create then reports the table as matching (for the
// settings schema, after the follow-up commands export prints on stderr).
func TestCreateTableJSONWithTheAWSCLI(t *testing.T) {
	awsCLI := awsCLIOrSkip(t)
	examples := []string{example(t, "school.yaml"), example(t, "social.yaml")}
	dir := t.TempDir()
	t.Chdir(dir)
	addr, _ := startServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true}, nil)
	endpoint := "http://" + addr
	settingsPath := writeFile(t, filepath.Join(dir, "settings.yaml"), settingsSchema)
	awsEnv := awsCLIEnv("AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"), "AWS_PAGER=")
	aws := func(args ...string) {
		t.Helper()
		c := exec.Command(awsCLI, append(args, "--endpoint-url", endpoint, "--output", "json")...)
		c.Env = awsEnv
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, path := range append(examples, settingsPath) {
		r := adjl(t, runOpts{dir: dir}, "--schema", path, "schema", "export", "--format", "create-table-json")
		if r.code != 0 {
			t.Fatalf("export: %s", r.err)
		}
		jsonPath := writeFile(t, filepath.Join(dir, "table.json"), r.out)
		aws("dynamodb", "create-table", "--cli-input-json", "file://"+jsonPath)
		for _, line := range strings.Split(r.err, "\n") {
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "aws "); ok {
				aws(strings.Fields(cmd)...)
			}
		}
		r = adjl(t, runOpts{dir: dir}, "--endpoint", endpoint, "--schema", path, "table", "create", "--wait")
		if r.code != 0 || !strings.Contains(r.out, "already exists and matches the schema") {
			t.Errorf("%s: table create on the CLI-made table: exit %d\n%s%s", filepath.Base(path), r.code, r.out, r.err)
		}
		r = adjl(t, runOpts{dir: dir}, "--endpoint", endpoint, "--schema", path, "table", "plan", "--exit-code")
		if r.code != 0 {
			t.Errorf("%s: table plan --exit-code: exit %d\n%s%s", filepath.Base(path), r.code, r.out, r.err)
		}
	}
}
