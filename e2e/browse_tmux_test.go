package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// browseCapture, when set, is where TestBrowseInTmux saves the screen
// after an edit in place, with its colours (tmux capture-pane -e): the
// source of docs/browse.png (CONTRIBUTING.md says how to make it).
var browseCapture = flag.String("browse-capture", "", "save the adjl browse screen, with ANSI colours, to this file")

// browseWait bounds each wait for the screen: generous, for a loaded
// machine; a screen that shows what is awaited ends the wait at once.
const browseWait = 45 * time.Second

// TestBrowseInTmux runs adjl browse in a real 160×45 terminal (a tmux pane
// on a private server) against each backend, on a course of 60 members one
// of which has no grade: the table's columns, a page filling the pane,
// keys typed ahead of a load, sort, find, an edit in place and its undo,
// an edit refused because another shell changed the edge, and
// --read-only. Keys are typed with send-keys and the screen read with
// capture-pane.
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
	w := newBrowseWorld(t, tmux, bin, b)
	w.adjl("table", "create", "--wait")
	w.adjl("put", "student", "a91", "--set", "name=Ana")
	w.adjl("put", "course", "math204", "--set", "title=Algebra", "--set", "credits=5")
	rows := []string{"from,to,grade,enrolledOn", "a91,math204,D,2026-09-01"}
	for i := 1; i < 60; i++ {
		grade := string("ABCDF"[i%5])
		if i == 7 {
			grade = "" // the member without a grade
		}
		rows = append(rows, fmt.Sprintf("s%04d,math204,%s,2026-09-%02d", i, grade, i%28+1))
	}
	if err := os.WriteFile(filepath.Join(w.dir, "members.csv"), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.adjl("import", "enrollment", "members.csv", "--quiet")
	if b.endpoint == "" {
		// Another shell's commands reach the data file through the
		// server while browse runs, as a user would share it.
		w.serve()
	}

	// A page fills the pane; columns align and the empty grade stays empty.
	w.start("browse", "CRS#math204")
	s := w.waitFor("page 1 · 29 rows", "STU#s0028")
	if n := strings.Count(s, "STU#"); n < 25 {
		t.Errorf("%d rows on a 160×45 screen:\n%s", n, s)
	}
	checkColumns(t, s)
	w.quit()

	w.start("browse", "CRS#math204", "--limit", "10")
	w.waitFor("page 1 · 10 rows")
	w.keys("n", "n", "n") // typed at once: each waits for the page before it
	w.waitFor("page 4 · 10 rows", "STU#s0030", "STU#s0039")
	w.keys("s")
	w.waitFor("by grade ↑ (rows loaded)", "grade ↑")
	w.keys("/")
	w.text("s0042")
	w.keys("Enter")
	w.waitFor("from STU#s0042", "> STU#s0042")

	// An edit in place, shown by the list verb, then undone.
	w.keys("/")
	w.text("a91")
	w.keys("Enter")
	w.waitFor("> STU#a91")
	w.keys("e")
	w.waitFor("edit STU#a91 → CRS#math204", "grade (string)")
	w.keys("C-u", "C", "Enter")
	w.waitFor("grade C (was D) · u undoes", "request: UpdateItem", "capacity=")
	if *browseCapture != "" && b.endpoint == "" {
		if err := os.WriteFile(*browseCapture, []byte(w.screen(true)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.gradeIs("C")
	w.keys("u")
	w.waitFor("undone: the edit of STU#a91 → CRS#math204")
	w.gradeIs("D")

	// The same edit after another shell changed the grade is refused.
	w.keys("e", "C-u", "C", "Enter")
	w.waitFor("grade C (was D) · u undoes")
	w.adjl("enroll", "a91", "math204", "--set", "grade=B")
	w.keys("e", "C-u", "A", "Enter")
	w.waitFor(`grade is "B" (was "C"); nothing written · R reloads`)
	w.gradeIs("B")
	w.quit()

	w.start("browse", "CRS#math204", "--read-only")
	w.waitFor("page 1 · 29 rows")
	w.keys("e")
	w.waitFor("read-only view (--read-only or ADJL_READ_ONLY): e (edit) writes")
	w.quit()
}

// checkColumns fails t unless the date of every member row starts in one
// column, the row without a grade included.
func checkColumns(t *testing.T, screen string) {
	t.Helper()
	date := regexp.MustCompile(`2026-09-\d\d`)
	col := -1
	for _, l := range strings.Split(screen, "\n") {
		if !strings.Contains(l, "STU#") || !strings.Contains(l, "│") {
			continue // not a row of a pane
		}
		loc := date.FindStringIndex(l)
		if loc == nil {
			t.Errorf("a member row without its date: %q", l)
			continue
		}
		at := len([]rune(l[:loc[0]]))
		if col >= 0 && at != col {
			t.Errorf("the date column moves (%d, then %d):\n%s", col, at, screen)
			return
		}
		col = at
		if strings.Contains(l, "STU#s0007") && strings.TrimSpace(l[strings.Index(l, "STU#s0007")+9:loc[0]]) != "" {
			t.Errorf("the member without a grade shows one: %q", l)
		}
	}
}

// browseWorld is a working directory with the school schema on one
// backend, and a tmux server of its own in which adjl runs.
type browseWorld struct {
	t      *testing.T
	dir    string
	bin    string
	tmux   string
	socket string
	env    []string
}

func newBrowseWorld(t *testing.T, tmux, bin string, b backend) *browseWorld {
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
	w := &browseWorld{t: t, dir: dir, bin: bin, tmux: tmux, socket: "adjl-e2e-" + table, env: env}
	t.Cleanup(func() { w.tm("kill-server") })
	return w
}

// adjl runs a command in the world's directory (another shell) and
// returns its output.
func (w *browseWorld) adjl(args ...string) string {
	w.t.Helper()
	c := exec.Command(w.bin, args...)
	c.Dir, c.Env = w.dir, w.env
	out, err := c.CombinedOutput()
	if err != nil {
		w.t.Fatalf("adjl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// serve runs adjl local serve on the world's data file until the test
// ends; adjl commands in the directory then reach the engine through it.
func (w *browseWorld) serve() {
	w.t.Helper()
	c := exec.Command(w.bin, "local", "serve", "--addr", "127.0.0.1:0")
	c.Dir, c.Env = w.dir, w.env
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		c.Process.Signal(os.Interrupt)
		c.Wait()
	})
	ready := filepath.Join(w.dir, ".adjl", "data.db-serve.json")
	deadline := time.Now().Add(browseWait)
	for {
		if _, err := os.Stat(ready); err == nil {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("adjl local serve never wrote %s", ready)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gradeIs checks a91's grade in math204 as adjl courses prints it.
func (w *browseWorld) gradeIs(grade string) {
	w.t.Helper()
	out := w.adjl("courses", "a91", "-o", "csv")
	if want := "CRS#math204," + grade + ","; !strings.Contains(out, want) {
		w.t.Errorf("adjl courses a91 = %q, want a line starting %q", out, want)
	}
}

func (w *browseWorld) tm(args ...string) (string, error) {
	out, err := exec.Command(w.tmux, append([]string{"-L", w.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

// start runs adjl with args in a new 160×45 session; the session ends
// with it.
func (w *browseWorld) start(args ...string) {
	w.t.Helper()
	command := "cd " + shellQuoted(w.dir) + " && exec env -i " + strings.Join(quotedAll(w.env), " ") + " TERM=xterm-256color " +
		shellQuoted(w.bin) + " " + strings.Join(quotedAll(args), " ")
	if out, err := w.tm("new-session", "-d", "-s", "browse", "-x", "160", "-y", "45", command); err != nil {
		w.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
}

func (w *browseWorld) screen(color bool) string {
	args := []string{"capture-pane", "-p", "-t", "browse"}
	if color {
		args = append(args, "-e")
	}
	out, _ := w.tm(args...)
	return out
}

// waitFor returns the screen once it shows every one of want.
func (w *browseWorld) waitFor(want ...string) string {
	w.t.Helper()
	deadline := time.Now().Add(browseWait)
	for {
		s := w.screen(false)
		ok := true
		for _, x := range want {
			ok = ok && strings.Contains(s, x)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keys types keys as tmux names them (n, Enter, C-u).
func (w *browseWorld) keys(k ...string) {
	w.t.Helper()
	if out, err := w.tm(append([]string{"send-keys", "-t", "browse"}, k...)...); err != nil {
		w.t.Fatalf("send-keys %v: %v\n%s", k, err, out)
	}
}

// text types text as it is.
func (w *browseWorld) text(s string) { w.keys("-l", s) }

// quit types q and waits for adjl, and with it the session, to end.
func (w *browseWorld) quit() {
	w.t.Helper()
	w.keys("q")
	deadline := time.Now().Add(browseWait)
	for {
		if _, err := w.tm("has-session", "-t", "browse"); err != nil {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("q did not quit:\n%s", w.screen(false))
		}
		time.Sleep(50 * time.Millisecond)
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
