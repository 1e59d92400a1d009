package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adjl/adjl/cmd"
	"github.com/adjl/adjl/internal/examplelayouts"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/rogpeppe/go-internal/testscript"
)

// update rewrites the expected output embedded in the scripts (`cmp stdout
// golden` with golden inside the .txtar) from what adjl printed, against the
// embedded engine only so that the two runs do not race on the files.
var update = flag.Bool("update", false, "rewrite the expected output inside testdata/*.txtar")

// TestMain makes the test binary double as the `adjl` command: testscript
// copies it into a bin directory on the scripts' PATH under that name.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"adjl": func() { os.Exit(cmd.Main()) },
	})
}

// TestScripts runs every testdata/*.txtar against the embedded engine and,
// when a reference server is named (see backends), against it too.
func TestScripts(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Dir:                "testdata",
				Setup:              func(env *testscript.Env) error { return setup(env, b) },
				Condition:          b.condition,
				Cmds:               commands(b),
				UpdateScripts:      *update && b.name == "local",
				RequireUniqueNames: true,
				// With -update, go on after a failure so every golden file of
				// a script is refreshed in one run.
				ContinueOnError: *update,
			})
		})
	}
}

// TestLayoutScripts runs testdata/layouts/*.txtar, the school and social
// workflows, in the key layouts of existing tables (see examplelayouts):
// the generic layout under lower-case names and the inverted layout, on
// the embedded engine and, when one is named, the reference server. Each
// script's school.yaml, social.yaml and adjl.yaml are the examples in that
// layout; $LAYOUT names it ([lower], [inverted] and [generic] in
// conditions), $PK, $SK, $INDEX, $IXPK and $IXSK the key attributes.
func TestLayoutScripts(t *testing.T) {
	for _, b := range backends() {
		for _, v := range examplelayouts.Variants {
			t.Run(b.name+"/"+v.Name, func(t *testing.T) {
				testscript.Run(t, testscript.Params{
					Dir: filepath.Join("testdata", "layouts"),
					Setup: func(env *testscript.Env) error {
						if err := setup(env, b); err != nil {
							return err
						}
						return layoutSetup(env, v)
					},
					Condition: func(cond string) (bool, error) {
						switch cond {
						case "lower", "inverted":
							return v.Name == cond, nil
						case "generic":
							return !v.Inverted(), nil
						}
						return b.condition(cond)
					},
					Cmds:               commands(b),
					UpdateScripts:      *update && b.name == "local" && v.Name == examplelayouts.Variants[0].Name,
					RequireUniqueNames: true,
					ContinueOnError:    *update,
				})
			})
		}
	}
}

