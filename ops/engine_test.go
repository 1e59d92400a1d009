package ops

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// engineStore is a Store on a fresh in-memory embedded engine with sc's
// table created; api, when given, wraps the engine's client.
func engineStore(t testing.TB, sc *schema.Schema, wrap func(API) API) (*Store, API) {
	t.Helper()
	var api API = backendtest.Engine(t)
	if wrap != nil {
		api = wrap(api)
	}
	st := New(api, sc, Options{})
	if _, err := st.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	return st, api
}

// eachStore runs fn on the embedded engine and, when ADJL_TEST_ENDPOINT names
// a reference server, on it too.
func eachStore(t *testing.T, sc func() *schema.Schema, fn func(t *testing.T, st *Store)) {
	t.Run("embedded", func(t *testing.T) { st, _ := engineStore(t, sc(), nil); fn(t, st) })
	t.Run("endpoint", func(t *testing.T) { fn(t, endpointStore(t, sc())) })
}

// call is one request a Store sent.
type call struct {
	Op    string
	Input any
}

// engineAPI is the embedded engine's client with a record of every request
// sent through it and hooks that fail a request (inject) or change its
// answer (answer), so tests assert what a Store sends against a real
// DynamoDB implementation. raw reaches the same engine unrecorded: the
// tests' own reads and writes (get, put, items) never show in calls.
type engineAPI struct {
	*dynamodb.Client
	raw   *dynamodb.Client
	table string // the table get, put and items use: the last one created

	mu     sync.Mutex
	calls  []call
	inject func(op string, in any) error                    // a non-nil error is the answer, and the request is not sent
	answer func(op string, out any, err error) (any, error) // may change the answer before the Store sees it
}

var (
	_ API     = (*engineAPI)(nil)
	_ scanAPI = (*engineAPI)(nil)
)

// newEngine is an engineAPI on a fresh in-memory engine holding, for each
// schema given, its table as CreateTable makes it but without the metadata
// item (no request of that setup is recorded).
func newEngine(t backendtest.T, tables ...*schema.Schema) *engineAPI {
	t.Helper()
	m := &engineAPI{}
	m.Client = backendtest.Engine(t, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, m.addRecorder) })
	raw := m.Client.Options()
	raw.APIOptions = nil
	m.raw = dynamodb.New(raw)
	for _, sc := range tables {
		if _, err := m.raw.CreateTable(ctx, tabledef.CreateTableInput(sc)); err != nil {
			t.Fatal(err)
		}
		m.table = sc.Table.Name
	}
	return m
}

// recordedStore is a Store on a new engine holding sc's table (newEngine),
// and the engineAPI that records its requests.
func recordedStore(t backendtest.T, sc *schema.Schema, opt Options) (*Store, *engineAPI) {
	t.Helper()
	m := newEngine(t, sc)
	return New(m, sc, opt), m
}

// schoolStore is a recordedStore of the school example with default
// options, and its enrollment relation.
func schoolStore(t backendtest.T) (*Store, *engineAPI, *schema.Relation) {
	t.Helper()
	sc := school()
	st, m := recordedStore(t, sc, Options{})
	return st, m, sc.Relations[0]
}

func (m *engineAPI) addRecorder(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("record", m.record), middleware.Before)
}

