package local

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// linkTx is adjl's link transaction: put the edge if absent and bump both
// counters.
func linkTx(from, to string) *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("school"),
			Item:                                map[string]av{"PK": s(from), "SK": s("ENROLL#" + to), "GSI1PK": s(to), "GSI1SK": s(from)},
			ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Update: &types.Update{TableName: aws.String("school"), Key: map[string]av{"PK": s(from), "SK": s(from)},
			UpdateExpression: aws.String("ADD courseCount :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}}},
		{Update: &types.Update{TableName: aws.String("school"), Key: map[string]av{"PK": s(to), "SK": s(to)},
			UpdateExpression: aws.String("ADD studentCount :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}}},
	}}
}

func TestTransactWriteCancellationReasons(t *testing.T) {
	c := memGraphClient(t)
	if _, err := c.TransactWriteItems(ctx, linkTx("STU#a", "CRS#m")); err != nil {
		t.Fatal(err)
	}
	_, err := c.TransactWriteItems(ctx, linkTx("STU#a", "CRS#m"))
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("repeat link: %v", err)
	}
	if len(tce.CancellationReasons) != 3 {
		t.Fatalf("reasons: %#v", tce.CancellationReasons)
	}
	codes := aws.ToString(tce.CancellationReasons[0].Code) + " " + aws.ToString(tce.CancellationReasons[1].Code) + " " + aws.ToString(tce.CancellationReasons[2].Code)
	if codes != "ConditionalCheckFailed None None" {
		t.Fatalf("codes: %s", codes)
	}
	if str(tce.CancellationReasons[0].Item, "GSI1PK") != "CRS#m" {
		t.Fatalf("ALL_OLD item: %#v", tce.CancellationReasons[0].Item)
	}
	want := "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None, None]"
	if aws.ToString(tce.Message) != want {
		t.Fatalf("message: %q", aws.ToString(tce.Message))
	}
	// Nothing of the cancelled transaction was applied.
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("STU#a"), "SK": s("STU#a")}})
	if err != nil || num(got.Item, "courseCount") != "1" {
		t.Fatalf("counter after cancelled tx: %v %#v", err, got.Item)
	}
}

func TestTransactWriteValidation(t *testing.T) {
	c := memGraphClient(t)
	key := map[string]av{"PK": s("A"), "SK": s("A")}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("school"), Item: key}},
		{Delete: &types.Delete{TableName: aws.String("school"), Key: key}},
	}})
	if apiCode(err) != "ValidationException" || apiMessage(err) != "Transaction request cannot include multiple operations on one item" {
		t.Fatalf("two actions on one item: %v", err)
	}
	var many []types.TransactWriteItem
	for i := 0; i < 101; i++ {
		many = append(many, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("school"),
			Item: map[string]av{"PK": s(fmt.Sprint(i)), "SK": s("x")}}})
	}
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("101 actions: %v", err)
	}
}

func TestTransactWriteIdempotency(t *testing.T) {
	c := memGraphClient(t)
	in := linkTx("STU#a", "CRS#m")
	in.ClientRequestToken = aws.String("tok-1")
	for i := 0; i < 2; i++ {
		if _, err := c.TransactWriteItems(ctx, in); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("CRS#m"), "SK": s("CRS#m")}})
	if err != nil || num(got.Item, "studentCount") != "1" {
		t.Fatalf("replayed token applied twice: %v %#v", err, got.Item)
	}
	other := linkTx("STU#b", "CRS#m")
	other.ClientRequestToken = aws.String("tok-1")
	_, err = c.TransactWriteItems(ctx, other)
	var ipm *types.IdempotentParameterMismatchException
	if !errors.As(err, &ipm) {
		t.Fatalf("token reuse with other parameters: %v", err)
	}
}

func TestTransactGetItems(t *testing.T) {
	c := memGraphClient(t)
	if _, err := c.TransactWriteItems(ctx, linkTx("STU#a", "CRS#m")); err != nil {
		t.Fatal(err)
	}
	out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("school"), Key: map[string]av{"PK": s("STU#a"), "SK": s("STU#a")}}},
		{Get: &types.Get{TableName: aws.String("school"), Key: map[string]av{"PK": s("nope"), "SK": s("nope")}}},
		{Get: &types.Get{TableName: aws.String("school"), Key: map[string]av{"PK": s("CRS#m"), "SK": s("CRS#m")}, ProjectionExpression: aws.String("studentCount")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 3 || num(out.Responses[0].Item, "courseCount") != "1" || out.Responses[1].Item != nil ||
		len(out.Responses[2].Item) != 1 || num(out.Responses[2].Item, "studentCount") != "1" {
		t.Fatalf("responses: %#v", out.Responses)
	}
}

func TestIdempotencyTokenExpires(t *testing.T) {
	e := openMem(t)
	c := clientFor(e)
	createGraphTable(t, c, "school")
	now := time.Now()
	e.now = func() time.Time { return now }
	in := linkTx("STU#a", "CRS#m")
	in.ClientRequestToken = aws.String("tok")
	if _, err := c.TransactWriteItems(ctx, in); err != nil {
		t.Fatal(err)
	}
	// Eleven minutes later the token is forgotten: the same request is new and
	// its condition now fails.
	now = now.Add(11 * time.Minute)
	e.sweep()
	_, err := c.TransactWriteItems(ctx, in)
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("request after the window: %v", err)
	}
}

// A transaction action's member paths are the ones fmt formatted before
// they were concatenated: transactItems.<i+1>.member.<kind, first letter
// lowered>.<name>, for every kind, index and member named in messages.
func TestTxWriteMemberPathsMatchTheirFormat(t *testing.T) {
	names := []string{"tableName", "item", "key", "updateExpression", "conditionExpression", "returnValuesOnConditionCheckFailure", ""}
	for _, kind := range []string{"ConditionCheck", "Put", "Delete", "Update"} {
		for _, i := range []int{0, 1, 8, 9, 10, 98, 99, 100, 1 << 20} {
			w := txWrite{kind: kind, i: i}
			for _, name := range names {
				want := fmt.Sprintf("transactItems.%d.member.%s%s.%s", i+1, strings.ToLower(kind[:1]), kind[1:], name)
				if got := w.member(name); got != want {
					t.Errorf("%s action %d member %q: got %q, want %q", kind, i, name, got, want)
				}
			}
		}
	}
	// The paths as messages show them.
	for kind, want := range map[string]string{
		"ConditionCheck": "transactItems.3.member.conditionCheck.key",
		"Put":            "transactItems.3.member.put.key",
		"Delete":         "transactItems.3.member.delete.key",
		"Update":         "transactItems.3.member.update.key",
	} {
		if got := (txWrite{kind: kind, i: 2}).member("key"); got != want {
			t.Errorf("%s: got %q, want %q", kind, got, want)
		}
	}
}
