package iac_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/iac"
	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/internal/goldenfile"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// schemas are the two examples, a schema with every table setting and one
// in the inverted layout under lower-case key names.
var schemas = map[string]string{
	"school":   filepath.Join("..", "examples", "school.yaml"),
	"social":   filepath.Join("..", "examples", "social.yaml"),
	"settings": filepath.Join("testdata", "settings.yaml"),
	"legacy":   filepath.Join("testdata", "legacy.yaml"),
	"ordered":  filepath.Join("testdata", "ordered.yaml"),
}

// extensions are the formats' own file extensions; a golden file is
// testdata/NAME.EXT.golden, so expected output stands apart from the
// schemas under testdata that are input.
var extensions = map[string]string{"create-table-json": "json", "cloudformation": "cfn.yaml", "terraform": "tf"}

func load(t *testing.T, name string) *schema.Schema {
	t.Helper()
	s, err := schema.Load(schemas[name])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func export(t *testing.T, s *schema.Schema, format string) []byte {
	t.Helper()
	out, err := iac.Export(s, format)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExportGolden(t *testing.T) {
	for name := range schemas {
		s := load(t, name)
		for format, ext := range extensions {
			t.Run(name+"/"+format, func(t *testing.T) {
				got := export(t, s, format)
				goldenfile.Check(t, filepath.Join("testdata", name+"."+ext+".golden"), got, *update, "./iac")
			})
		}
	}
}

// TestCreateTableJSONIsTheCreateTableInput: the JSON decodes into exactly
// the request adjl table create sends, so nothing is lost or added on the way.
func TestCreateTableJSONIsTheCreateTableInput(t *testing.T) {
	for name := range schemas {
		s := load(t, name)
		var got dynamodb.CreateTableInput
		if err := json.Unmarshal(export(t, s, "create-table-json"), &got); err != nil {
			t.Fatal(err)
		}
		if want := tabledef.CreateTableInput(s); !reflect.DeepEqual(&got, want) {
			t.Errorf("%s: decoded %+v\nwant %+v", name, got, *want)
		}
	}
}

func TestFollowUp(t *testing.T) {
	if got := iac.FollowUp(load(t, "school")); len(got) != 0 {
		t.Errorf("school needs no follow-up, got %q", got)
	}
	got := strings.Join(iac.FollowUp(load(t, "settings")), "\n")
	want := "aws dynamodb update-time-to-live --table-name my.school-2 --time-to-live-specification Enabled=true,AttributeName=expiresAt\n" +
		"aws dynamodb update-continuous-backups --table-name my.school-2 --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true"
	if got != want {
		t.Errorf("follow-up:\n%s\nwant\n%s", got, want)
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"school": "SchoolTable", "my.school-2": "MySchool2Table", "a_b.c": "ABCTable"} {
		if got := iac.LogicalID(in); got != want {
			t.Errorf("LogicalID(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"school": "school", "my.school-2": "my_school-2", "2024.t": "t_2024_t"} {
		if got := iac.ResourceName(in); got != want {
			t.Errorf("ResourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCloudFormationPassesCfnLint runs cfn-lint, which checks every
// property against the AWS::DynamoDB::Table resource specification.
func TestCloudFormationPassesCfnLint(t *testing.T) {
	lint, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skip("cfn-lint is not installed (pip install cfn-lint); CI machines have it")
	}
	dir := t.TempDir()
	var paths []string
	for name := range schemas {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, export(t, load(t, name), "cloudformation"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	// One run for every template: cfn-lint takes seconds to start.
	if out, err := exec.Command(lint, paths...).CombinedOutput(); err != nil {
		t.Errorf("cfn-lint: %v\n%s", err, out)
	}
}

// TestTerraformFormatted runs terraform fmt -check. terraform validate needs
// the hashicorp/aws provider, which terraform init downloads: it runs only
// with ADJL_TERRAFORM_VALIDATE=1 (on a machine that can reach the registry
// or has a provider mirror configured).
func TestTerraformFormatted(t *testing.T) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not installed")
	}
	for name := range schemas {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), export(t, load(t, name), "terraform"), 0o644); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) {
			c := exec.Command(tf, args...)
			c.Dir = dir
			c.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("terraform %s (%s): %v\n%s", strings.Join(args, " "), name, err, out)
			}
		}
		run("fmt", "-check", "-diff")
		if os.Getenv("ADJL_TERRAFORM_VALIDATE") == "1" {
			run("init", "-input=false", "-backend=false")
			run("validate")
		}
	}
	if os.Getenv("ADJL_TERRAFORM_VALIDATE") != "1" {
		t.Log("terraform validate not run: it needs the provider download (set ADJL_TERRAFORM_VALIDATE=1)")
	}
}

// TestCreateTableJSONMakesAMatchingTable feeds the JSON, decoded as any SDK
// would, to CreateTable on each backend; adjl table create then finds the
// table matching the schema (TTL and PITR after the follow-up requests).
func TestCreateTableJSONMakesAMatchingTable(t *testing.T) {
	ctx := context.Background()
	for _, b := range backendtest.All(t) {
		for name := range schemas {
			t.Run(b.Name+"/"+name, func(t *testing.T) {
				s := load(t, name)
				if b.Name == "embedded" && len(s.SortAttributes()) > 0 {
					t.Skip("the embedded engine does not implement DynamoDB's multi-attribute GSI keys yet (docs/ordered-engine-contract.md)")
				}
				s.Table.Name = fmt.Sprintf("iac_%s_%d", name, time.Now().UnixNano())
				var in dynamodb.CreateTableInput
				if err := json.Unmarshal(export(t, s, "create-table-json"), &in); err != nil {
					t.Fatal(err)
				}
				// A name of this run only: "already exists" is this request's
				// own first attempt, answered with an error the SDK retried
				// (moto answers 500 when another request changes its tables
				// meanwhile).
				var inUse *types.ResourceInUseException
				if _, err := b.Client.CreateTable(ctx, &in); err != nil && !errors.As(err, &inUse) {
					t.Fatalf("CreateTable from the exported JSON: %v", err)
				}
				t.Cleanup(func() {
					b.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: in.TableName, DeletionProtectionEnabled: aws.Bool(false)})
					b.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: in.TableName})
				})
				st := ops.New(b.Client, s, ops.Options{})
				_, err := st.CreateTable(ctx, true)
				var tm *ops.TableMismatchError
				if len(iac.FollowUp(s)) == 0 {
					if err != nil {
						t.Fatalf("adjl table create on the exported table: %v", err)
					}
					return
				}
				// TTL and PITR are not CreateTable's: until the follow-up
				// requests the table differs in exactly those.
				if !errors.As(err, &tm) || len(tm.Differences) != 2 {
					t.Fatalf("before the follow-up: %v", err)
				}
				if ttl := tabledef.TimeToLive(s); ttl != nil {
					if _, err := b.Client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: in.TableName, TimeToLiveSpecification: ttl}); err != nil {
						t.Fatal(err)
					}
				}
				if p := tabledef.PointInTimeRecovery(s); p != nil {
					if _, err := b.Client.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: in.TableName, PointInTimeRecoverySpecification: p}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := st.CreateTable(ctx, true); err != nil {
					t.Fatalf("adjl table create after the follow-up: %v", err)
				}
			})
		}
	}
}
