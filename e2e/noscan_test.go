package e2e

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/adjl/adjl/cmd"
	"github.com/adjl/adjl/internal/examplelayouts"
	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// recorder is an http.Handler in front of a DynamoDB endpoint that notes the
// operation of every request (from X-Amz-Target) before passing it on.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	ops  []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	op := req.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		op = op[i+1:]
	}
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

// take returns the operations recorded since the last call.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.ops
	r.ops = nil
	return out
}

// TestNoScan runs adjl's read commands (and the writes that have to find
// edges, such as a cascading delete) through a recording endpoint and fails
// if any of them sent a Scan: every read must be a Query or a GetItem.
func TestNoScan(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			endpoint, rec := recordingServer(t, b)
			checkNoScan(t, endpoint, rec)
		})
	}
}

// recordingServer starts a recorder on loopback in front of b (a fresh
// in-memory engine for the embedded backend) and returns its URL.
func recordingServer(t *testing.T, b backend) (string, *recorder) {
	var next http.Handler
	if b.endpoint == "" {
		eng, err := local.Open("", local.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = eng.Close() })
		next = eng
	} else {
		u, err := url.Parse(b.endpoint)
		if err != nil {
			t.Fatal(err)
		}
		next = httputil.NewSingleHostReverseProxy(u)
	}
	rec := &recorder{next: next}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// inRecordedDir isolates the test in a scratch directory whose adjl talks
// to endpoint, and writes both example schemas there, each with its own
// table; it returns their paths by name.
func inRecordedDir(t *testing.T, endpoint string) map[string]string {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("ADJL_ENDPOINT", endpoint)
	table, err := tableName()
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, name := range []string{"school", "social"} {
		schemas[name] = writeExample(t, dir, name, table+"_"+name)
		for _, v := range examplelayouts.Variants {
			data, err := os.ReadFile(schemas[name])
			if err != nil {
				t.Fatal(err)
			}
			out, err := examplelayouts.Rewrite(data, v)
			if err != nil {
				t.Fatal(err)
			}
			out, err = renameTable(out, table+"_"+name+"_"+v.Name)
			if err != nil {
				t.Fatal(err)
			}
			schemas[name+"-"+v.Name] = filepath.Join(dir, name+"-"+v.Name+".yaml")
			writeFile(t, schemas[name+"-"+v.Name], out)
		}
	}
	return schemas
}

func checkNoScan(t *testing.T, endpoint string, rec *recorder) {
	schemas := inRecordedDir(t, endpoint)
	// try runs adjl in process and reports whether it exited 0.
	try := func(args ...string) bool {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if got := cmd.Run(args, strings.NewReader(""), &stdout, &stderr); got != 0 {
			t.Errorf("adjl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, stdout.String(), stderr.String())
			return false
		}
		return true
	}
	run := func(args ...string) {
		t.Helper()
		if !try(args...) {
			t.FailNow()
		}
	}

	school := []string{"--schema", schemas["school"]}
	social := []string{"--schema", schemas["social"]}
	with := func(base []string, args ...string) []string { return append(slices.Clone(base), args...) }

	// Writes: whatever they send, it must not be a Scan either.
	run(with(school, "table", "create", "--wait")...)
	run(with(school, "put", "student", "a91", "--set", "name=Ana")...)
	run(with(school, "put", "student", "b02", "--set", "name=Bo")...)
	run(with(school, "put", "course", "math204", "--set", "title=Algebra")...)
	run(with(school, "enroll", "STU#a91", "CRS#math204", "--set", "grade=A")...)
	run(with(school, "enroll", "STU#b02", "CRS#math204")...)
	run(with(social, "table", "create", "--wait")...)
	run(with(social, "follow", "ACTOR#alice", "TARGET#bob")...)
	run(with(social, "follow", "ACTOR#carol", "TARGET#bob")...)
	assertNoScan(t, "writes", rec.take())

	reads := [][]string{
		with(school, "courses", "STU#a91"),
		with(school, "courses", "STU#a91", "--all", "-o", "json"),
		with(school, "courses", "STU#a91", "--with-entity", "--consistent"),
		with(school, "members", "CRS#math204"),
		with(school, "members", "CRS#math204", "--limit", "1"),
		with(school, "members", "CRS#math204", "--all", "-o", "ndjson"),
		with(school, "members", "CRS#math204", "--with-entity", "-o", "ndjson"),
		with(school, "enrolled", "STU#a91", "CRS#math204"),
		with(school, "get", "STU#a91"),
		with(school, "get", "CRS#math204"),
		with(school, "table", "describe"),
		with(social, "following", "ACTOR#alice"),
		with(social, "followers", "TARGET#bob", "--all"),
		with(social, "follows", "ACTOR#alice", "TARGET#bob"),
	}
	for _, args := range reads {
		ok := try(args...)
		got := rec.take()
		assertNoScan(t, strings.Join(args[2:], " "), got)
		if ok && !slices.ContainsFunc(got, func(op string) bool { return op == "Query" || op == "GetItem" || op == "DescribeTable" }) {
			t.Errorf("adjl %s sent %v: expected a Query or GetItem", strings.Join(args[2:], " "), got)
		}
	}
	// Deleting an entity with its edges has to find them in both directions:
	// with Queries, not a Scan.
	run(with(school, "delete", "STU#a91", "--cascade")...)
	assertNoScan(t, "delete --cascade", rec.take())
	run(with(school, "table", "delete", "--yes")...)
	run(with(social, "table", "delete", "--yes")...)
}

func assertNoScan(t *testing.T, what string, ops []string) {
	t.Helper()
	if slices.Contains(ops, "Scan") {
		t.Errorf("%s sent a Scan: %v", what, ops)
	}
	if len(ops) == 0 {
		t.Errorf("%s sent nothing: the recorder saw no request", what)
	}
}

// writeExample copies examples/NAME.yaml into dir under table name table.
func writeExample(t *testing.T, dir, name, table string) string {
	t.Helper()
	data, err := readRepoFile(filepath.Join("examples", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := renameTable(data, table)
	if err != nil {
		t.Fatalf("examples/%s.yaml: %v", name, err)
	}
	path := filepath.Join(dir, name+".yaml")
	writeFile(t, path, out)
	return path
}

// TestRecorderSeesScan proves the recorder would notice a Scan: without
// this, TestNoScan could pass by recording nothing useful.
func TestRecorderSeesScan(t *testing.T) {
	eng, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	rec := &recorder{next: eng}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	client := newClient(srv.URL, nil)
	// The table does not exist; the request is recorded all the same.
	_, _ = client.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("nope")})
	if got := rec.take(); !slices.Equal(got, []string{"Scan"}) {
		t.Fatalf("recorded %v, want [Scan]", got)
	}
}
