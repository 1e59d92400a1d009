package e2e

import (
	"context"
	"encoding/json"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/rogpeppe/go-internal/testscript"
)

// createTable sends the CreateTable request in FILE (DynamoDB's JSON shape,
// as `adjl schema export --format create-table-json` writes it) to the
// script's backend, decoded as any SDK would. $VARIABLES in the file are
// expanded first, so a script can carry a table named ${TABLE}:
//
//	create-table table.json
func createTable(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: create-table FILE")
	}
	var in dynamodb.CreateTableInput
	ts.Check(json.Unmarshal([]byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), &in))
	api, closeAPI := openBackend(ts, b)
	defer closeAPI()
	_, err := api.CreateTable(context.Background(), &in)
	ts.Check(err)
}
