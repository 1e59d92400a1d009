package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/internal/plainjson"
	"github.com/adjl/adjl/ops"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestWireShapeGolden(t *testing.T) {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String("school"),
			Item: map[string]types.AttributeValue{
				"PK": s("STU#a91"), "SK": s("ENROLL#CRS#math204"), "credits": n("6"),
				"ok":    &types.AttributeValueMemberBOOL{Value: true},
				"none":  &types.AttributeValueMemberNULL{Value: true},
				"tags":  &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
				"bytes": &types.AttributeValueMemberB{Value: []byte("hi")},
				"list":  &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("1")}},
				"map":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("<v>")}},
			},
			ConditionExpression:      aws.String("attribute_not_exists (#0)"),
			ExpressionAttributeNames: map[string]string{"#0": "PK"},
		}},
		{Update: &types.Update{
			TableName: aws.String("school"), Key: map[string]types.AttributeValue{"PK": s("STU#a91"), "SK": s("STU#a91")},
			UpdateExpression: aws.String("ADD #0 :0"), ExpressionAttributeNames: map[string]string{"#0": "courseCount"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":0": n("1")},
		}},
	}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	var buf bytes.Buffer
	e := &explainer{w: &buf}
	e.explain(ops.Request{Operation: "TransactWriteItems", Input: in})
	golden(t, "explain_transact.txt", buf.String())
}

func TestWireValueTimestampsAndZeroes(t *testing.T) {
	d := &types.TableDescription{
		TableName:        aws.String("school"),
		CreationDateTime: aws.Time(time.Unix(1700000000, 500*int64(time.Millisecond))),
		ItemCount:        aws.Int64(0),
	}
	v, _ := wireValue(reflect.ValueOf(d))
	b, _ := plainjson.Marshal(v)
	want := `{"CreationDateTime":1700000000.5,"ItemCount":0,"TableName":"school"}`
	// Field order follows the SDK struct; compare as sets of fields.
	var got, exp map[string]any
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(want), &exp)
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestExplainSendsNothing runs data commands with --explain against an API
// that fails every call: each prints requests and the aws CLI line.
func TestExplainSendsNothing(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	for _, c := range []struct {
		args []string
		op   string
	}{
		{[]string{"enroll", "STU#a91", "CRS#math204", "--set", "grade=A"}, "transact-write-items"},
		{[]string{"enrolled", "a91", "math204"}, "get-item"},
		{[]string{"members", "CRS#math204", "--limit", "10"}, "query"},
		{[]string{"courses", "STU#a91", "--consistent"}, "query"},
		{[]string{"get", "STU#a91"}, "get-item"},
		{[]string{"put", "student", "a91", "--set", "name=Ana"}, "update-item"},
		{[]string{"table", "create"}, "create-table"},
		{[]string{"table", "describe"}, "describe-table"},
	} {
		api := newFailingAPI(errors.New("sent"))
		args := append([]string{"--schema", school, "--explain"}, c.args...)
		r := adjl(t, runOpts{api: api}, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, r.code, r.err)
			continue
		}
		if len(api.ops) > 0 {
			t.Errorf("%v: requests were sent: %v", c.args, api.ops)
		}
		// The embedded engine has no URL: the lines name a placeholder the
		// aws CLI refuses, never AWS or whatever listens on local serve's
		// default address, and a comment says to start it.
		flags := " --endpoint-url http://" + serveAddrPlaceholder + " --region us-east-1 --cli-input-json '"
		if c.op == "query" {
			flags = " --no-paginate" + flags
		}
		line := ""
		for _, l := range strings.Split(r.out, "\n") {
			if strings.HasPrefix(l, "aws dynamodb "+c.op+flags) {
				line = l
			}
		}
		if line == "" {
			t.Errorf("%v: no aws dynamodb %s%s line in:\n%s", c.args, c.op, flags, r.out)
			continue
		}
		if !strings.Contains(r.out, "\n# the aws CLI lines need a server: no adjl local serve holds the data file; run `adjl local serve --data ") {
			t.Errorf("%v: no note that the lines need adjl local serve:\n%s", c.args, r.out)
		}
		js := strings.TrimSuffix(strings.SplitN(line, " --cli-input-json '", 2)[1], "'")
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Errorf("%v: --cli-input-json is not JSON: %v\n%s", c.args, err, js)
		}
		if m["TableName"] != nil && m["TableName"] != "school" {
			t.Errorf("%v: TableName %v", c.args, m["TableName"])
		}
		if strings.Contains(r.out, "\"Value\"") {
			t.Errorf("%v: SDK member structs leaked instead of wire AttributeValues:\n%s", c.args, r.out)
		}
	}
}

