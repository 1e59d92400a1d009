package cmd

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServePartiQLWithAWSCLI drives `adjl local serve` with the real AWS
// CLI's PartiQL commands (execute-statement, batch-execute-statement,
// execute-transaction), as a user would. It is skipped where the CLI is not
// installed, and with -short.
func TestServePartiQLWithAWSCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the AWS CLI takes a second per command")
	}
	awsCLI := awsCLIOrSkip(t)
	t.Chdir(t.TempDir())
	srv := runServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true}, nil)
	addr := srv.addr
	home := t.TempDir()
	env := awsCLIEnv("AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_SESSION_TOKEN=",
		"AWS_DEFAULT_REGION=us-east-1", "AWS_REGION=us-east-1", "AWS_PAGER=", "AWS_MAX_ATTEMPTS=1",
		"AWS_CONFIG_FILE="+filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(home, "credentials"))
	// run runs one aws dynamodb command and returns its stdout, stderr and
	// whether it succeeded.
	run := func(args ...string) (string, string, bool) {
		t.Helper()
		c := exec.Command(awsCLI, append([]string{"dynamodb", "--endpoint-url", "http://" + addr, "--output", "json"}, args...)...)
		c.Env = env
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return stdout.String(), stderr.String(), err == nil
	}
	ok := func(args ...string) map[string]any {
		t.Helper()
		stdout, stderr, ok := run(args...)
		if !ok {
			t.Fatalf("aws dynamodb %s: %s", args[0], stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("aws dynamodb %s printed %q: %v", args[0], stdout, err)
		}
		return v
	}
	ok("create-table", "--table-name", "music", "--billing-mode", "PAY_PER_REQUEST",
		"--attribute-definitions", "AttributeName=Artist,AttributeType=S", "AttributeName=SongTitle,AttributeType=S",
		"--key-schema", "AttributeName=Artist,KeyType=HASH", "AttributeName=SongTitle,KeyType=RANGE")

	// The statements of DynamoDB's PartiQL documentation.
	ok("execute-statement", "--statement", `INSERT INTO "music" value {'Artist' : 'Acme Band','SongTitle' : 'PartiQL Rocks'}`)
	ok("execute-statement", "--statement", `INSERT INTO "music" VALUE {'Artist': ?, 'SongTitle': ?, 'Plays': 0}`,
		"--parameters", `[{"S":"Acme Band"},{"S":"Best Song"}]`)
	ok("execute-statement", "--statement", `UPDATE "music" SET AwardsWon=1 SET AwardDetail={'Grammys':[2020, 2018]} `+
		`WHERE Artist='Acme Band' AND SongTitle='PartiQL Rocks'`)
	got := ok("execute-statement", "--statement", `SELECT SongTitle, AwardDetail.Grammys[0] FROM "music" WHERE Artist='Acme Band' ORDER BY SongTitle DESC`)
	if b, _ := json.Marshal(got["Items"]); string(b) != `[{"Grammys[0]":{"N":"2020"},"SongTitle":{"S":"PartiQL Rocks"}},{"SongTitle":{"S":"Best Song"}}]` {
		t.Errorf("SELECT printed %s", b)
	}
	if _, stderr, ok := run("execute-statement", "--statement", `INSERT INTO "music" VALUE {'Artist': 'Acme Band', 'SongTitle': 'Best Song'}`); ok ||
		!strings.Contains(stderr, "DuplicateItemException") || !strings.Contains(stderr, "Duplicate primary key exists in table") {
		t.Errorf("a duplicate INSERT: ok=%v %s", ok, stderr)
	}

	// Paging: --limit and --next-token.
	page := ok("execute-statement", "--statement", `SELECT * FROM "music" WHERE Artist='Acme Band'`, "--limit", "1")
	token, _ := page["NextToken"].(string)
	if items, _ := page["Items"].([]any); len(items) != 1 || token == "" {
		t.Fatalf("first page of 1: %v", page)
	}
	page = ok("execute-statement", "--statement", `SELECT * FROM "music" WHERE Artist='Acme Band'`, "--limit", "1", "--next-token", token)
	if items, _ := page["Items"].([]any); len(items) != 1 {
		t.Errorf("second page: %v", page)
	}

	batch := ok("batch-execute-statement", "--statements", `[`+
		`{"Statement":"UPDATE music SET Plays = Plays + 1 WHERE Artist='Acme Band' AND SongTitle='Best Song'"},`+
		`{"Statement":"DELETE FROM music WHERE Artist='Nobody' AND SongTitle='x' AND Plays = 1"}]`)
	if b, _ := json.Marshal(batch["Responses"]); !strings.Contains(string(b), `"Code":"ConditionalCheckFailed"`) {
		t.Errorf("batch Responses %s: want the DELETE's ConditionalCheckFailed", b)
	}
	ok("execute-transaction", "--transact-statements", `[`+
		`{"Statement":"EXISTS(SELECT * FROM music WHERE Artist='Acme Band' AND SongTitle='Best Song' AND Plays = 1)"},`+
		`{"Statement":"INSERT INTO music VALUE {'Artist':'Acme Band','SongTitle':'Third'}"}]`)
	reads := ok("execute-transaction", "--transact-statements", `[{"Statement":"SELECT SongTitle FROM music WHERE Artist='Acme Band' AND SongTitle='Third'"}]`)
	if b, _ := json.Marshal(reads["Responses"]); string(b) != `[{"Item":{"SongTitle":{"S":"Third"}}}]` {
		t.Errorf("read transaction Responses %s", b)
	}
	if err := srv.stop(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}
