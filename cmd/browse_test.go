package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/charmbracelet/x/ansi"
)

// browseFixture is a model over the embedded engine in memory, with the
// request log wired as browse wires it.
type browseFixture struct {
	t   *testing.T
	m   *browseModel
	st  *ops.Store
	sch *schema.Schema
}

func newBrowseFixture(t *testing.T, schemaFile string, seed func(ctx context.Context, st *ops.Store, s *schema.Schema)) *browseFixture {
	t.Helper()
	if !filepath.IsAbs(schemaFile) {
		schemaFile = filepath.Join(examplesDir, schemaFile)
	}
	s, err := schema.Load(schemaFile)
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
	return &browseFixture{t: t, st: st, sch: s, m: newBrowseModel(ctx, st, s, rec, 3, "", "the embedded engine, in memory")}
}

// start opens key as adjl browse KEY does in a 120×40 terminal.
func (f *browseFixture) start(key string) {
	f.m.startKey, f.m.input = key, nil
	f.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	f.run(f.m.Init())
}

// send hands the model a message and runs what it asks for.
func (f *browseFixture) send(msg tea.Msg) {
	f.t.Helper()
	_, cmd := f.m.Update(msg)
	f.run(cmd)
}

// run executes the commands the model asked for and hands their messages
// back, as bubbletea would (one at a time: loads never overlap).
func (f *browseFixture) run(cmd tea.Cmd) {
	f.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			f.run(c)
		}
	case browseLoaded, tea.KeyPressMsg:
		f.send(msg)
	}
}

// press sends keys, each a key name as bubbletea spells it ("enter", "n").
func (f *browseFixture) press(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		f.send(keyPress(k))
	}
}

// prompt presses key, types text and enter: o, /, f, a.
func (f *browseFixture) prompt(key, text string) {
	f.t.Helper()
	f.press(key)
	f.typeText(text)
	f.press("enter")
}

// typeText types text a character at a time.
func (f *browseFixture) typeText(text string) {
	for _, r := range text {
		f.press(string(r))
	}
}

func keyPress(k string) tea.KeyPressMsg {
	codes := map[string]rune{"enter": tea.KeyEnter, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
		"down": tea.KeyDown, "up": tea.KeyUp, "esc": tea.KeyEscape}
	if c, ok := codes[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if k == "ctrl+u" {
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// screen is the view as plain text.
func (f *browseFixture) screen() string {
	return ansi.Strip(f.m.View().Content)
}

// has fails the test for each of want the screen lacks.
func (f *browseFixture) has(want ...string) {
	f.t.Helper()
	scr := f.screen()
	for _, w := range want {
		if !strings.Contains(scr, w) {
			f.t.Errorf("screen lacks %q:\n%s", w, scr)
		}
	}
}

// rows are the other-side keys shown in a pane.
func (f *browseFixture) rows(pane int) []string {
	var out []string
	for _, r := range f.m.view.panes[pane].rows {
		out = append(out, r.key)
	}
	return out
}

// requests are the request lines of the last action.
func (f *browseFixture) requests() string { return strings.Join(f.m.view.requests, "\n") }

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
			grade := map[string]any{"grade": string(rune('B' + i%3)), "enrolledOn": fmt.Sprintf("2026-09-%02d", i%28+1)}
			if i == 1 {
				grade = map[string]any{"enrolledOn": "2026-09-13"} // no grade: an empty cell
			}
			if _, _, err := st.Link(ctx, rel, fmt.Sprintf("s%02d", i), "math204", grade); err != nil {
				panic(err)
			}
		}
	}
}

