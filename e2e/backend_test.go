package e2e

import (
	"path/filepath"

	"github.com/adjl/adjl/local"
	"github.com/adjl/adjl/ops"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/rogpeppe/go-internal/testscript"
)

// localDataFile is where `adjl` keeps the embedded engine's data when run in
// dir with no flags: the default backend's default file.
func localDataFile(dir string) string {
	return filepath.Join(dir, ".adjl", "data.db")
}

// openBackend gives an in-process command of the suite a DynamoDB client on
// the same data the script's `adjl` commands see: the script's default data
// file for the embedded engine, the server URL otherwise. A data file that
// does not open fails the script.
func openBackend(ts *testscript.TestScript, b backend) (api ops.API, closeAPI func()) {
	if b.endpoint != "" {
		return newClient(b.endpoint, nil), func() {}
	}
	eng, err := local.Open(localDataFile(ts.Getenv("WORK")), local.Options{})
	ts.Check(err)
	return newClient("http://local.adjl", eng.HTTPClient()), func() { _ = eng.Close() }
}

// newClient is a DynamoDB client with dummy credentials on endpoint; httpc,
// when set, carries the requests (the embedded engine's in-process client).
func newClient(endpoint string, httpc aws.HTTPClient) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   httpc,
	})
}
