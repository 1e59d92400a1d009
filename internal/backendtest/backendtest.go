// Package backendtest gives tests the DynamoDB backends they run on: the
// embedded engine in memory, reached in process through the SDK's own
// client, and the reference server ADJL_TEST_ENDPOINT names (moto in CI).
package backendtest

import (
	"net/http/httptest"
	"os"
	"testing"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Backend is one DynamoDB a test runs on.
type Backend struct {
	Name   string // "embedded" or "endpoint"
	Client *dynamodb.Client
}

// T is what Engine needs of a *testing.T, *testing.B, *testing.F or a
// property-test runner's T.
type T interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
}

// Engine is a client of a new in-memory embedded engine, closed when t
// ends; opts change the client's options.
func Engine(t T, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://local.adjl"),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: e.HTTPClient(),
	}, opts...)
}

// EngineURL serves a new in-memory embedded engine on a loopback port until
// t ends, and returns its URL.
func EngineURL(t T) string {
	t.Helper()
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Endpoint is a client of the server ADJL_TEST_ENDPOINT names, or nil when
// it names none.
func Endpoint() *dynamodb.Client {
	ep := os.Getenv("ADJL_TEST_ENDPOINT")
	if ep == "" {
		return nil
	}
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(ep),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// All is the embedded engine and, when ADJL_TEST_ENDPOINT names one, that
// server.
func All(t testing.TB) []Backend {
	t.Helper()
	out := []Backend{{"embedded", Engine(t)}}
	if c := Endpoint(); c != nil {
		out = append(out, Backend{"endpoint", c})
	}
	return out
}