func TestBrowseShowsItemEdgesAndRequests(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	f.has("STU#a91 (student)", "item: name=Ana  courseCount=2",
		"forward · base table · enrollment (courses)", "page 1 · 2 rows · by course ↑",
		"reverse · index GSI1", "no relation has STU# on its to side",
		"edge STU#a91 → CRS#math204 · grade: A",
		`request: Query table=school key='(PK = "STU#a91") AND (begins_with (SK, "ENROLL#CRS#"))'`, "capacity=0.5", "attempts=1",
		`request: GetItem table=school key='PK="STU#a91",SK="STU#a91"'`,
		"? keys")
	if n := len(f.m.view.requests); n != 2 {
		t.Errorf("opening a student sent %d requests, want the Query and the GetItem: %q", n, f.m.view.requests)
	}
}

// TestBrowseTableAlignsColumnsAndKeepsEmptyCells: every value of a column
// starts at the same place, and a row without a grade keeps its empty
// cell, so its date stays in the date column.
func TestBrowseTableAlignsColumnsAndKeepsEmptyCells(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(3))
	f.m.limit = 10
	f.start("CRS#math204")
	var lines []string
	for _, l := range strings.Split(f.screen(), "\n") {
		if strings.Contains(l, "STU#") && strings.Contains(l, "2026-09-") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("rows with a date: %q\n%s", lines, f.screen())
	}
	col := strings.Index(lines[0], "2026-09-")
	for _, l := range lines {
		if strings.Index(l, "2026-09-") != col {
			t.Errorf("the date column moves:\n%s", strings.Join(lines, "\n"))
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "STU#s01") && strings.TrimSpace(l[strings.Index(l, "STU#s01")+7:col]) != "" {
			t.Errorf("the row without a grade shows one: %q", l)
		}
	}
	f.has("student ↑", "grade", "enrolledOn")
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
	f.has("CRS#math204 (course) · back: STU#a91 (1)", "item: title=Algebra  studentCount=3", "index=GSI1")
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
	f.has("no previous key")
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
	f.has("page 3 · 2 rows", "(last) · p previous")
	f.press("n")
	f.has("last page")
	f.press("p")
	if got := f.rows(paneReverse); !slices.Equal(got, pages[1]) {
		t.Errorf("p: %v, want page 2 %v", got, pages[1])
	}
	if !strings.Contains(f.requests(), "from-cursor=true") {
		t.Errorf("page 2 request: %q", f.m.view.requests)
	}
	f.press("p", "p")
	if got := f.rows(paneReverse); !slices.Equal(got, pages[0]) {
		t.Errorf("back to page 1: %v", got)
	}
	f.has("first page")
}

// TestBrowseKeysTypedWhileLoadingApplyInOrder: n n n typed while the
// first page loads land on page 4, as if typed one after the other.
func TestBrowseKeysTypedWhileLoadingApplyInOrder(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(12))
	f.start("CRS#math204")
	_, first := f.m.Update(keyPress("n"))
	for range 2 {
		if _, cmd := f.m.Update(keyPress("n")); cmd != nil {
			if _, ok := cmd().(browseLoaded); ok {
				t.Fatal("a key typed while loading started a load of its own")
			}
		}
	}
	if len(f.m.queue) != 2 {
		t.Fatalf("queue holds %d keys, want the two n typed while loading", len(f.m.queue))
	}
	// q behind waiting keys (one may open a line it is typed into) waits.
	if _, cmd := f.m.Update(keyPress("q")); cmd != nil || len(f.m.queue) != 3 {
		t.Errorf("q behind waiting keys: command %v, queue %d", cmd != nil, len(f.m.queue))
	}
	f.m.queue = f.m.queue[:2]
	f.run(first)
	if p := f.m.view.panes[paneReverse]; p.page() != 4 || len(f.m.queue) != 0 {
		t.Errorf("page %d, queue %d: want page 4 and nothing left", p.page(), len(f.m.queue))
	}
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"STU#s08", "STU#s09", "STU#s10"}) {
		t.Errorf("page 4 = %v", got)
	}
}

