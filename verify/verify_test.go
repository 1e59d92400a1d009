package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/internal/examplelayouts"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var ctx = context.Background()

func example(t *testing.T, name string) *schema.Schema {
	t.Helper()
	s, err := schema.Load(filepath.Join("..", "examples", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRunExamples: every pattern of both examples does what schema show
// says on the embedded engine, capacity included; on the reference server
// (moto, whose capacity is approximate) requests and results.
func TestRunExamples(t *testing.T) {
	for _, b := range backendtest.All(t) {
		for _, name := range []string{"school", "social"} {
			t.Run(b.Name+"/"+name, func(t *testing.T) {
				s := example(t, name)
				rep, err := Run(ctx, b.Client, s, Options{SkipCapacity: b.Name != "embedded"})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rep.Results {
					t.Logf("%-45s sent %-40s consumed %-22s %s", r.Pattern.Name, strings.Join(r.Sent, ","), r.Consumed(), strings.Join(r.Problems, "; "))
				}
				if rep.Failed() > 0 || len(rep.Results) != len(s.AccessPatterns()) {
					t.Errorf("%d of %d patterns failed", rep.Failed(), len(rep.Results))
				}
				if rep.Cleanup != "" {
					t.Errorf("cleanup: %s", rep.Cleanup)
				}
				if _, err := b.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(rep.Table)}); err == nil {
					t.Errorf("scratch table %s left behind", rep.Table)
				}
			})
		}
	}
}

// TestRunExampleLayouts: every pattern of both examples also holds in the
// layouts of existing tables (generic under lower-case names, inverted), on
// the embedded engine with capacity and on the reference server.
func TestRunExampleLayouts(t *testing.T) {
	for _, b := range backendtest.All(t) {
		for _, name := range []string{"school", "social"} {
			data, err := os.ReadFile(filepath.Join("..", "examples", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range examplelayouts.Variants {
				t.Run(b.Name+"/"+name+"/"+v.Name, func(t *testing.T) {
					out, err := examplelayouts.Rewrite(data, v)
					if err != nil {
						t.Fatal(err)
					}
					s, err := schema.Parse(name+".yaml", out)
					if err != nil {
						t.Fatal(err)
					}
					rep, err := Run(ctx, b.Client, s, Options{SkipCapacity: b.Name != "embedded"})
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rep.Results {
						if !r.OK() {
							t.Errorf("%s: sent %s: %s", r.Pattern.Name, strings.Join(r.Sent, ","), strings.Join(r.Problems, "; "))
						}
					}
					if len(rep.Results) != len(s.AccessPatterns()) {
						t.Errorf("%d results for %d patterns", len(rep.Results), len(s.AccessPatterns()))
					}
				})
			}
		}
	}
}

// TestRunProjections: KEYS_ONLY and INCLUDE send one GetItem more for a
// reverse list with the entity; verify finds schema show saying so.
func TestRunProjections(t *testing.T) {
	b := backendtest.All(t)[0]
	for _, idx := range []string{"{projection: KEYS_ONLY}", "{projection: INCLUDE, include: [grade]}"} {
		s, err := schema.Parse("p.yaml", []byte(`version: 1
table: {name: proj, index: `+idx+`}
entities:
  student: {prefix: "STU#", attributes: {name: string}}
  course: {prefix: "CRS#", attributes: {title: string}}
relations:
  enrollment: {from: student, to: course, edge: "ENROLL#", attributes: {grade: string}, counters: {to: {name: studentCount, shards: 3}}}
`))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ctx, b.Client, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if !r.OK() {
				t.Errorf("%s %s: %s", idx, r.Pattern.Name, strings.Join(r.Problems, "; "))
			}
		}
	}
}

func TestJudge(t *testing.T) {
	p := schema.Pattern{Name: "x: reverse list"}
	want := []schema.Request{{Operation: "Query", Index: "GSI1", Count: 2}}
	half := func() []types.ConsumedCapacity {
		return []types.ConsumedCapacity{{CapacityUnits: aws.Float64(0.5)}}
	}
	q := sent{op: "Query", index: "GSI1", capacity: half()}
	if r := judge(p, want, []sent{q, q}, nil, true); !r.OK() || r.Read != 1 {
		t.Errorf("matching run: %v, read %v", r.Problems, r.Read)
	}
	cases := map[string]struct {
		sent  []sent
		check bool
		want  string
	}{
		"a scan":          {[]sent{q, q, {op: "Scan", capacity: half()}}, true, "sent a Scan"},
		"a request short": {[]sent{q}, false, "sent Query GSI1; schema show says 2 × Query GSI1"},
		"another request": {[]sent{q, {op: "Query", capacity: half()}}, false, "sent Query GSI1, Query; schema show says 2 × Query GSI1"},
		"more capacity":   {[]sent{q, {op: "Query", index: "GSI1", capacity: []types.ConsumedCapacity{{CapacityUnits: aws.Float64(1)}}}}, true, "consumed 1.5 RCU; schema show says 1 RCU"},
		"no capacity":     {[]sent{{op: "Query", index: "GSI1"}, {op: "Query", index: "GSI1"}}, true, "the backend reported no consumed capacity"},
	}
	for name, c := range cases {
		r := judge(p, want, c.sent, nil, c.check)
		if r.OK() || !strings.Contains(strings.Join(r.Problems, "; "), c.want) {
			t.Errorf("%s: problems %q, want %q", name, r.Problems, c.want)
		}
	}
	if r := judge(p, want, []sent{q, {op: "Query", index: "GSI1", capacity: []types.ConsumedCapacity{{CapacityUnits: aws.Float64(9)}}}}, nil, false); !r.OK() {
		t.Errorf("capacity compared with SkipCapacity: %v", r.Problems)
	}
	// Writes: the table's units are compared, the index's reported apart.
	w := []schema.Request{{Operation: "TransactWriteItems", Count: 1, Items: 3}}
	tx := sent{op: "TransactWriteItems", capacity: []types.ConsumedCapacity{{CapacityUnits: aws.Float64(10),
		Table: &types.Capacity{CapacityUnits: aws.Float64(6)}, GlobalSecondaryIndexes: map[string]types.Capacity{"GSI1": {CapacityUnits: aws.Float64(4)}}}}}
	if r := judge(schema.Pattern{}, w, []sent{tx}, nil, true); !r.OK() || r.Write != 6 || r.IndexWrite != 4 || r.Consumed() != "6 WCU + 4 on the index" {
		t.Errorf("transaction: %v, write %v index %v (%s)", r.Problems, r.Write, r.IndexWrite, r.Consumed())
	}
}

// failingWrites refuses UpdateItem, which seeding starts with.
type failingWrites struct{ *dynamodb.Client }

func (failingWrites) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errors.New("refused")
}

// TestRunCleansUpAfterFailure: a run that cannot seed still deletes its
// scratch table.
func TestRunCleansUpAfterFailure(t *testing.T) {
	c := backendtest.All(t)[0].Client
	rep, err := Run(ctx, failingWrites{c}, example(t, "school"), Options{Table: "school-verify-cleanup"})
	if err == nil || !strings.Contains(err.Error(), "seed scratch table school-verify-cleanup") {
		t.Fatalf("run: %v", err)
	}
	if rep.Cleanup != "" {
		t.Errorf("cleanup: %s", rep.Cleanup)
	}
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school-verify-cleanup")}); err == nil {
		t.Error("scratch table left behind after a failed run")
	}
}

func TestScratchTableHasNoSettings(t *testing.T) {
	s := example(t, "school")
	on := true
	s.Table.Settings.DeletionProtection = &on
	s.Table.Billing, s.Table.ReadUnits, s.Table.WriteUnits = schema.BillingProvisioned, 1, 1
	sc := scratchSchema(s, "x-verify")
	if sc.Table.Settings.Managed() || sc.Table.Billing != schema.BillingOnDemand || sc.Table.Name != "x-verify" {
		t.Errorf("scratch table = %+v", sc.Table)
	}
	if s.Table.Name != "school" || s.Table.Settings.DeletionProtection == nil {
		t.Error("the schema itself was changed")
	}
	if n := ScratchName(s); !strings.HasPrefix(n, "school-verify-") || len(n) != len("school-verify-")+8 {
		t.Errorf("ScratchName = %q", n)
	}
}
