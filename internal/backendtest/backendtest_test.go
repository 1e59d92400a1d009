package backendtest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestEngineAnswersAndEndpointFollowsTheEnvironment(t *testing.T) {
	t.Setenv("ADJL_TEST_ENDPOINT", "")
	all := All(t)
	if len(all) != 1 || all[0].Name != "embedded" {
		t.Fatalf("without ADJL_TEST_ENDPOINT: %+v", all)
	}
	if _, err := all[0].Client.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("engine: %v", err)
	}
	t.Setenv("ADJL_TEST_ENDPOINT", "http://127.0.0.1:1")
	if all := All(t); len(all) != 2 || all[1].Name != "endpoint" {
		t.Fatalf("with ADJL_TEST_ENDPOINT: %+v", all)
	}
}

func TestEngineURLServesTheProtocol(t *testing.T) {
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(EngineURL(t)), Credentials: aws.AnonymousCredentials{}})
	if _, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}