// TestBrowsePageFillsTheTerminal: without --limit a page is as many rows
// as the pane shows; at 160×45 that is over 25.
func TestBrowsePageFillsTheTerminal(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(60))
	f.m.limit = 0
	f.m.startKey, f.m.input = "CRS#math204", nil
	if cmd := f.m.Init(); cmd != nil {
		t.Fatal("Init loads before the terminal's size is known")
	}
	f.send(tea.WindowSizeMsg{Width: 160, Height: 45})
	if n := len(f.rows(paneReverse)); n < 25 {
		t.Fatalf("a page of %d rows at 160×45", n)
	}
	n := len(f.rows(paneReverse))
	shown := strings.Count(f.screen(), "STU#s")
	if shown < n-1 { // STU#a91 is the first row
		t.Errorf("%d of %d rows on the screen:\n%s", shown, n, f.screen())
	}
	if lines := strings.Count(f.screen(), "\n") + 1; lines > 45 {
		t.Errorf("the view is %d lines in a 45-line terminal:\n%s", lines, f.screen())
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
	if n := strings.Count(f.requests(), "Query table=social index=GSI1"); n != 4 {
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

// TestBrowseRoleKeysAndTheWholeEntity: an entity key in no relation lists
// its role keys, which open like edges; its item row shows the counts
// kept on the role items, read with one BatchGetItem.
func TestBrowseRoleKeysAndTheWholeEntity(t *testing.T) {
	f := newBrowseFixture(t, "social.yaml", func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		st.PutEntity(ctx, s.Entity("user"), "alice", map[string]any{"name": "Alice"})
		st.Link(ctx, s.Relation("follow"), "alice", "bob", nil)
		st.Link(ctx, s.Relation("follow"), "bob", "alice", nil)
	})
	f.start("USER#alice")
	f.has("in no relation itself; its roles:", "> ACTOR#alice", "item: name=Alice  followerCount=1  followingCount=1", "request: BatchGetItem table=social keys=3")
	f.press("enter")
	if f.m.view.key != "ACTOR#alice" || !slices.Equal(f.rows(paneForward), []string{"TARGET#bob"}) {
		t.Errorf("ACTOR#alice: key %s, rows %v", f.m.view.key, f.rows(paneForward))
	}
}

// TestBrowseSorts: s sorts the rows loaded by the next column (rows
// without the value last) and says so; S on the key reads the list last
// first, exactly, from DynamoDB.
func TestBrowseSorts(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(5))
	f.m.limit = 6
	f.start("CRS#math204")
	f.press("s")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"STU#a91", "STU#s00", "STU#s03", "STU#s04", "STU#s02", "STU#s01"}) {
		t.Errorf("by grade: %v", got)
	}
	f.has("by grade ↑ (rows loaded)", "grade ↑")
	f.press("S")
	if got := f.rows(paneReverse); !slices.Equal(got[:2], []string{"STU#s02", "STU#s04"}) || got[5] != "STU#s01" {
		t.Errorf("by grade, descending: %v", got)
	}
	f.press("s", "s") // enrolledOn, then the key again
	f.has("by student ↑")
	f.press("S")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"STU#s04", "STU#s03", "STU#s02", "STU#s01", "STU#s00", "STU#a91"}) {
		t.Errorf("by key, descending: %v", got)
	}
	if !strings.Contains(f.requests(), "Query table=school index=GSI1") {
		t.Errorf("the descending key order was not read again: %q", f.m.view.requests)
	}
}

