package e2e

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// browseCapture, when set, is where TestBrowseInTmux saves the screen
// after following an edge, with its colours (tmux capture-pane -e): the
// source of docs/browse.png (CONTRIBUTING.md says how to make it).
var browseCapture = flag.String("browse-capture", "", "save the adjl browse screen, with ANSI colours, to this file")

// TestBrowseInTmux runs adjl browse in a real terminal (a tmux pane on a
// private server) against each backend: it opens a student, follows an
// edge to the course, pages its members, shows the keys and goes back.
// Keys are typed with send-keys and the screen read with capture-pane.
func TestBrowseInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	bin, err := exec.LookPath("adjl")
	if err != nil {
		t.Fatalf("adjl is not on PATH (TestMain puts it there): %v", err)
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { browseInTmux(t, tmux, bin, b) })
	}
}

func browseInTmux(t *testing.T, tmux, bin string, b backend) {
	dir := t.TempDir()
	table, err := tableName()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "examples", "school.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sch := strings.Replace(string(src), "name: school ", "name: "+table+" ", 1)
	if sch == string(src) {
		t.Fatal("cannot rename the school table")
	}
	if *browseCapture != "" && b.endpoint == "" {
		// The screenshot shows the example's own table: the data file is
		// this test's alone.
		table, sch = "school", string(src)
	}
	if err := os.WriteFile(filepath.Join(dir, "adjl.yaml"), []byte(sch), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true",
		// A race-enabled adjl would sleep a second at each exit.
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		"ADJL_ENDPOINT=local", "PATH=" + os.Getenv("PATH")}
	if b.endpoint != "" {
		env[len(env)-2] = "ADJL_ENDPOINT=" + b.endpoint
		t.Cleanup(func() {
			newClient(b.endpoint, nil).DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		})
	}
	adjl := func(args ...string) {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("adjl %v: %v\n%s", args, err, out)
		}
	}
	adjl("table", "create", "--wait")
	adjl("put", "student", "a91", "--set", "name=Ana", "--set", "email=ana@example.com")
	adjl("put", "course", "math204", "--set", "title=Algebra", "--set", "credits=5")
	adjl("enroll", "a91", "math204", "--set", "grade=A", "--set", "enrolledOn=2026-09-01")
	adjl("enroll", "a91", "phy101", "--set", "grade=B+")
	for _, s := range []string{"b02", "c17", "d33", "e48", "f51"} {
		adjl("enroll", s, "math204", "--set", "grade=B")
	}

	socket := "adjl-e2e-" + table
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tm("kill-server") })
	command := "cd " + shellQuoted(dir) + " && exec env -i " + strings.Join(quotedAll(env), " ") + " TERM=xterm-256color " +
		shellQuoted(bin) + " browse STU#a91 --limit 4"
	if out, err := tm("new-session", "-d", "-s", "browse", "-x", "120", "-y", "30", command); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	screen := func(color bool) string {
		args := []string{"capture-pane", "-p", "-t", "browse"}
		if color {
			args = append(args, "-e")
		}
		out, _ := tm(args...)
		return out
	}
	waitFor := func(want ...string) string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := screen(false)
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(s, w)
			}
			if ok {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", want, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	keys := func(k ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "browse"}, k...)...); err != nil {
			t.Fatalf("send-keys %v: %v\n%s", k, err, out)
		}
	}

	waitFor("STU#a91 (student)", "item: name=Ana  email=ana@example.com  courseCount=2",
		"> CRS#math204  A  2026-09-01", "CRS#phy101  B+", "request: Query table="+table)
	keys("Enter")
	s := waitFor("CRS#math204 (course) · back: STU#a91 (1)", "item: title=Algebra  credits=5  studentCount=6",
		"reverse · index GSI1 · enrollment (members)", "> STU#a91  A  2026-09-01", "page 1 · n next", "index=GSI1")
	if *browseCapture != "" && b.name == "local" {
		if err := os.WriteFile(*browseCapture, []byte(screen(true)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(s, "STU#e48") {
		t.Errorf("the first page of 4 shows a fifth member:\n%s", s)
	}
	keys("n")
	waitFor("STU#e48  B", "STU#f51  B", "page 2 (last) · p previous", "from-cursor=true")
	keys("?")
	waitFor("next relation", "open a key")
	keys("BSpace")
	waitFor("STU#a91 (student)", "> CRS#math204")
	keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := tm("has-session", "-t", "browse"); err != nil {
			break // q ended adjl, and with it the session
		}
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", screen(false))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func shellQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quotedAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuoted(s)
	}
	return out
}