func TestExplainKeysOnTheWire(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{api: newFailingAPI(errors.New("sent"))}, "--schema", example(t, "school.yaml"), "--explain", "enrolled", "a91", "math204")
	if !strings.Contains(r.out, `"PK": {`) && !strings.Contains(r.out, `"PK":{`) {
		t.Fatalf("no PK key in:\n%s", r.out)
	}
	for _, want := range []string{`"S": "STU#a91"`, `"S": "ENROLL#CRS#math204"`, `"TableName": "school"`} {
		if !strings.Contains(r.out, want) {
			t.Errorf("explain output lacks %s:\n%s", want, r.out)
		}
	}
}

func TestKebabAndQuote(t *testing.T) {
	for in, want := range map[string]string{
		"TransactWriteItems": "transact-write-items", "GetItem": "get-item", "Query": "query", "CreateTable": "create-table",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]string{
		"STU#a91": "STU#a91", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", `{"a":1}`: `'{"a":1}'`, "#x": "'#x'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestExplainAWSCLILineGoesWhereAdjlSends: the printed aws CLI line reaches
// the server adjl would reach, with the region and profile adjl would use:
// the adjl local serve a local command talks to, always a region with a
// server's URL (the environment's, else the fallback adjl gives it), and
// --profile; a Query line returns one page, as adjl's request does.
func TestExplainAWSCLILineGoesWhereAdjlSends(t *testing.T) {
	school := example(t, "school.yaml")
	awsLine := func(r result) string {
		for _, line := range strings.Split(r.out, "\n") {
			if strings.HasPrefix(line, "aws dynamodb get-item ") {
				return strings.SplitN(line, " --cli-input-json", 2)[0]
			}
		}
		t.Fatalf("no aws line: exit %d\n%s%s", r.code, r.out, r.err)
		return ""
	}
	isolate(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		env  string // AWS_REGION
		want string
	}{
		{[]string{"--endpoint", "http://127.0.0.1:1"}, "", "aws dynamodb get-item --endpoint-url http://127.0.0.1:1 --region us-east-1"},
		{[]string{"--endpoint", "http://127.0.0.1:1"}, "eu-west-1", "aws dynamodb get-item --endpoint-url http://127.0.0.1:1 --region eu-west-1"},
		{[]string{"--endpoint", "http://127.0.0.1:1", "--region", "eu-west-2"}, "", "aws dynamodb get-item --endpoint-url http://127.0.0.1:1 --region eu-west-2"},
		{[]string{"--endpoint", "aws", "--profile", "prod", "--region", "eu-west-1"}, "", "aws dynamodb get-item --region eu-west-1 --profile prod"},
		{[]string{"--endpoint", "http://127.0.0.1:1", "--profile", "dev"}, "", "aws dynamodb get-item --endpoint-url http://127.0.0.1:1 --region us-east-1 --profile dev"},
	} {
		t.Setenv("AWS_REGION", tc.env)
		r := adjl(t, runOpts{dir: dir}, append(append([]string{"--schema", school, "--explain"}, tc.args...), "get", "STU#a91")...)
		if got := awsLine(r); got != tc.want {
			t.Errorf("%v (AWS_REGION=%q):\n got %s\nwant %s", tc.args, tc.env, got, tc.want)
		}
	}
	t.Setenv("AWS_REGION", "")
	// A profile's region comes from the config file the SDK reads, the one
	// AWS_CONFIG_FILE names included.
	t.Setenv("AWS_CONFIG_FILE", writeFile(t, filepath.Join(dir, "aws-config"), "[profile eu]\nregion = ap-south-1\n"))
	r := adjl(t, runOpts{dir: dir}, "--schema", school, "--explain", "--endpoint", "http://127.0.0.1:1", "--profile", "eu", "get", "STU#a91")
	if got, want := awsLine(r), "aws dynamodb get-item --endpoint-url http://127.0.0.1:1 --region ap-south-1 --profile eu"; got != want {
		t.Errorf("--profile eu with AWS_CONFIG_FILE:\n got %s\nwant %s", got, want)
	}
	t.Setenv("AWS_CONFIG_FILE", "")
	data := filepath.Join(dir, "data.db")
	url := serveInBackground(t, data)
	r = adjl(t, runOpts{dir: dir}, "--schema", school, "--data", data, "--explain", "get", "STU#a91")
	if got, want := awsLine(r), "aws dynamodb get-item --endpoint-url "+url+" --region us-east-1"; got != want {
		t.Errorf("served data file:\n got %s\nwant %s", got, want)
	}
	if strings.Contains(r.out, "# the aws CLI lines need a server") {
		t.Errorf("a note to start a server while one serves the data file:\n%s", r.out)
	}
	r = adjl(t, runOpts{dir: dir}, "--schema", school, "--data", data, "--explain", "members", "math204", "--limit", "2")
	if want := "aws dynamodb query --no-paginate --endpoint-url " + url + " --region us-east-1 --cli-input-json '"; !strings.Contains(r.out, "\n"+want) {
		t.Errorf("query line lacks %q:\n%s", want, r.out)
	}
}

// TestExplainQueryLineReturnsAdjlsPage: the aws CLI line of a list page,
// pasted in a shell with no AWS region configured, returns the page adjl's
// Query returns (Limit items and a LastEvaluatedKey), not every page.
func TestExplainQueryLineReturnsAdjlsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the AWS CLI takes a second per command")
	}
	awsCLI := awsCLIOrSkip(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	school := example(t, "school.yaml")
	dir := t.TempDir()
	data := filepath.Join(dir, "data.db")
	serveInBackground(t, data)
	run := func(args ...string) result {
		t.Helper()
		r := adjl(t, runOpts{dir: dir}, append([]string{"--schema", school, "--data", data}, args...)...)
		if r.code != 0 {
			t.Fatalf("adjl %v: exit %d\n%s", args, r.code, r.err)
		}
		return r
	}
	run("table", "create", "--wait")
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		run("enroll", s, "math204")
	}
	line := ""
	for _, l := range strings.Split(run("--explain", "members", "math204", "--limit", "2").out, "\n") {
		if strings.HasPrefix(l, "aws dynamodb query ") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("no aws dynamodb query line")
	}
	c := exec.Command("sh", "-c", line)
	c.Env = awsCLIEnv("AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_PAGER=", "AWS_MAX_ATTEMPTS=1",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"),
		"PATH="+filepath.Dir(awsCLI)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := c.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", line, err, stderr)
	}
	var page struct {
		Items            []map[string]any
		LastEvaluatedKey map[string]any
	}
	if err := json.Unmarshal(out, &page); err != nil {
		t.Fatalf("aws output is not JSON: %v\n%s", err, out)
	}
	if len(page.Items) != 3 || page.LastEvaluatedKey == nil {
		t.Errorf("the aws line returned %d items, LastEvaluatedKey %v; want adjl's page: 3 (Limit 2+1) and a LastEvaluatedKey", len(page.Items), page.LastEvaluatedKey)
	}
}