// orderedSocial is examples/social.yaml with follow ordered by since,
// newest first (composite index keys), in a file of the test's.
func orderedSocial(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(examplesDir, "social.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "    attributes: {since: date}\n", "    attributes: {since: date}\n    sort: {by: since, order: desc, index: composite}\n", 1)
	path := filepath.Join(t.TempDir(), "social.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowseOrderedRelation: an ordered relation's followers are read
// newest first; sorting by since is DynamoDB's (S reads them oldest
// first), by the key it sorts the rows loaded; a filter on since is a key
// condition; / looks among the rows loaded.
func TestBrowseOrderedRelation(t *testing.T) {
	f := newBrowseFixture(t, orderedSocial(t), func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		for i, who := range []string{"dan", "amy", "cat", "bea"} { // since 01, 02, 03, 04
			if _, _, err := st.Link(ctx, s.Relation("follow"), who, "bob", map[string]any{"since": fmt.Sprintf("2026-0%d-01", i+1)}); err != nil {
				panic(err)
			}
		}
	})
	f.m.limit = 10
	f.start("TARGET#bob")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"ACTOR#bea", "ACTOR#cat", "ACTOR#amy", "ACTOR#dan"}) {
		t.Errorf("newest first: %v", got)
	}
	f.press("s", "s") // the key, then since again: back in DynamoDB's order
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"ACTOR#bea", "ACTOR#cat", "ACTOR#amy", "ACTOR#dan"}) {
		t.Errorf("since again: %v", got)
	}
	f.has("by since ↓", "since ↓")
	f.press("S")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"ACTOR#dan", "ACTOR#amy", "ACTOR#cat", "ACTOR#bea"}) {
		t.Errorf("oldest first: %v", got)
	}
	if !strings.Contains(f.requests(), "Query table=social index=GSI1") {
		t.Errorf("S did not read the list again: %q", f.m.view.requests)
	}
	f.press("s") // the key, sorting the rows loaded
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"ACTOR#amy", "ACTOR#bea", "ACTOR#cat", "ACTOR#dan"}) {
		t.Errorf("by key: %v", got)
	}
	f.has("by actor ↑ (rows loaded)")
	f.press("f")
	f.typeText("since >= 2026-03-01")
	f.has("KeyConditionExpression: (#0 = :0) AND (#1 BETWEEN :1 AND :2)")
	f.press("enter")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"ACTOR#bea", "ACTOR#cat"}) {
		t.Errorf("where since >= 2026-03-01: %v", got)
	}
	f.has("where since >= 2026-03-01")
	f.prompt("/", "dan")
	f.has("ACTOR#dan is not among the 2 rows loaded; the list is in since order")
}

// TestBrowseFindsAKey: / selects a key on the page shown without a
// request, else reads a page that starts at it (a key condition from the
// key), bare or prefixed.
func TestBrowseFindsAKey(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(20))
	f.start("CRS#math204")
	before := f.requests()
	f.prompt("/", "s01")
	if p := f.m.view.panes[paneReverse]; p.selectedKey() != "STU#s01" || f.requests() != before {
		t.Errorf("on the page: selected %s, requests %q", p.selectedKey(), f.m.view.requests)
	}
	f.prompt("/", "STU#s15")
	p := f.m.view.panes[paneReverse]
	if p.selectedKey() != "STU#s15" || !slices.Equal(f.rows(paneReverse), []string{"STU#s15", "STU#s16", "STU#s17"}) {
		t.Errorf("found: selected %s, rows %v", p.selectedKey(), f.rows(paneReverse))
	}
	if !strings.Contains(f.requests(), `GSI1SK BETWEEN "STU#s15" AND "STU$"`) {
		t.Errorf("find request: %q", f.m.view.requests)
	}
	f.has("from STU#s15 · 3 rows")
	f.press("n")
	f.has("page 2 from STU#s15")
	if !slices.Equal(f.rows(paneReverse), []string{"STU#s18", "STU#s19"}) {
		t.Errorf("the page after the find: %v", f.rows(paneReverse))
	}
	f.press("p", "p")
	if p.page() != 1 || p.selectedKey() != "STU#a91" {
		t.Errorf("p twice: page %d, selected %s", p.page(), p.selectedKey())
	}
	f.prompt("/", "CRS#x")
	f.has("! ")
}

