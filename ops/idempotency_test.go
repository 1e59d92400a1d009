package ops

import (
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/internal/faultproxy"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestTransactionsWhoseAnswerIsLostApplyOnce drops the answer of the first
// TransactWriteItems of a link, an unlink and a cascading delete after the
// engine applied it (the connection closes instead). The SDK's retry
// carries the same ClientRequestToken, which the engine answers as the
// success it was: the link reports created (not unchanged), the unlink
// deleted, and every counter counts the edge once.
func TestTransactionsWhoseAnswerIsLostApplyOnce(t *testing.T) {
	st, p, dropNext := schoolDroppingAnswer(t, "TransactWriteItems")
	rel := st.schema.Relations[0]
	counter := func(key, name string) string {
		t.Helper()
		return nOf(must[Item](t)(st.GetEntity(ctx, key, true)), name)
	}
	// lostThenRetried checks that the transaction sent after the dropped
	// one is its retry, with the same token.
	lostThenRetried := func(what string) {
		t.Helper()
		var txs []faultproxy.Entry
		for _, e := range p.Log() {
			if e.Op == "TransactWriteItems" {
				txs = append(txs, e)
			}
		}
		i := len(txs) - 1
		for i >= 0 && !txs[i].Hit {
			i--
		}
		if i < 0 || i == len(txs)-1 {
			t.Fatalf("%s: no transaction dropped and retried (%d sent)", what, len(txs))
		}
		lost, retry := txs[i], txs[i+1]
		if lost.Token == "" || retry.Token != lost.Token {
			t.Errorf("%s: dropped %+v then sent %+v, want the retry to carry the dropped request's token", what, lost, retry)
		}
	}

	dropNext()
	eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"}))), Created)
	lostThenRetried("link")
	eq(t, "courseCount", counter("STU#a91", "courseCount"), "1")
	eq(t, "studentCount", counter("CRS#math204", "studentCount"), "1")

	dropNext()
	eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Deleted)
	lostThenRetried("unlink")
	eq(t, "courseCount after unlink", counter("STU#a91", "courseCount"), "0")
	eq(t, "studentCount after unlink", counter("CRS#math204", "studentCount"), "0")

	for _, c := range []string{"c1", "c2", "c3"} {
		must[Outcome](t)(first(st.Link(ctx, rel, "b02", c, nil)))
	}
	dropNext()
	if _, err := st.DeleteEntity(ctx, "STU#b02", true); err != nil {
		t.Fatal(err)
	}
	lostThenRetried("delete --cascade")
	for _, c := range []string{"CRS#c1", "CRS#c2", "CRS#c3"} {
		eq(t, c+" studentCount after the cascade", counter(c, "studentCount"), "0")
	}
}

// schoolDroppingAnswer is a Store on the school table behind a proxy that,
// after each dropNext, drops the answer of the next op request once the
// engine has applied it (the connection closes instead).
func schoolDroppingAnswer(t *testing.T, op string) (st *Store, p *faultproxy.Proxy, dropNext func()) {
	t.Helper()
	var drop atomic.Bool
	api, p := proxiedEngine(t, func(sent string, _ int) (faultproxy.Fault, bool) {
		return faultproxy.DropAfter, sent == op && drop.CompareAndSwap(true, false)
	})
	st = New(api, school(), Options{})
	if _, err := st.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	return st, p, func() { drop.Store(true) }
}

// proxiedEngine is a client, with the SDK's standard retryer as adjl's
// clients have it, of an in-memory engine on loopback behind a fault proxy
// that decide drives.
func proxiedEngine(t *testing.T, decide func(op string, n int) (faultproxy.Fault, bool)) (*dynamodb.Client, *faultproxy.Proxy) {
	t.Helper()
	p, err := faultproxy.New(backendtest.EngineURL(t), faultproxy.Config{Decide: decide})
	if err != nil {
		t.Fatal(err)
	}
	proxySrv := httptest.NewServer(p)
	t.Cleanup(proxySrv.Close)
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(proxySrv.URL),
		Credentials: aws.AnonymousCredentials{}}), p
}

// TestCreateTableWhoseAnswerIsLost: CreateTable is applied but its answer
// lost, so the SDK's retry finds the table in use. adjl goes on as the
// table's creator: the settings the schema manages (here point-in-time
// recovery) are applied and the table matches the schema afterwards.
func TestCreateTableWhoseAnswerIsLost(t *testing.T) {
	api, p := proxiedEngine(t, func(op string, n int) (faultproxy.Fault, bool) {
		return faultproxy.DropAfter, op == "CreateTable" && n == 1
	})
	sc := school()
	on := true
	sc.Table.Settings.PointInTimeRecovery = &on
	st := New(api, sc, Options{})
	created, err := st.CreateTable(ctx, true)
	if err != nil || !created {
		t.Fatalf("create: created %v, %v", created, err)
	}
	if n := p.Injected()[faultproxy.DropAfter]; n != 1 {
		t.Fatalf("%d answers dropped, want 1", n)
	}
	if created, err := st.CreateTable(ctx, true); err != nil || created {
		t.Errorf("create again: created %v, %v; want the table to match the schema", created, err)
	}
}

// TestTransactionsCarryATokenOfTheirOwn: ops sets ClientRequestToken
// itself, a new one per transaction, so idempotency does not depend on the
// client's middleware (a test double of API has none). The engine's record
// is taken before the SDK's middleware could add a token.
func TestTransactionsCarryATokenOfTheirOwn(t *testing.T) {
	st, m, rel := schoolStore(t)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204")))
	var tokens []string
	for _, c := range m.calls {
		if in, ok := c.Input.(*dynamodb.TransactWriteItemsInput); ok {
			tokens = append(tokens, aws.ToString(in.ClientRequestToken))
		}
	}
	if len(tokens) != 2 || tokens[0] == "" || tokens[1] == "" || tokens[0] == tokens[1] || len(tokens[0]) > 36 {
		t.Errorf("tokens %q, want two different ones of at most 36 characters", tokens)
	}
}

// TestImportCountsItsEdgesWhenAFixAnswerIsLost: a counter fix (UpdateItem,
// which has no idempotency token) applied but unanswered fails its
// condition when the SDK retries it; the import then reads the count it
// wrote itself, and must still count the edges it made from the value it
// first read.
func TestImportCountsItsEdgesWhenAFixAnswerIsLost(t *testing.T) {
	st, p, dropNext := schoolDroppingAnswer(t, "UpdateItem")
	rel := st.schema.Relations[0]
	dropNext()
	rep, err := st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a91", "CRS#math204", nil),
		edgeRow("STU#a91", "CRS#bio1", nil),
		edgeRow("STU#b02", "CRS#bio1", nil),
	), ImportOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, e := range p.Log() {
		if e.Op == "UpdateItem" && e.Hit {
			dropped++
		}
	}
	eq(t, "answers dropped", dropped, 1)
	eq(t, "created", rep.Created, 3)
	eq(t, "unchanged", rep.Unchanged, 0)
	fixed := 0
	for _, r := range rep.Fixed {
		if r.Fixed {
			fixed++
		}
	}
	eq(t, "counters corrected", fixed, len(rep.Fixed))
	eq(t, "a91 courses", counter(t, st, "STU#a91", "courseCount"), "2")
	eq(t, "bio1 students", counter(t, st, "CRS#bio1", "studentCount"), "2")
}
