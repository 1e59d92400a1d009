package local

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestLocalSecondaryIndex(t *testing.T) {
	c := clientFor(openMem(t))
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("scores"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			attrDef("PK", types.ScalarAttributeTypeS), attrDef("SK", types.ScalarAttributeTypeS), attrDef("score", types.ScalarAttributeTypeN),
		},
		KeySchema: keySchema("PK", "SK"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String("ByScore"),
			KeySchema:  keySchema("PK", "score"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range []string{"30", "-5", "100", "7.5"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("scores"),
			Item: map[string]av{"PK": s("p"), "SK": s(fmt.Sprint("g", i)), "score": n(sc), "note": s("n" + sc)}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("scores"), IndexName: aws.String("ByScore"),
		ConsistentRead: aws.Bool(true), ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: aws.String("PK = :p AND score > :min"), ProjectionExpression: aws.String("score, note"),
		ExpressionAttributeValues: map[string]av{":p": s("p"), ":min": n("0")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, num(it, "score")+"/"+str(it, "note"))
	}
	// Numeric order, descending; the unprojected "note" is fetched from the table (LSI).
	if fmt.Sprint(got) != "[100/n100 30/n30 7.5/n7.5]" {
		t.Fatalf("LSI query: %v", got)
	}
	keys, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("scores"), IndexName: aws.String("ByScore"), Limit: aws.Int32(1),
		KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s("p")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys.Items[0]) != 3 || num(keys.Items[0], "score") != "-5" || len(keys.LastEvaluatedKey) != 3 {
		t.Fatalf("KEYS_ONLY item %#v, LEK %#v", keys.Items[0], keys.LastEvaluatedKey)
	}
}