// layoutSetup rewrites the script's copies of the examples into layout v.
func layoutSetup(env *testscript.Env, v examplelayouts.Variant) error {
	for _, name := range []string{"school", "social"} {
		path := filepath.Join(env.WorkDir, name+".yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := examplelayouts.Rewrite(data, v)
		if err != nil {
			return fmt.Errorf("%s.yaml: %w", name, err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
		if name == "school" {
			if err := os.WriteFile(filepath.Join(env.WorkDir, "adjl.yaml"), out, 0o644); err != nil {
				return err
			}
		}
	}
	kind := "generic"
	if v.Inverted() {
		kind = "inverted"
	}
	for k, val := range map[string]string{"LAYOUT": v.Name, "LAYOUT_KIND": kind, "INDEX": v.Index,
		"PK": v.Keys[0], "SK": v.Keys[1], "IXPK": v.Keys[2], "IXSK": v.Keys[3]} {
		env.Setenv(k, val)
	}
	return nil
}

// backend is one place the suite runs adjl against.
type backend struct {
	name     string // "local" or "moto"
	endpoint string // "" for the embedded default, else the server URL
}

// backends are the embedded engine and, when one is named, a reference
// server: ADJL_E2E_ENDPOINT (.ci/test gives this suite a server of its own)
// or ADJL_TEST_ENDPOINT.
func backends() []backend {
	bs := []backend{{name: "local"}}
	ep := os.Getenv("ADJL_E2E_ENDPOINT")
	if ep == "" {
		ep = os.Getenv("ADJL_TEST_ENDPOINT")
	}
	if ep != "" {
		bs = append(bs, backend{name: "moto", endpoint: ep})
	}
	return bs
}

// condition answers [local] and [moto] (and their negations) in scripts, for
// the few places where the backends legitimately differ.
func (b backend) condition(cond string) (bool, error) {
	switch cond {
	case "local", "moto":
		return b.name == cond, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// setup isolates each script: its own HOME and config directories, dummy AWS
// credentials that point nowhere, a table name no other script uses, and the
// example schemas copied into $WORK with that name. Any *.yaml file carried in
// the script has ${TABLE} replaced too, so scripts can bring their own schema.
func setup(env *testscript.Env, b backend) error {
	work := env.WorkDir
	home := filepath.Join(work, ".home")
	for _, d := range []string{home, filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	table, err := tableName()
	if err != nil {
		return err
	}
	vars := map[string]string{
		"HOME":                        home,
		"USERPROFILE":                 home,
		"XDG_CONFIG_HOME":             filepath.Join(home, ".config"),
		"AWS_ACCESS_KEY_ID":           "test",
		"AWS_SECRET_ACCESS_KEY":       "test",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  "us-east-1",
		"AWS_DEFAULT_REGION":          "us-east-1",
		"AWS_CONFIG_FILE":             filepath.Join(home, ".aws", "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, ".aws", "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"NO_COLOR":                    "1",
		"TABLE":                       table,
		"BACKEND":                     b.name,
		"ENDPOINT":                    "local",
		// A race-enabled adjl sleeps a second at exit by default: with a few
		// hundred commands per run that is minutes of nothing.
		"GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0"),
		// LONG_ID makes keys over DynamoDB's 1,024-byte sort-key limit.
		"LONG_ID": strings.Repeat("x", 2000),
	}
	if b.endpoint != "" {
		vars["ADJL_ENDPOINT"] = b.endpoint
		vars["ENDPOINT"] = b.endpoint
		// The server is shared by every script (and moto slows down with
		// every table it holds): drop this script's table even if it failed.
		env.Defer(func() {
			_, _ = newClient(b.endpoint, nil).DeleteTable(context.Background(),
				&dynamodb.DeleteTableInput{TableName: aws.String(table)})
		})
	}
	for k, v := range vars {
		env.Setenv(k, v)
	}
	for _, name := range []string{"school", "social"} {
		data, err := readRepoFile(filepath.Join("examples", name+".yaml"))
		if err != nil {
			return fmt.Errorf("read example schema: %w", err)
		}
		out, err := renameTable(data, table)
		if err != nil {
			return fmt.Errorf("examples/%s.yaml: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(work, name+".yaml"), out, 0o644); err != nil {
			return err
		}
	}
	// The default schema path is ./adjl.yaml: the school example.
	if _, err := os.Stat(filepath.Join(work, "adjl.yaml")); os.IsNotExist(err) {
		data, err := os.ReadFile(filepath.Join(work, "school.yaml"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(work, "adjl.yaml"), data, 0o644); err != nil {
			return err
		}
	}
	return expandTableInScripts(work, table)
}

// tableName is unique per script so that scripts sharing one server never
// see each other's tables.
func tableName() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "e2e_" + hex.EncodeToString(b[:]), nil
}

// tableNameLine matches the table's name in either block style
// ("table:\n  name: school") or flow style ("table: {name: school, ...}").
var (
	blockTableName = regexp.MustCompile(`(?m)^(table:\s*\n(?:[ \t]+.*\n|\s*\n)*?[ \t]+name:[ \t]*)("[^"]*"|'[^']*'|[^\s#,}]+)`)
	flowTableName  = regexp.MustCompile(`(?m)^(table:[ \t]*\{[^}]*?\bname:[ \t]*)("[^"]*"|'[^']*'|[^\s#,}]+)`)
)

// renameTable rewrites the table name of a schema file.
func renameTable(data []byte, table string) ([]byte, error) {
	for _, re := range []*regexp.Regexp{blockTableName, flowTableName} {
		if re.Match(data) {
			return re.ReplaceAll(data, []byte("${1}"+table)), nil
		}
	}
	return nil, fmt.Errorf("no table name found to rename")
}

// expandTableInScripts replaces ${TABLE} in the *.yaml files a script carries.
func expandTableInScripts(work, table string) error {
	files, err := filepath.Glob(filepath.Join(work, "*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), "${TABLE}") {
			continue
		}
		out := strings.ReplaceAll(string(data), "${TABLE}", table)
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			return err
		}
	}
	return nil
}