// TestBrowseEditsInPlace: e, ctrl+u, a value, enter writes the edge on
// condition of what it showed; the same edit after another writer changed
// it is refused and says what changed; u puts the value back.
func TestBrowseEditsInPlace(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	f.press("e")
	f.has("edit STU#a91 → CRS#math204", "grade (string)", "enrolledOn (date)")
	f.press("ctrl+u")
	f.typeText("C")
	f.press("enter")
	rel := f.sch.Relation("enrollment")
	if it, _, _ := f.st.Check(context.Background(), rel, "a91", "math204", true); cell(plain(t, it["grade"])) != "C" {
		t.Fatalf("grade after the edit: %v\n%s", it["grade"], f.screen())
	}
	f.has(`STU#a91 → CRS#math204: grade C (was A) · u undoes`,
		`request: UpdateItem table=school key='PK="STU#a91",SK="ENROLL#CRS#math204"'`, "request: Query table=school")
	if !strings.Contains(f.requests(), `condition='((attribute_exists (PK)) AND (attribute_not_exists (enrolledOn))) AND (grade = "A")'`) {
		t.Errorf("the condition lacks the grade shown: %q", f.m.view.requests)
	}
	// Another shell sets the grade; the view still shows C.
	if _, _, err := f.st.Link(context.Background(), rel, "a91", "math204", map[string]any{"grade": "B"}); err != nil {
		t.Fatal(err)
	}
	f.press("e", "ctrl+u")
	f.typeText("D")
	f.press("enter")
	f.has(`grade is "B" (was "C"); nothing written · R reloads`)
	if it, _, _ := f.st.Check(context.Background(), rel, "a91", "math204", true); cell(plain(t, it["grade"])) != "B" {
		t.Errorf("the refused edit wrote: %v", it["grade"])
	}
	f.press("R")
	f.press("u")
	if it, _, _ := f.st.Check(context.Background(), rel, "a91", "math204", true); cell(plain(t, it["grade"])) != "B" {
		t.Errorf("undo over another writer's change wrote: %v", it["grade"])
	}
	f.has("cannot undo the edit of STU#a91 → CRS#math204")
	// An edit then its undo.
	f.press("e", "ctrl+u")
	f.typeText("A-")
	f.press("enter", "u")
	if it, _, _ := f.st.Check(context.Background(), rel, "a91", "math204", true); cell(plain(t, it["grade"])) != "B" {
		t.Errorf("u did not restore the grade: %v", it["grade"])
	}
	f.has("undone: the edit of STU#a91 → CRS#math204")
}

