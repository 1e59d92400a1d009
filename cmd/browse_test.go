package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/charmbracelet/x/ansi"
)

// browseFixture is a model over the embedded engine in memory, with the
// request log wired as browse wires it.
type browseFixture struct {
	t  *testing.T
	m  *browseModel
	st *ops.Store
}

func newBrowseFixture(t *testing.T, schemaFile string, seed func(ctx context.Context, st *ops.Store, s *schema.Schema)) *browseFixture {
	t.Helper()
	s, err := schema.Load(filepath.Join(examplesDir, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	rec := &requestRecorder{}
	log := &requestLog{w: rec, now: time.Now}
	api := dynamodb.NewFromConfig(localConfig(e.HTTPClient()), log.clientOption)
	st := ops.New(api, s, ops.Options{})
	ctx := context.Background()
	if _, err := st.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	seed(ctx, st, s)
	return &browseFixture{t: t, st: st, m: newBrowseModel(ctx, st, s, rec, 3, "", "the embedded engine, in memory")}
}

// start opens key as adjl browse KEY does.
func (f *browseFixture) start(key string) {
	f.m.startKey = key
	f.m.prompting = false
	f.run(f.m.Init())
	f.m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
}

// run executes a load the model asked for and hands its result back, as
// bubbletea would. Other commands (a cursor blinking) are not run.
func (f *browseFixture) run(cmd tea.Cmd) {
	f.t.Helper()
	for cmd != nil && f.m.loading {
		msg := cmd()
		_, cmd = f.m.Update(msg)
	}
}

// press sends keys, each a key name as bubbletea spells it ("enter", "n").
func (f *browseFixture) press(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		_, cmd := f.m.Update(keyPress(k))
		f.run(cmd)
	}
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the view as plain text.
func (f *browseFixture) screen() string {
	return ansi.Strip(f.m.View().Content)
}

// rows are the other-side keys shown in a pane.
func (f *browseFixture) rows(pane int) []string {
	var out []string
	for _, r := range f.m.view.panes[pane].rows {
		out = append(out, r[0].Value.(string))
	}
	return out
}

func schoolSeed(students int) func(context.Context, *ops.Store, *schema.Schema) {
	return func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		rel := s.Relation("enrollment")
		st.PutEntity(ctx, s.Entity("student"), "a91", map[string]any{"name": "Ana"})
		st.PutEntity(ctx, s.Entity("course"), "math204", map[string]any{"title": "Algebra"})
		for _, c := range []string{"math204", "phy101"} {
			if _, _, err := st.Link(ctx, rel, "a91", c, map[string]any{"grade": "A"}); err != nil {
				panic(err)
			}
		}
		for i := range students {
			if _, _, err := st.Link(ctx, rel, fmt.Sprintf("s%02d", i), "math204", nil); err != nil {
				panic(err)
			}
		}
	}
}

func TestBrowseShowsItemEdgesAndRequests(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	scr := f.screen()
	for _, want := range []string{
		"STU#a91 (student)", "item: name=Ana  courseCount=2",
		"forward · base table · enrollment (courses)", "> CRS#math204  A", "CRS#phy101  A",
		"reverse · index GSI1", "no relation has STU# on its to side",
		"edge CRS#math204 · grade: A",
		`request: Query table=school key='(PK = "STU#a91") AND (begins_with (SK, "ENROLL#CRS#"))'`, "capacity=0.5", "attempts=1",
		`request: GetItem table=school key='PK="STU#a91",SK="STU#a91"'`,
		"? keys",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	// STU#a91 sorts after its ENROLL# edges: the list Query and one GetItem.
	if n := len(f.m.view.requests); n != 2 {
		t.Errorf("opening a student sent %d requests, want the Query and the GetItem: %q", n, f.m.view.requests)
	}
}

func TestBrowseFollowsAnEdgeAndComesBack(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(2))
	f.start("STU#a91")
	f.press("enter")
	if f.m.view.key != "CRS#math204" || f.m.focus != paneReverse {
		t.Fatalf("after enter: key %s, focus %d", f.m.view.key, f.m.focus)
	}
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"STU#a91", "STU#s00", "STU#s01"}) {
		t.Errorf("members = %v", got)
	}
	scr := f.screen()
	for _, want := range []string{"CRS#math204 (course) · back: STU#a91 (1)", "item: title=Algebra  studentCount=3", "index=GSI1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	f.press("down", "enter")
	if f.m.view.key != "STU#s00" || len(f.m.history) != 2 {
		t.Fatalf("second follow: key %s, history %d", f.m.view.key, len(f.m.history))
	}
	f.press("backspace")
	if f.m.view.key != "CRS#math204" || f.m.focus != paneReverse || f.m.view.panes[paneReverse].sel != 1 {
		t.Errorf("back: key %s, focus %d, selected %d; want the course as it was left", f.m.view.key, f.m.focus, f.m.view.panes[paneReverse].sel)
	}
	f.press("backspace")
	if f.m.view.key != "STU#a91" || len(f.m.history) != 0 || f.m.focus != paneForward {
		t.Errorf("back twice: key %s, history %d, focus %d", f.m.view.key, len(f.m.history), f.m.focus)
	}
	f.press("backspace")
	if !strings.Contains(f.screen(), "no previous key") {
		t.Errorf("back at the start: %s", f.screen())
	}
}

