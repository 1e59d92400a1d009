package ops

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestAPIHasNoScan keeps the client interface free of Scan: no read of adjl
// can fall back to reading the whole table.
func TestAPIHasNoScan(t *testing.T) {
	api := reflect.TypeOf((*API)(nil)).Elem()
	for i := range api.NumMethod() {
		if name := api.Method(i).Name; strings.Contains(name, "Scan") {
			t.Errorf("API has %s", name)
		}
	}
}

// TestOperationsPerMethod lists the requests each Store method sends: a
// relation command sends its access pattern and nothing else.
func TestOperationsPerMethod(t *testing.T) {
	sc := school()
	m := newEngine(t)
	rel := sc.Relations[0]
	st := New(m, sc, Options{})
	st.sleep = instant
	m.comeUpSlowly()
	steps := []struct {
		name string
		run  func() error
		want string
	}{
		{"CreateTable", func() error { _, err := st.CreateTable(ctx, true); return err }, "DescribeTable,CreateTable,DescribeTable,DescribeTable,DescribeTable,PutItem"},
		{"CreateTable again", func() error { _, err := st.CreateTable(ctx, false); return err }, "DescribeTable,GetItem"},
		{"PutEntity", func() error {
			_, err := st.PutEntity(ctx, sc.Entity("student"), "a", map[string]any{"name": "A"})
			return err
		}, "UpdateItem"},
		{"Link", func() error { _, _, err := st.Link(ctx, rel, "a", "b", nil); return err }, "TransactWriteItems"},
		{"Link with new attrs", func() error { _, _, err := st.Link(ctx, rel, "a", "b", map[string]any{"grade": "A"}); return err }, "TransactWriteItems,UpdateItem"},
		{"Check", func() error { _, _, err := st.Check(ctx, rel, "a", "b", false); return err }, "GetItem"},
		{"List forward", func() error { _, err := st.List(ctx, ListQuery{Relation: rel, Key: "a"}); return err }, "Query"},
		{"List reverse", func() error {
			_, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "b"})
			return err
		}, "Query"},
		{"ListAll", func() error {
			_, err := st.ListAll(ctx, ListQuery{Relation: rel, Key: "a"}, func(Item) error { return nil })
			return err
		}, "Query"},
		{"GetEntity", func() error { _, err := st.GetEntity(ctx, "STU#a", false); return err }, "GetItem"},
		{"DeleteEntity refused", func() error { _, err := st.DeleteEntity(ctx, "STU#a", false); _ = err; return nil }, "BatchGetItem,Query"},
		{"Unlink", func() error { _, _, err := st.Unlink(ctx, rel, "a", "b"); return err }, "TransactWriteItems"},
		{"DeleteEntity", func() error { _, err := st.DeleteEntity(ctx, "STU#a", false); return err }, "BatchGetItem,Query,TransactWriteItems"},
		{"DescribeTable", func() error { _, err := st.DescribeTable(ctx); return err }, "DescribeTable"},
		{"DeleteTable", func() error { return st.DeleteTable(ctx, false) }, "DeleteTable"},
	}
	for _, s := range steps {
		m.reset()
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		eq(t, s.name, strings.Join(m.ops(), ","), s.want)
	}
}

// TestExplainSendsNothing: every method hands its requests to Explain and
// returns a zero result.
func TestExplainSendsNothing(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	var got []string
	st := New(m, sc, Options{Explain: func(r Request) {
		got = append(got, r.Operation)
		if reflect.TypeOf(r.Input).String() != "*dynamodb."+r.Operation+"Input" {
			t.Errorf("%s input is %T", r.Operation, r.Input)
		}
	}})
	out, _, err := st.Link(ctx, rel, "a", "b", map[string]any{"grade": "A"})
	eq(t, "link outcome", out, Outcome(""))
	if err != nil {
		t.Fatal(err)
	}
	st.Unlink(ctx, rel, "a", "b")
	st.Check(ctx, rel, "a", "b", false)
	p, err := st.List(ctx, ListQuery{Relation: rel, Key: "a", WithEntity: true})
	if err != nil || len(p.Items) != 0 || p.Next != "" {
		t.Fatalf("list: %+v %v", p, err)
	}
	st.ListAll(ctx, ListQuery{Relation: rel, Key: "a"}, func(Item) error { t.Error("item emitted"); return nil })
	st.PutEntity(ctx, sc.Entity("student"), "a", nil)
	if _, err := st.GetEntity(ctx, "STU#a", false); err != nil {
		t.Errorf("get: %v", err)
	}
	st.DeleteEntity(ctx, "STU#a", true)
	st.CreateTable(ctx, true)
	st.DeleteTable(ctx, true)
	eq(t, "explained", strings.Join(got, ","),
		"TransactWriteItems,UpdateItem,TransactWriteItems,GetItem,Query,GetItem,Query,UpdateItem,GetItem,Query,TransactWriteItems,BatchGetItem,Query,TransactWriteItems,"+
			"DescribeTable,CreateTable,DescribeTable,PutItem,GetItem,DeleteTable,DescribeTable")
	if len(m.calls) != 0 {
		t.Errorf("explain sent %v", m.ops())
	}
	_ = dynamodb.QueryInput{}
}
