package ops

import (
	"testing"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// engineStore is a Store on a fresh in-memory embedded engine with sc's
// table created; api, when given, wraps the engine's client.
func engineStore(t testing.TB, sc *schema.Schema, wrap func(API) API) (*Store, API) {
	t.Helper()
	eng, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	var api API = dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://engine.invalid"),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: eng.HTTPClient(),
	})
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
