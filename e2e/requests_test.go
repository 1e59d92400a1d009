package e2e

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/cmd"
)

// requestCase is one command with the exact requests it sends, in order,
// in the scenario the test has set up, and what --explain prints for it:
// the same list plus the requests sent only in another case, marked (when).
type requestCase struct {
	args    []string
	sent    string // operations, comma-separated
	explain string // operations --explain lists; "" means the same as sent
}

// TestRequestsPerCommand runs every command of both examples through a
// recording endpoint and asserts the exact operation list each one sends,
// then asserts --explain lists the same requests without sending any. A
// relation command sends its access pattern and nothing else: a link or
// unlink one TransactWriteItems, a check one GetItem, a list page one Query
// (one per shard of a sharded reverse list).
func TestRequestsPerCommand(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			endpoint, rec := recordingServer(t, b)
			schemas := inRecordedDir(t, endpoint)
			school := []string{"--schema", schemas["school"]}
			social := []string{"--schema", schemas["social"]}
			schoolInv := []string{"--schema", schemas["school-inverted"]}
			socialInv := []string{"--schema", schemas["social-inverted"]}
			with := func(base []string, args ...string) []string { return append(slices.Clone(base), args...) }
			cases := []requestCase{
				{with(school, "table", "create", "--wait"), "DescribeTable,CreateTable,DescribeTable,PutItem",
					"DescribeTable,CreateTable,DescribeTable,PutItem,GetItem"},
				{with(school, "table", "create"), "DescribeTable,GetItem", "DescribeTable,CreateTable,PutItem,GetItem"},
				{with(school, "table", "describe"), "DescribeTable,GetItem", ""},
				{with(school, "put", "student", "a91", "--set", "name=Ana"), "UpdateItem", ""},
				{with(school, "put", "course", "math204", "--set", "title=Algebra"), "UpdateItem", ""},
				{with(school, "enroll", "a91", "math204", "--set", "grade=A"), "TransactWriteItems", "TransactWriteItems,UpdateItem"},
				{with(school, "enroll", "a91", "math204", "--set", "grade=B"), "TransactWriteItems,UpdateItem", ""},
				{with(school, "enroll", "b02", "math204"), "TransactWriteItems", ""},
				{with(school, "link", "enrollment", "b02", "phys101"), "TransactWriteItems", ""},
				{with(school, "enrolled", "a91", "math204"), "GetItem", ""},
				{with(school, "check", "enrollment", "a91", "math204", "--consistent"), "GetItem", ""},
				{with(school, "courses", "a91"), "Query", ""},
				// STU#a91 sorts after its ENROLL# edges: the list Query and
				// one GetItem; descending it is read first, in the one Query.
				{with(school, "courses", "a91", "--with-entity"), "Query,GetItem", ""},
				{with(school, "courses", "a91", "--with-entity", "--desc", "--limit", "1"), "Query", ""},
				{with(school, "members", "math204"), "Query", ""},
				// CRS#math204 sorts before its STU# members: the reverse way round.
				{with(school, "members", "math204", "--with-entity", "--limit", "1"), "Query", ""},
				{with(school, "members", "math204", "--with-entity", "--desc", "--limit", "1"), "Query,GetItem", ""},
				{with(school, "members", "math204", "--all", "-o", "ndjson"), "Query", ""},
				{with(school, "list", "enrollment", "math204", "--reverse", "--limit", "1"), "Query", ""},
				{with(school, "get", "STU#a91"), "GetItem", ""},
				{with(school, "unenroll", "b02", "phys101"), "TransactWriteItems", ""},
				{with(school, "unlink", "enrollment", "b02", "phys101"), "TransactWriteItems", ""},
				// No edges left on b02's side but one: the probe finds it.
				{with(school, "unenroll", "b02", "math204"), "TransactWriteItems", ""},
				// b02 keeps courseCount: its item is read first, and deleted
				// on condition that no link or unlink came after the look.
				{with(school, "delete", "STU#b02"), "BatchGetItem,Query,TransactWriteItems", ""},
				{with(school, "table", "delete", "--yes"), "DeleteTable", ""},

				{with(social, "table", "create", "--wait"), "DescribeTable,CreateTable,DescribeTable,PutItem",
					"DescribeTable,CreateTable,DescribeTable,PutItem,GetItem"},
				{with(social, "put", "user", "bob", "--set", "name=Bob"), "UpdateItem", ""},
				{with(social, "follow", "alice", "bob", "--set", "since=2026-01-02"), "TransactWriteItems", "TransactWriteItems,UpdateItem"},
				{with(social, "follow", "carol", "bob"), "TransactWriteItems", ""},
				{with(social, "follows", "alice", "bob"), "GetItem", ""},
				{with(social, "following", "alice"), "Query", ""},
				{with(social, "followers", "bob"), "Query,Query,Query,Query", ""},
				{with(social, "followers", "bob", "--limit", "1"), "Query,Query,Query,Query", ""},
				// No shard partition holds bob's own item: one GetItem, and one
				// Query summing his sharded followerCount.
				{with(social, "followers", "bob", "--with-entity"), "Query,Query,Query,Query,GetItem,Query", ""},
				{with(social, "get", "TARGET#bob"), "GetItem,Query", ""},
				// The user whole: its item and role items in one
				// BatchGetItem, and the Query summing followerCount.
				{with(social, "get", "USER#bob"), "BatchGetItem,Query", ""},
				{with(social, "unfollow", "carol", "bob"), "TransactWriteItems", ""},
				// One edge on carol's forward side, none on her 4 reverse
				// shards; --explain shows the removal and the counter item
				// deletes once each, marked as sent per item found.
				{with(social, "follow", "carol", "alice"), "TransactWriteItems", ""},
				// Then her items (the user item, the ACTOR# role item holding
				// followingCount, the TARGET# one and its 8 counter items)
				// are read, the look for edges is repeated, and they are
				// deleted in one transaction on condition that no counter
				// recorded a change meanwhile.
				{with(social, "delete", "USER#carol", "--cascade"), "Query,TransactWriteItems,Query,Query,Query,Query,BatchGetItem,Query,Query,Query,Query,Query,TransactWriteItems,Query",
					"Query,TransactWriteItems,Query,Query,Query,Query,TransactWriteItems,BatchGetItem,Query,Query,Query,Query,Query,TransactWriteItems,Query,DeleteItem"},
				{with(social, "table", "delete", "--yes"), "DeleteTable", ""},

				// The inverted layout (index on sk, pk) sends the same access
				// patterns; the course item is indexed under its own key and
				// its members under ENROLL#CRS#math204, so a reverse list with
				// the entity reads the item with one GetItem more.
				{with(schoolInv, "table", "create", "--wait"), "DescribeTable,CreateTable,DescribeTable,PutItem",
					"DescribeTable,CreateTable,DescribeTable,PutItem,GetItem"},
				{with(schoolInv, "table", "create"), "DescribeTable,GetItem", "DescribeTable,CreateTable,PutItem,GetItem"},
				{with(schoolInv, "table", "describe"), "DescribeTable,GetItem", ""},
				{with(schoolInv, "put", "student", "a91", "--set", "name=Ana"), "UpdateItem", ""},
				// A put with no attributes writes the bare key: a conditional PutItem.
				{with(schoolInv, "put", "course", "math204"), "PutItem", ""},
				{with(schoolInv, "enroll", "a91", "math204", "--set", "grade=A"), "TransactWriteItems", "TransactWriteItems,UpdateItem"},
				{with(schoolInv, "enroll", "a91", "math204", "--set", "grade=B"), "TransactWriteItems,UpdateItem", ""},
				{with(schoolInv, "enroll", "b02", "math204"), "TransactWriteItems", ""},
				{with(schoolInv, "enrolled", "a91", "math204"), "GetItem", ""},
				{with(schoolInv, "courses", "a91"), "Query", ""},
				{with(schoolInv, "courses", "a91", "--with-entity"), "Query,GetItem", ""},
				{with(schoolInv, "members", "math204"), "Query", ""},
				{with(schoolInv, "members", "math204", "--with-entity"), "Query,GetItem", ""},
				{with(schoolInv, "members", "math204", "--all", "-o", "ndjson"), "Query", ""},
				{with(schoolInv, "get", "STU#a91"), "GetItem", ""},
				{with(schoolInv, "unenroll", "b02", "math204"), "TransactWriteItems", ""},
				{with(schoolInv, "delete", "STU#b02"), "Query,DeleteItem", ""},
				{with(schoolInv, "table", "delete", "--yes"), "DeleteTable", ""},

				// Social in the inverted layout: no shards, counters on the items.
				{with(socialInv, "table", "create", "--wait"), "DescribeTable,CreateTable,DescribeTable,PutItem",
					"DescribeTable,CreateTable,DescribeTable,PutItem,GetItem"},
				{with(socialInv, "follow", "alice", "bob", "--set", "since=2026-01-02"), "TransactWriteItems", "TransactWriteItems,UpdateItem"},
				{with(socialInv, "follow", "carol", "bob"), "TransactWriteItems", ""},
				{with(socialInv, "follows", "alice", "bob"), "GetItem", ""},
				{with(socialInv, "following", "alice"), "Query", ""},
				{with(socialInv, "followers", "bob"), "Query", ""},
				// KEYS_ONLY: the index has bob's key, not his counter.
				{with(socialInv, "followers", "bob", "--with-entity"), "Query,GetItem", ""},
				{with(socialInv, "get", "TARGET#bob"), "GetItem", ""},
				{with(socialInv, "unfollow", "carol", "bob"), "TransactWriteItems", ""},
				{with(socialInv, "table", "delete", "--yes"), "DeleteTable", ""},
			}
			for _, c := range cases {
				name := strings.Join(c.args[2:], " ")
				var stdout, stderr bytes.Buffer
				if code := cmd.Run(c.args, strings.NewReader(""), &stdout, &stderr); code != 0 {
					t.Fatalf("adjl %s: exit %d\n%s%s", name, code, stdout.String(), stderr.String())
				}
				if got := strings.Join(rec.take(), ","); got != c.sent {
					t.Errorf("adjl %s sent %s, want %s", name, got, c.sent)
				}
				stdout.Reset()
				stderr.Reset()
				if code := cmd.Run(append(slices.Clone(c.args), "--explain"), strings.NewReader(""), &stdout, &stderr); code != 0 {
					t.Fatalf("adjl %s --explain: exit %d\n%s", name, code, stderr.String())
				}
				if sent := rec.take(); len(sent) > 0 {
					t.Errorf("adjl %s --explain sent %v", name, sent)
				}
				want := c.explain
				if want == "" {
					want = c.sent
				}
				if got := strings.Join(explainedOps(stdout.String()), ","); got != want {
					t.Errorf("adjl %s --explain lists %s, want %s", name, got, want)
				}
			}
		})
	}
}

var explainHeader = regexp.MustCompile(`(?m)^# ([A-Za-z]+)( \(.*\))?$`)

// explainedOps lists the operations of the request blocks --explain printed.
func explainedOps(out string) []string {
	var ops []string
	for _, m := range explainHeader.FindAllStringSubmatch(out, -1) {
		ops = append(ops, m[1])
	}
	return ops
}
