package local

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestPutGetUpdateDelete(t *testing.T) {
	for _, mode := range []string{"in-process", "socket"} {
		t.Run(mode, func(t *testing.T) {
			e := openMem(t)
			c := clientFor(e)
			if mode == "socket" {
				c = serverClient(t, e)
			}
			createGraphTable(t, c, "school")
			key := map[string]av{"PK": s("STU#a91"), "SK": s("STU#a91")}
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
				Item: map[string]av{"PK": s("STU#a91"), "SK": s("STU#a91"), "name": s("Ana"), "n": n("1")}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			if str(got.Item, "name") != "Ana" || num(got.Item, "n") != "1" {
				t.Fatalf("get: %#v", got.Item)
			}
			up, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
				UpdateExpression:          aws.String("SET #nm = :v ADD n :one"),
				ExpressionAttributeNames:  map[string]string{"#nm": "name"},
				ExpressionAttributeValues: map[string]av{":v": s("Bea"), ":one": n("1")},
				ReturnValues:              types.ReturnValueAllNew})
			if err != nil {
				t.Fatal(err)
			}
			if str(up.Attributes, "name") != "Bea" || num(up.Attributes, "n") != "2" || str(up.Attributes, "PK") != "STU#a91" {
				t.Fatalf("update ALL_NEW: %#v", up.Attributes)
			}
			del, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("school"), Key: key, ReturnValues: types.ReturnValueAllOld})
			if err != nil {
				t.Fatal(err)
			}
			if str(del.Attributes, "name") != "Bea" {
				t.Fatalf("delete ALL_OLD: %#v", del.Attributes)
			}
			got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: key})
			if err != nil || got.Item != nil {
				t.Fatalf("get after delete: %v %#v", err, got.Item)
			}
		})
	}
}

func TestConditionalPut(t *testing.T) {
	c := memGraphClient(t)
	item := map[string]av{"PK": s("A"), "SK": s("B"), "v": n("1")}
	put := func(rv types.ReturnValuesOnConditionCheckFailure) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: item,
			ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
			ReturnValuesOnConditionCheckFailure: rv})
		return err
	}
	if err := put(""); err != nil {
		t.Fatal(err)
	}
	err := put("")
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || apiMessage(err) != "The conditional request failed" || ccf.Item != nil {
		t.Fatalf("second put: %v", err)
	}
	err = put(types.ReturnValuesOnConditionCheckFailureAllOld)
	if !errors.As(err, &ccf) || num(ccf.Item, "v") != "1" {
		t.Fatalf("ALL_OLD on failure: %v %#v", err, ccf)
	}
}

func TestKeyValidation(t *testing.T) {
	c := memGraphClient(t)
	cases := []struct {
		item map[string]av
		msg  string
	}{
		{map[string]av{"PK": n("1"), "SK": s("x")}, "One or more parameter values were invalid: Type mismatch for key PK expected: S actual: N"},
		{map[string]av{"PK": s(""), "SK": s("x")}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: PK"},
		{map[string]av{"SK": s("x")}, "One or more parameter values were invalid: Missing the key PK in the item"},
		{map[string]av{"PK": s(strings.Repeat("a", 2049)), "SK": s("x")}, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{map[string]av{"PK": s("a"), "SK": s(strings.Repeat("a", 1025))}, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		{map[string]av{"PK": s("a"), "SK": s("b"), "GSI1PK": n("3")}, "One or more parameter values were invalid: Type mismatch for Index Key GSI1PK Expected: S Actual: N IndexName: GSI1"},
		{map[string]av{"PK": s("a"), "SK": s("b"), "big": s(strings.Repeat("x", 400*1024))}, "Item size has exceeded the maximum allowed size"},
	}
	for _, tc := range cases {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: tc.item})
		if apiCode(err) != "ValidationException" || apiMessage(err) != tc.msg {
			t.Errorf("put %v: got %v, want %q", tc.item, err, tc.msg)
		}
	}
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("a")}})
	if apiMessage(err) != "The provided key element does not match the schema" {
		t.Errorf("get with partial key: %v", err)
	}
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: map[string]av{"PK": s("a")}})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("get from missing table: %v", err)
	}
}

