package e2e

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// rawItem prints one stored item exactly as the table holds it, one
// "name=value" line per attribute in name order, bypassing adjl's rendering,
// so scripts can assert the key layout itself (the key attributes are the
// schema's, whatever they are named):
//
//	item PK SK
//
// With ! it asserts the item does not exist. The table is read from ./adjl.yaml
// unless ADJL_SCHEMA names another schema file.
func rawItem(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if len(args) != 2 {
		ts.Fatalf("usage: item PK SK")
	}
	s := scriptSchema(ts)
	api, closeAPI := openBackend(ts, b)
	defer closeAPI()
	out, err := api.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(s.Table.Name),
		Key:            map[string]types.AttributeValue{s.Layout().PK: &types.AttributeValueMemberS{Value: args[0]}, s.Layout().SK: &types.AttributeValueMemberS{Value: args[1]}},
		ConsistentRead: aws.Bool(true),
	})
	ts.Check(err)
	switch {
	case neg && out.Item != nil:
		ts.Fatalf("item %s %s exists", args[0], args[1])
	case neg:
		return
	case out.Item == nil:
		ts.Fatalf("item %s %s not found", args[0], args[1])
	}
	fmt.Fprintln(ts.Stdout(), formatItem(ts, out.Item, "\n"))
}

// dumpTable prints every item of the script's table, one line per item with
// its attributes in name order, sorted: a fingerprint of the whole table for
// "this command changed nothing" checks. It reads with a Scan, which adjl
// itself never sends. -state leaves out the attributes that record how
// often each counter changed (schema.ChangesPrefix): a counter's history,
// which a table rebuilt from an export does not repeat.
//
//	dump-table [-state]
func dumpTable(ts *testscript.TestScript, neg bool, args []string, b backend) {
	state := len(args) == 1 && args[0] == "-state"
	if neg || len(args) != 0 && !state {
		ts.Fatalf("usage: dump-table [-state]")
	}
	s := scriptSchema(ts)
	api, closeAPI := openBackend(ts, b)
	defer closeAPI()
	scan, ok := api.(interface {
		Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	})
	if !ok {
		ts.Fatalf("dump-table: the client cannot Scan")
	}
	var lines []string
	var start map[string]types.AttributeValue
	for {
		out, err := scan.Scan(context.Background(), &dynamodb.ScanInput{
			TableName: aws.String(s.Table.Name), ExclusiveStartKey: start, ConsistentRead: aws.Bool(true),
		})
		ts.Check(err)
		for _, it := range out.Items {
			if state {
				maps.DeleteFunc(it, func(name string, _ types.AttributeValue) bool {
					return strings.HasPrefix(name, schema.ChangesPrefix)
				})
			}
			lines = append(lines, formatItem(ts, it, " "))
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	sort.Strings(lines)
	w := ts.Stdout()
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// scriptSchema loads the schema the script's adjl commands use:
// $ADJL_SCHEMA or ./adjl.yaml.
func scriptSchema(ts *testscript.TestScript) *schema.Schema {
	file := ts.Getenv("ADJL_SCHEMA")
	if file == "" {
		file = "adjl.yaml"
	}
	s, err := schema.Load(ts.MkAbs(file))
	ts.Check(err)
	return s
}

// formatItem renders an item as name=value pairs in name order, joined by sep.
func formatItem(ts *testscript.TestScript, it map[string]types.AttributeValue, sep string) string {
	var item map[string]any
	ts.Check(attributevalue.UnmarshalMap(it, &item))
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%v", k, item[k])
	}
	return strings.Join(parts, sep)
}

// setAttr writes one attribute of a stored item directly, bypassing adjl,
// to make the drift `adjl counters verify` must find, or an item adjl's
// schema does not describe (-s writes a string instead of a number):
//
//	set-attr [-s] PK SK NAME VALUE
func setAttr(ts *testscript.TestScript, neg bool, args []string, b backend) {
	var v types.AttributeValue
	if len(args) == 5 && args[0] == "-s" {
		args = args[1:]
		v = &types.AttributeValueMemberS{Value: args[3]}
	} else if len(args) == 4 {
		v = &types.AttributeValueMemberN{Value: args[3]}
	}
	if neg || v == nil {
		ts.Fatalf("usage: set-attr [-s] PK SK NAME VALUE")
	}
	s := scriptSchema(ts)
	api, closeAPI := openBackend(ts, b)
	defer closeAPI()
	_, err := api.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table.Name),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: args[0]}, "SK": &types.AttributeValueMemberS{Value: args[1]}},
		UpdateExpression:          aws.String("SET #n = :v"),
		ExpressionAttributeNames:  map[string]string{"#n": args[2]},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": v},
	})
	ts.Check(err)
}