// plain is an attribute value as the view shows it.
func plain(t *testing.T, av types.AttributeValue) any {
	t.Helper()
	if av == nil {
		return nil
	}
	v, err := ops.PlainValue(av)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBrowseEditsTheItem: the item row, above the first edge, edits the
// entity's attributes; a value that does not parse keeps the form open.
func TestBrowseEditsTheItem(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("CRS#math204")
	f.press("up")
	if !f.m.view.onItem {
		t.Fatal("up from the first row does not select the item")
	}
	f.press("e", "tab", "ctrl+u")
	f.typeText("five")
	f.press("enter")
	if f.m.form == nil || !strings.Contains(f.m.status, "credits is a number") {
		t.Fatalf("a bad number: form %v, status %q", f.m.form != nil, f.m.status)
	}
	f.press("ctrl+u")
	f.typeText("5")
	f.press("enter")
	f.has("item: title=Algebra  credits=5  studentCount=1", "CRS#math204: credits 5 (was unset)")
	f.press("u")
	f.has("item: title=Algebra  studentCount=1")
}

// TestBrowseReadOnlyRefusesWrites: every write key is refused with a note
// and sends nothing.
func TestBrowseReadOnlyRefusesWrites(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.m.readOnly = true
	f.start("STU#a91")
	before := f.requests()
	for _, k := range []string{"e", "a", "x", "u"} {
		f.press(k)
		if !strings.Contains(f.m.status, "read-only view") || f.m.form != nil || f.m.input != nil {
			t.Errorf("%s: status %q", k, f.m.status)
		}
	}
	if f.requests() != before {
		t.Errorf("a refused write sent requests: %q", f.m.view.requests)
	}
}

// TestBrowseAddsAndUnlinks: a links a key typed (tab completes the
// prefix) with the form's attributes, counters and all; x asks, then
// unlinks; u links it again with its attributes.
func TestBrowseAddsAndUnlinks(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	f.press("a", "C", "tab")
	if got := f.m.input.field.Value(); got != "CRS#" {
		t.Errorf("tab completed %q", got)
	}
	f.typeText("bio1")
	f.press("enter")
	f.has("new edge STU#a91 → CRS#bio1")
	f.typeText("B")
	f.press("enter")
	f.has("linked STU#a91 → CRS#bio1 · u undoes", "courseCount=3", "request: TransactWriteItems")
	f.m.view.panes[paneForward].selectKey("CRS#bio1")
	f.press("x")
	f.has("unlink STU#a91 → CRS#bio1? (y/n)")
	f.press("n")
	f.has("nothing written", "courseCount=3")
	f.press("x", "y")
	f.has("unlinked STU#a91 → CRS#bio1", "courseCount=2")
	f.press("u")
	it, found, _ := f.st.Check(context.Background(), f.sch.Relation("enrollment"), "a91", "bio1", true)
	if !found || cell(plain(t, it["grade"])) != "B" {
		t.Errorf("u after unlink: found %v, item %v", found, it)
	}
	f.has("courseCount=3")
}

// TestBrowseFilters: f shows the FilterExpression as it is typed, then
// lists only the edges that meet it; enter alone clears it.
func TestBrowseFilters(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(6))
	f.m.limit = 10
	f.start("CRS#math204")
	f.press("f")
	f.typeText("grade = B")
	f.has("KeyConditionExpression: (#1 = :1) AND (begins_with (#2, :2))", "FilterExpression: #0 = :0",
		`names #0=grade #1=GSI1PK #2=GSI1SK · values :0="B" :1="CRS#math204" :2="STU#"`)
	f.press("enter")
	if got := f.rows(paneReverse); !slices.Equal(got, []string{"STU#s00", "STU#s03"}) {
		t.Errorf("grade = B: %v", got)
	}
	f.has("filter grade = B")
	if !strings.Contains(f.requests(), `filter='grade = "B"'`) {
		t.Errorf("the Query lacks the filter: %q", f.m.view.requests)
	}
	f.press("f")
	f.typeText("credits > 2")
	f.has(`"credits" is not an attribute of the relation`)
	f.press("esc", "f", "enter")
	if n := len(f.rows(paneReverse)); n != 7 {
		t.Errorf("filters cleared: %d rows", n)
	}
}

// TestBrowseLoadsEveryRow: L reads the whole list and shows it without
// pages; a sort then covers every row.
func TestBrowseLoadsEveryRow(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(9))
	f.start("CRS#math204")
	f.press("s", "L")
	if n := len(f.rows(paneReverse)); n != 10 {
		t.Fatalf("L loaded %d rows", n)
	}
	f.has("all 10 rows", "by grade ↑ (all rows)", "all 10 rows loaded")
	if got := f.rows(paneReverse); got[0] != "STU#a91" || got[9] != "STU#s01" {
		t.Errorf("sorted by grade: %v", got)
	}
	f.press("n")
	f.has("every row loaded is shown")
	f.press("R")
	f.has("page 1 · 3 rows")
}

// TestBrowseStopsLoadingEveryRow: esc while L loads stops it with the
// rows read so far.
func TestBrowseStopsLoadingEveryRow(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(4))
	f.start("CRS#math204")
	_, cmd := f.m.Update(keyPress("L"))
	f.m.Update(keyPress("esc"))
	f.run(cmd)
	if p := f.m.view.panes[paneReverse]; p.all || f.m.loading {
		t.Errorf("after esc: all %v, loading %v", p.all, f.m.loading)
	}
	f.has("stopped")
}