func TestUpdateItemReturnValues(t *testing.T) {
	c := memGraphClient(t)
	key := map[string]av{"PK": s("A"), "SK": s("A")}
	upd := func(expr string, rv types.ReturnValue, vals map[string]av) map[string]av {
		t.Helper()
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals, ReturnValues: rv})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return out.Attributes
	}
	// Creates the item from its key.
	if got := upd("SET a = :a, b = :b", types.ReturnValueUpdatedNew, map[string]av{":a": n("1"), ":b": s("x")}); num(got, "a") != "1" || str(got, "b") != "x" || got["PK"] != nil {
		t.Fatalf("UPDATED_NEW: %#v", got)
	}
	if got := upd("SET a = a + :one", types.ReturnValueUpdatedOld, map[string]av{":one": n("1")}); num(got, "a") != "1" || len(got) != 1 {
		t.Fatalf("UPDATED_OLD: %#v", got)
	}
	if got := upd("REMOVE b", types.ReturnValueAllOld, nil); str(got, "b") != "x" || num(got, "a") != "2" {
		t.Fatalf("ALL_OLD: %#v", got)
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
		UpdateExpression: aws.String("SET PK = :v"), ExpressionAttributeValues: map[string]av{":v": s("z")}})
	if apiMessage(err) != "One or more parameter values were invalid: Cannot update attribute PK. This attribute is part of the key" {
		t.Fatalf("update key: %v", err)
	}
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
		UpdateExpression: aws.String("SET a = :v"), ExpressionAttributeValues: map[string]av{":v": s("z"), ":unused": s("u")}})
	if apiCode(err) != "ValidationException" || !strings.Contains(apiMessage(err), "unused") {
		t.Fatalf("unused value: %v", err)
	}
}

func TestUnknownOperationAndBadJSON(t *testing.T) {
	e := openMem(t)
	hc := e.HTTPClient()
	do := func(target, body string) (int, string) {
		req, _ := newRequest(target, body)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b := new(strings.Builder)
		_, _ = ioCopy(b, resp.Body)
		return resp.StatusCode, b.String()
	}
	code, body := do("DynamoDB_20120810.Frobnicate", "{}")
	if code != 400 || !strings.Contains(body, "#UnknownOperationException") {
		t.Fatalf("unknown op: %d %s", code, body)
	}
	code, body = do("DynamoDB_20120810.ListTables", "{not json")
	if code != 400 || !strings.Contains(body, "#SerializationException") {
		t.Fatalf("bad json: %d %s", code, body)
	}
}

func TestUpdatedNewReturnsNestedFragment(t *testing.T) {
	c := memGraphClient(t)
	key := map[string]av{"PK": s("A"), "SK": s("A")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: map[string]av{"PK": s("A"), "SK": s("A"),
		"prefs": &types.AttributeValueMemberM{Value: map[string]av{"theme": s("dark"), "lang": s("en")}}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
		UpdateExpression: aws.String("SET prefs.lang = :l"), ExpressionAttributeValues: map[string]av{":l": s("pt")},
		ReturnValues: types.ReturnValueUpdatedNew})
	if err != nil {
		t.Fatal(err)
	}
	prefs, ok := out.Attributes["prefs"].(*types.AttributeValueMemberM)
	if !ok || len(prefs.Value) != 1 || str(prefs.Value, "lang") != "pt" {
		t.Fatalf("UPDATED_NEW of a nested SET: %#v", out.Attributes)
	}
	out, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("school"), Key: key,
		UpdateExpression: aws.String("REMOVE prefs.theme"), ReturnValues: types.ReturnValueUpdatedNew})
	if err != nil || out.Attributes != nil {
		t.Fatalf("UPDATED_NEW of a REMOVE: %v %#v", err, out.Attributes)
	}
}