// TestBrowsePagesEachEdgeOnce pages through a reverse list with n and back
// with p: every member once, in order, and p returns the same page.
func TestBrowsePagesEachEdgeOnce(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(7))
	f.start("CRS#math204")
	var seen []string
	pages := [][]string{}
	for {
		pages = append(pages, f.rows(paneReverse))
		seen = append(seen, f.rows(paneReverse)...)
		if f.m.view.panes[paneReverse].next == "" {
			break
		}
		f.press("n")
	}
	want := []string{"STU#a91", "STU#s00", "STU#s01", "STU#s02", "STU#s03", "STU#s04", "STU#s05", "STU#s06"}
	if !slices.Equal(seen, want) || len(pages) != 3 {
		t.Errorf("pages %v, want %v in 3 pages", pages, want)
	}
	if !strings.Contains(f.screen(), "page 3 (last) · p previous") {
		t.Errorf("last page footer:\n%s", f.screen())
	}
	f.press("n")
	if !strings.Contains(f.screen(), "last page") {
		t.Error("n on the last page says nothing")
	}
	f.press("p")
	if got := f.rows(paneReverse); !slices.Equal(got, pages[1]) {
		t.Errorf("p: %v, want page 2 %v", got, pages[1])
	}
	if !strings.Contains(strings.Join(f.m.view.requests, "\n"), "from-cursor=true") {
		t.Errorf("page 2 request: %q", f.m.view.requests)
	}
	f.press("p", "p")
	if got := f.rows(paneReverse); !slices.Equal(got, pages[0]) || !strings.Contains(f.screen(), "first page") {
		t.Errorf("back to page 1: %v\n%s", got, f.screen())
	}
}

// TestBrowsePagesShardedRelation: a sharded reverse list pages through
// every shard behind one cursor, each follower once.
func TestBrowsePagesShardedRelation(t *testing.T) {
	f := newBrowseFixture(t, "social.yaml", func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		rel := s.Relation("follow")
		for i := range 8 {
			if _, _, err := st.Link(ctx, rel, fmt.Sprintf("u%d", i), "bob", nil); err != nil {
				panic(err)
			}
		}
	})
	f.start("TARGET#bob")
	if n := strings.Count(strings.Join(f.m.view.requests, "\n"), "Query table=social index=GSI1"); n != 4 {
		t.Errorf("the first page of a 4-shard relation sent %d Queries: %q", n, f.m.view.requests)
	}
	var seen []string
	for {
		seen = append(seen, f.rows(paneReverse)...)
		if f.m.view.panes[paneReverse].next == "" {
			break
		}
		f.press("n")
	}
	want := []string{"ACTOR#u0", "ACTOR#u1", "ACTOR#u2", "ACTOR#u3", "ACTOR#u4", "ACTOR#u5", "ACTOR#u6", "ACTOR#u7"}
	if !slices.Equal(seen, want) {
		t.Errorf("followers %v, want %v", seen, want)
	}
}