// TestBrowseReadsProjectedAwayAttributes: a KEYS_ONLY index holds no
// since; the selected edge is read whole with one GetItem, shown.
func TestBrowseReadsProjectedAwayAttributes(t *testing.T) {
	f := newBrowseFixture(t, "social.yaml", func(ctx context.Context, st *ops.Store, s *schema.Schema) {
		st.Link(ctx, s.Relation("follow"), "alice", "bob", map[string]any{"since": "2026-01-02"})
		st.Link(ctx, s.Relation("follow"), "carol", "bob", map[string]any{"since": "2026-03-04"})
	})
	f.start("TARGET#bob")
	f.has("edge ACTOR#alice → TARGET#bob · since: 2026-01-02 (read whole", `request: GetItem table=social key='PK="ACTOR#alice",SK="TARGET#bob"'`)
	f.press("down")
	f.has("since: 2026-03-04")
	before := f.requests()
	f.press("up")
	if f.requests() != before {
		t.Errorf("an edge read whole was read again: %q", f.m.view.requests)
	}
	f.press("e")
	if f.m.form == nil || f.m.form.fields[0].input.Value() != "2026-01-02" {
		t.Errorf("the form lacks since: %+v", f.m.form)
	}
}

// TestBrowseOpensABareID: o with a bare id takes the prefix of the entity
// the focused pane lists.
func TestBrowseOpensABareID(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(2))
	f.start("CRS#math204")
	f.prompt("o", "s01")
	if f.m.view.key != "STU#s01" {
		t.Errorf("o s01 opened %s:\n%s", f.m.view.key, f.screen())
	}
}

func TestBrowseKeyPromptAndHelp(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.m.openInput(inputOpen)
	if cmd := f.m.Init(); cmd != nil {
		t.Error("the prompt starts a command")
	}
	f.has("Open a key (STU# CRS#)")
	f.typeText("XYZ#1")
	f.press("enter")
	if f.m.view != nil || !strings.Contains(f.screen(), "XYZ#1") || !strings.Contains(f.screen(), "! ") {
		t.Errorf("bad key:\n%s", f.screen())
	}
	f.press("ctrl+u")
	f.typeText("STU#a91")
	f.press("enter")
	if f.m.view == nil || f.m.view.key != "STU#a91" {
		t.Fatalf("prompted key not opened:\n%s", f.screen())
	}
	f.press("?")
	f.has("next relation", "open a key", "undo the last write")
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
	t.Setenv("ADJL_READ_ONLY", "maybe")
	r = adjl(t, runOpts{tty: true}, "--schema", example(t, "school.yaml"), "browse", "STU#a91")
	if r.code != ExitUsage || !strings.Contains(r.err, `invalid ADJL_READ_ONLY="maybe"`) {
		t.Errorf("a bad ADJL_READ_ONLY: exit %d, stderr %q", r.code, r.err)
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

// TestBrowseRequestsLeaveRoomForThePanes: a long list of requests shows
// its first lines and how many more, and the view fits the terminal.
func TestBrowseRequestsLeaveRoomForThePanes(t *testing.T) {
	f := newBrowseFixture(t, "school.yaml", schoolSeed(0))
	f.start("STU#a91")
	for i := range 30 {
		f.m.view.requests = append(f.m.view.requests, fmt.Sprintf("Query table=school n=%d", i))
	}
	f.has("more lines of requests", "request: Query table=school n=0")
	if strings.Contains(f.screen(), "n=29") {
		t.Error("the last of 30 requests is shown")
	}
	if lines := strings.Count(f.screen(), "\n") + 1; lines > 40 {
		t.Errorf("%d lines in a 40-line terminal:\n%s", lines, f.screen())
	}
}
