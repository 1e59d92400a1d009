package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestImportKilledThenResumed kills `adjl import` with SIGKILL, runs the
// same command again with --resume, and compares the table item for item
// with one clean run of the import: no lost or doubled edge, exact
// counters. The kill comes at the start, among the writes (once the
// progress journal shows a written chunk) and while counters are recounted
// (once it shows every chunk).
func TestImportKilledThenResumed(t *testing.T) {
	bin, err := exec.LookPath("adjl") // the test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			// Two chunks at least, so the kill can land among the writes;
			// fewer rows on moto, which is two orders of magnitude slower.
			rows, courses := 8_000, 60
			if b.endpoint != "" {
				rows, courses = 1_200, 20
			}
			dir := t.TempDir()
			var csv strings.Builder
			csv.WriteString("from,to,grade\n")
			for i := range rows {
				fmt.Fprintf(&csv, "s%05d,c%02d,%c\n", i/20, (i*7)%courses, 'A'+i%5)
			}
			input := filepath.Join(dir, "edges.csv")
			if err := os.WriteFile(input, []byte(csv.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(work string, args ...string) (*exec.Cmd, *bytes.Buffer) {
				table, err := tableName()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(work, 0o755); err != nil {
					t.Fatal(err)
				}
				sc := filepath.Join(work, "adjl.yaml")
				if _, err := os.Stat(sc); err != nil {
					data, err := readRepoFile("examples/school.yaml")
					if err == nil {
						data, err = renameTable(data, table)
					}
					if err == nil {
						err = os.WriteFile(sc, data, 0o644)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				cmd := exec.Command(bin, args...)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "HOME="+work, "ADJL_ENDPOINT="+orDefault(b.endpoint, "local"), "GORACE=atexit_sleep_ms=0")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				return cmd, &out
			}
			mustRun := func(work string, args ...string) string {
				cmd, out := run(work, args...)
				if err := cmd.Run(); err != nil {
					t.Fatalf("adjl %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return out.String()
			}
			clean := filepath.Join(dir, "clean")
			mustRun(clean, "table", "create", "--wait")
			if b.endpoint != "" {
				t.Cleanup(func() { deleteTable(t, b, clean) })
			}
			mustRun(clean, "import", "enrollment", input, "--quiet")
			want := dump(t, b, clean)

			// Where the kill lands: while checking or starting to write (a
			// few ms in), among the writes (a chunk journaled), or while the
			// counters are recounted (every chunk journaled). Moto is slow
			// enough that the second alone is asked of it.
			chunks := (rows + 999) / 1000
			points := []struct {
				name   string
				ready  func(journal string, since time.Duration) bool
				racy   bool // the import may finish before the kill
				resume bool // the rerun must report skipped rows
			}{
				{"among the writes", func(j string, _ time.Duration) bool { return strings.Contains(j, "\ndone ") }, false, true},
				{"at the start", func(_ string, since time.Duration) bool { return since > 30*time.Millisecond }, false, false},
				{"while counting", func(j string, _ time.Duration) bool { return strings.Contains(j, fmt.Sprintf("\ndone %d\n", chunks)) }, true, true},
			}
			if b.endpoint != "" {
				points = points[:1]
			}
			for i, p := range points {
				killed := filepath.Join(dir, fmt.Sprintf("killed%d", i))
				mustRun(killed, "table", "create", "--wait")
				if b.endpoint != "" {
					t.Cleanup(func() { deleteTable(t, b, killed) })
				}
				cmd, out := run(killed, "import", "enrollment", input, "--quiet")
				started := time.Now()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				deadline := time.After(2 * time.Minute)
				finished := false
			wait:
				for {
					select {
					case err := <-exited:
						if !p.racy {
							t.Fatalf("%s: the import ended (%v) before the kill; raise rows\n%s", p.name, err, out)
						}
						finished = true
						break wait
					case <-deadline:
						t.Fatalf("%s: not reached in 2 minutes", p.name)
					case <-time.After(2 * time.Millisecond):
					}
					journals, _ := filepath.Glob(filepath.Join(killed, ".adjl", "imports", "*.journal"))
					j := ""
					if len(journals) == 1 {
						data, _ := os.ReadFile(journals[0])
						j = string(data)
					}
					if p.ready(j, time.Since(started)) {
						break wait
					}
				}
				if finished {
					t.Logf("%s: the import finished before the kill; nothing to check", p.name)
					continue
				}
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				err := <-exited
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					if p.racy {
						t.Logf("%s: the import finished before the kill; nothing to check", p.name)
						continue
					}
					t.Fatalf("%s: the import was not killed: %v\n%s", p.name, err, out)
				}
				if dump(t, b, killed) == want {
					t.Fatalf("%s: the killed import had already finished: nothing to resume", p.name)
				}

				res := mustRun(killed, "import", "enrollment", input, "--quiet", "--resume")
				if p.resume && !strings.Contains(res, " rows an earlier run had written were skipped") {
					t.Errorf("%s: the rerun did not resume:\n%s", p.name, res)
				}
				if got := dump(t, b, killed); got != want {
					t.Fatalf("%s: killed and resumed differs from a clean run:\n%s", p.name, diffLines(got, want))
				}
				if v := mustRun(killed, "counters", "verify", "--quiet"); !strings.Contains(v, ": all exact") {
					t.Errorf("%s: counters after the resume:\n%s", p.name, v)
				}
				if journals, _ := filepath.Glob(filepath.Join(killed, ".adjl", "imports", "*")); len(journals) != 0 {
					t.Errorf("%s: journal left after a finished import: %v", p.name, journals)
				}
			}
		})
	}
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// dump renders every item of the table of work's adjl.yaml, sorted, on the
// backend the test runs against.
func dump(t *testing.T, b backend, work string) string {
	t.Helper()
	table := tableOf(t, work)
	var api interface {
		Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	}
	if b.endpoint != "" {
		api = newClient(b.endpoint, nil)
	} else {
		eng, err := local.Open(localDataFile(work), local.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		api = newClient("http://local.adjl", eng.HTTPClient())
	}
	var lines []string
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := api.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			lines = append(lines, itemLine(it))
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func itemLine(it map[string]types.AttributeValue) string {
	var parts []string
	for k, v := range it {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			parts = append(parts, k+"="+x.Value)
		case *types.AttributeValueMemberN:
			parts = append(parts, k+"=N"+x.Value)
		default:
			parts = append(parts, fmt.Sprintf("%s=%T", k, v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func tableOf(t *testing.T, work string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(work, "adjl.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := blockTableName.FindSubmatch(data)
	if m == nil {
		t.Fatalf("no table name in %s/adjl.yaml", work)
	}
	return string(m[2])
}

func deleteTable(t *testing.T, b backend, work string) {
	_, _ = newClient(b.endpoint, nil).DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(tableOf(t, work))})
}

// diffLines shows the first lines that differ.
func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out []string
	for i := 0; i < max(len(g), len(w)) && len(out) < 10; i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			out = append(out, fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, a, b))
		}
	}
	return fmt.Sprintf("%d items vs %d\n%s", len(g), len(w), strings.Join(out, "\n"))
}