// TestBrowseRoleKeys: an entity key in no relation lists its role keys,
// which open like edges.
func TestBrowseRoleKeys(t *testing.T) {
	f := newBrowseFixture(t, "social.yaml", func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		st.Link(ctx, s.Relation("follow"), "alice", "bob", nil)
	})
	f.start("USER#alice")
	if !strings.Contains(f.screen(), "in no relation itself; its roles:") || !strings.Contains(f.screen(), "> ACTOR#alice") {
		t.Fatalf("screen:\n%s", f.screen())
	}
	f.press("enter")
	if f.m.view.key != "ACTOR#alice" || !slices.Equal(f.rows(paneForward), []string{"TARGET#bob"}) {
		t.Errorf("ACTOR#alice: key %s, rows %v", f.m.view.key, f.rows(paneForward))
	}
}

func TestBrowseKeyPromptAndHelp(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.m.prompting = true
	if cmd := f.m.Init(); cmd != nil {
		t.Error("the prompt starts a command")
	}
	if !strings.Contains(f.screen(), "Open a key (STU# CRS#)") {
		t.Fatalf("prompt:\n%s", f.screen())
	}
	for _, r := range "XYZ#1" {
		f.press(string(r))
	}
	f.press("enter")
	if f.m.view != nil || !strings.Contains(f.screen(), "XYZ#1") || !strings.Contains(f.screen(), "! ") {
		t.Errorf("bad key:\n%s", f.screen())
	}
	f.press("backspace", "backspace", "backspace", "backspace", "backspace")
	if f.m.input != "" {
		t.Errorf("backspace left %q", f.m.input)
	}
	for _, r := range "STU#a91" {
		f.press(string(r))
	}
	f.press("enter")
	if f.m.view == nil || f.m.view.key != "STU#a91" {
		t.Fatalf("prompted key not opened:\n%s", f.screen())
	}
	f.press("?")
	if scr := f.screen(); !strings.Contains(scr, "next relation") || !strings.Contains(scr, "open a key") {
		t.Errorf("? shows no full help:\n%s", scr)
	}
	f.press("?")
	if strings.Contains(f.screen(), "next relation") {
		t.Error("? does not hide the full help again")
	}
	_, cmd := f.m.Update(keyPress("q"))
	if cmd == nil {
		t.Fatal("q returns no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
}

// TestBrowseNeedsATerminal: piped, browse refuses with exit 2 and says why.
func TestBrowseNeedsATerminal(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "browse", "STU#a91")
	if r.code != ExitUsage || !strings.Contains(r.err, "adjl browse needs a terminal: stdout is not one") {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	r = adjl(t, runOpts{tty: true}, "--schema", example(t, "school.yaml"), "browse", "XYZ#1")
	if r.code != ExitUsage {
		t.Errorf("a bad key: exit %d, stderr %q", r.code, r.err)
	}
	r = adjl(t, runOpts{tty: true}, "--schema", example(t, "school.yaml"), "--explain", "browse", "STU#a91")
	if r.code != ExitUsage || !strings.Contains(r.err, "--explain cannot be combined with browse") {
		t.Errorf("--explain: exit %d, stderr %q", r.code, r.err)
	}
}

// TestBrowseHidesCredentialsInProblems: an error shown on the status line
// (a server's answer may quote what it was sent) has its credentials
// hidden, as every other output of adjl does; the view draws past the
// redacting writers.
func TestBrowseHidesCredentialsInProblems(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	sec := &secrets{}
	sec.add("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	f.m.hide = func(text string) string { return sec.redact(text, credentialShapes, errorShapes) }
	f.m.loaded(browseLoaded{err: errors.New("the server said: bad request wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, Signature=0123456789abcdef0123")})
	if strings.Contains(f.m.status, "wJalrXUtnFEMI") || strings.Contains(f.m.status, "0123456789abcdef0123") || !strings.Contains(f.m.status, redacted) {
		t.Errorf("status: %q", f.m.status)
	}
	if view := f.screen(); strings.Contains(view, "wJalrXUtnFEMI") {
		t.Errorf("the view shows the secret:\n%s", view)
	}
}