// record runs first for every request: it notes the request, lets inject
// fail it, and lets answer change what comes back.
func (m *engineAPI) record(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	op := middleware.GetOperationName(ctx)
	m.mu.Lock()
	m.calls = append(m.calls, call{op, snapshot(in.Parameters)})
	inject, answer := m.inject, m.answer
	m.mu.Unlock()
	if inject != nil {
		if err := inject(op, in.Parameters); err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if answer != nil {
		out.Result, err = answer(op, out.Result, err)
	}
	if c, ok := in.Parameters.(*dynamodb.CreateTableInput); ok && err == nil {
		m.mu.Lock()
		m.table = aws.ToString(c.TableName)
		m.mu.Unlock()
	}
	return out, md, err
}

// opRecorder notes the operation name of each request sent through the
// clients it makes (client) that keep, when not nil, says to keep; unlike
// engineAPI it works on any backend's client.
type opRecorder struct {
	keep func(op string) bool
	mu   sync.Mutex
	ops  []string
}

// client is a copy of c whose requests r notes before they are sent.
func (r *opRecorder) client(c *dynamodb.Client) *dynamodb.Client {
	note := func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if op := middleware.GetOperationName(ctx); r.keep == nil || r.keep(op) {
			r.mu.Lock()
			r.ops = append(r.ops, op)
			r.mu.Unlock()
		}
		return next.HandleInitialize(ctx, in)
	}
	return dynamodb.New(c.Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("noteOperation", note), middleware.Before)
		})
	})
}

// take returns the operations noted since the last take.
func (r *opRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.ops
	r.ops = nil
	return out
}

// clientOf is the SDK client under st: the embedded engine's or a
// reference server's.
func clientOf(st *Store) *dynamodb.Client {
	switch api := st.api.(type) {
	case *engineAPI:
		return api.Client
	case *dynamodb.Client:
		return api
	}
	panic(fmt.Sprintf("a Store over %T has no SDK client", st.api))
}

// ops lists the operation names received, in order.
func (m *engineAPI) ops() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.calls))
	for i, c := range m.calls {
		out[i] = c.Op
	}
	return out
}

func (m *engineAPI) reset() {
	m.mu.Lock()
	m.calls = nil
	m.mu.Unlock()
}

func (m *engineAPI) tableName() *string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return aws.String(m.table)
}

// get is the stored item with that key (nil if there is none), read
// consistently.
func (m *engineAPI) get(pk, sk string) Item {
	out, err := m.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: m.tableName(), Key: Item{"PK": str(pk), "SK": str(sk)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		panic(err)
	}
	return out.Item
}

// put stores it as it is.
func (m *engineAPI) put(it Item) {
	if _, err := m.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: m.tableName(), Item: it}); err != nil {
		panic(err)
	}
}

// remove deletes the item with that key.
func (m *engineAPI) remove(pk, sk string) {
	if _, err := m.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: m.tableName(), Key: Item{"PK": str(pk), "SK": str(sk)}}); err != nil {
		panic(err)
	}
}

// items is every stored item, read consistently.
func (m *engineAPI) items() []Item {
	var all []Item
	p := dynamodb.NewScanPaginator(m.raw, &dynamodb.ScanInput{TableName: m.tableName(), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			panic(err)
		}
		all = append(all, page.Items...)
	}
	return all
}

// comeUpSlowly makes table creation and deletion take time, as on DynamoDB:
// after CreateTable, DescribeTable reports the table CREATING once and then
// its index CREATING once; after DeleteTable it reports the table DELETING
// once before the table is gone.
func (m *engineAPI) comeUpSlowly() {
	var creating int
	var deleting *types.TableDescription
	m.answer = func(op string, out any, err error) (any, error) {
		switch out := out.(type) {
		case *dynamodb.CreateTableOutput:
			creating = 2
		case *dynamodb.DeleteTableOutput:
			deleting = out.TableDescription
		case *dynamodb.DescribeTableOutput:
			switch {
			case creating == 2:
				out.Table.TableStatus = types.TableStatusCreating
				creating--
			case creating == 1 && len(out.Table.GlobalSecondaryIndexes) > 0:
				out.Table.GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusCreating
				creating--
			}
		}
		if op == "DescribeTable" && deleting != nil {
			d := *deleting
			d.TableStatus, deleting = types.TableStatusDeleting, nil
			return &dynamodb.DescribeTableOutput{Table: &d}, nil
		}
		return out, err
	}
}

// snapshot is a shallow copy of a request's input as the Store made it,
// before the SDK's own middleware fills in anything (an idempotency token).
func snapshot(in any) any {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return in
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c.Interface()
}
