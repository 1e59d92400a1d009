package cmd

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

const (
	serveKeyID  = "AKIDSERVETEST"
	serveSecret = "serve-secret-9f8e7d6c5b4a"
)

func authEnv() map[string]string {
	return map[string]string{envServeKeyID: serveKeyID, envServeSecret: serveSecret}
}

func TestServeAllowRemoteRequiresAuth(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "local", "serve", "--addr", "0.0.0.0:0", "--in-memory", "--allow-remote")
	if r.code != ExitUsage || !strings.Contains(r.err, "adjl: --allow-remote requires --auth") ||
		!strings.Contains(r.err, "hint: set ADJL_SERVE_ACCESS_KEY_ID and ADJL_SERVE_SECRET_ACCESS_KEY and add --auth") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}

func TestServeAuthNeedsTheKeyPair(t *testing.T) {
	isolate(t)
	t.Setenv(envServeKeyID, "someone")
	r := adjl(t, runOpts{}, "local", "serve", "--addr", "127.0.0.1:0", "--in-memory", "--auth")
	if r.code != ExitUsage || !strings.Contains(r.err, "--auth needs the access key pair requests are signed with: ADJL_SERVE_SECRET_ACCESS_KEY not set") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}

// TestServeAuthVerifiesSignatures: with --auth, the SDK signing with the
// pair is served; another key id, another secret or no signature is
// refused with DynamoDB's error; the banner names the key id, never the
// secret.
func TestServeAuthVerifiesSignatures(t *testing.T) {
	isolate(t)
	addr, out := startServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true, auth: true}, authEnv())
	if !strings.Contains(out.String(), "requests must be signed with the key pair in ADJL_SERVE_ACCESS_KEY_ID and ADJL_SERVE_SECRET_ACCESS_KEY") ||
		strings.Contains(out.String(), serveSecret) || strings.Contains(out.String(), serveKeyID) {
		t.Errorf("banner:\n%s", out)
	}
	client := func(p aws.CredentialsProvider) *dynamodb.Client {
		return dynamodb.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: p, RetryMaxAttempts: 1},
			func(o *dynamodb.Options) { o.BaseEndpoint = aws.String("http://" + addr) })
	}
	if _, err := client(credentials.NewStaticCredentialsProvider(serveKeyID, serveSecret, "")).ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("signed with the pair: %v", err)
	}
	for want, p := range map[string]aws.CredentialsProvider{
		"MissingAuthenticationTokenException": aws.AnonymousCredentials{},
		"UnrecognizedClientException":         credentials.NewStaticCredentialsProvider("AKIDOTHER", serveSecret, ""),
		"InvalidSignatureException":           credentials.NewStaticCredentialsProvider(serveKeyID, "not-the-secret", ""),
	} {
		_, err := client(p).ListTables(context.Background(), &dynamodb.ListTablesInput{})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != want {
			t.Errorf("want %s, got %v", want, err)
		}
	}

	// adjl itself, with the pair or without it.
	schema := example(t, "school.yaml")
	t.Setenv("AWS_ACCESS_KEY_ID", serveKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", serveSecret)
	if r := adjl(t, runOpts{}, "--schema", schema, "--endpoint", "http://"+addr, "table", "create"); r.code != ExitOK {
		t.Fatalf("table create with the pair: exit %d: %s", r.code, r.err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
	r := adjl(t, runOpts{}, "--schema", schema, "--endpoint", "http://"+addr, "put", "student", "a91")
	if r.code != ExitUnreachable || !strings.Contains(r.err, "InvalidSignatureException") {
		t.Errorf("put with another secret: exit %d: %s", r.code, r.err)
	}
}

// TestServeAuthOnADataFile: a command on the data file of a server with
// --auth finds the server's record and signs with ADJL_SERVE_* when its
// environment holds them.
func TestServeAuthOnADataFile(t *testing.T) {
	s := newSession(t, "school.yaml")
	startServe(t, &serveOptions{addr: "127.0.0.1:0", data: s.data, auth: true}, authEnv())
	rec, ok := readServeRecord(s.data)
	if !ok || !rec.Auth {
		t.Fatalf("serve record %+v", rec)
	}
	r := s.run("table", "create")
	if r.code != ExitUnreachable || !strings.Contains(r.err, "MissingAuthenticationTokenException") && !strings.Contains(r.err, "UnrecognizedClientException") {
		t.Errorf("without the pair: exit %d: %s", r.code, r.err)
	}
	t.Setenv(envServeKeyID, serveKeyID)
	t.Setenv(envServeSecret, serveSecret)
	if r := s.run("--verbose", "table", "create"); r.code != ExitOK || !strings.Contains(r.err, "adjl local serve at") {
		t.Errorf("with the pair: exit %d: %s", r.code, r.err)
	}
}

// TestServeAuthWithTheAWSCLI: the AWS CLI signing with the pair lists the
// tables; with another secret, or unsigned, it is refused with DynamoDB's
// errors.
func TestServeAuthWithTheAWSCLI(t *testing.T) {
	awsCLI := awsCLIOrSkip(t)
	addr, _ := startServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true, auth: true}, authEnv())
	run := func(secret string, args ...string) (string, error) {
		cmd := exec.Command(awsCLI, append([]string{"dynamodb", "list-tables", "--endpoint-url", "http://" + addr, "--region", "us-east-1"}, args...)...)
		cmd.Env = awsCLIEnv("AWS_ACCESS_KEY_ID="+serveKeyID, "AWS_SECRET_ACCESS_KEY="+secret, "AWS_SESSION_TOKEN=",
			"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_MAX_ATTEMPTS=1", "AWS_PAGER=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(serveSecret); err != nil || !strings.Contains(out, `"TableNames"`) {
		t.Errorf("signed with the pair: %v\n%s", err, out)
	}
	if out, err := run("not-the-secret"); err == nil || !strings.Contains(out, "InvalidSignatureException") || !strings.Contains(out, "The request signature we calculated does not match") {
		t.Errorf("another secret: %v\n%s", err, out)
	}
	if out, err := run(serveSecret, "--no-sign-request"); err == nil || !strings.Contains(out, "MissingAuthenticationTokenException") {
		t.Errorf("unsigned: %v\n%s", err, out)
	}
}
