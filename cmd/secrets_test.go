package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Known credentials: in the environment, and in a profile's files.
const (
	leakKeyID      = "AKIALEAKTESTENV00001"
	leakSecret     = "leakEnvSecret/0123456789+abcdefghijklmnop"
	leakToken      = "IQoJb3JpZ2luX2VjELeakEnvSessionToken0123456789abcdefghij/+=="
	leakProfKeyID  = "AKIALEAKTESTPROFILE1"
	leakProfSecret = "leakProfileSecret/9876543210+zyxwvutsrqp"
	leakProfToken  = "IQoJb3JpZ2luX2VjELeakProfileSessionToken9876543210zyxwvu/+=="
)

var leakSecrets = []string{leakKeyID, leakSecret, leakToken, leakProfKeyID, leakProfSecret, leakProfToken}

// signature matches a SigV4 signature wherever it appears.
var signature = regexp.MustCompile(`Signature=[0-9a-f]{64}`)

// leakyServers answer every request with an error, several of which echo
// what the request carried (its Authorization header, its session token,
// every header) the way a misbehaving or hostile endpoint might.
func leakyServers(t *testing.T) map[string]string {
	t.Helper()
	echo := func(r *http.Request) string {
		var b strings.Builder
		for k, v := range r.Header {
			fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(v, ","))
		}
		return b.String()
	}
	jsonError := func(status int, typ string, msg func(r *http.Request) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"__type":%q,"message":%q}`, typ, msg(r))
		}
	}
	handlers := map[string]http.Handler{
		"400 unrecognized client": jsonError(400, "com.amazon.coral.service#UnrecognizedClientException",
			func(*http.Request) string { return "The security token included in the request is invalid." }),
		"400 echoing Authorization": jsonError(400, "com.amazon.coral.service#InvalidSignatureException",
			func(r *http.Request) string {
				return "The request signature we calculated does not match. Authorization=" + r.Header.Get("Authorization") +
					"\nx-amz-security-token:" + r.Header.Get("X-Amz-Security-Token")
			}),
		"403 echoing every header": jsonError(403, "com.amazonaws.dynamodb.v20120810#AccessDeniedException",
			func(r *http.Request) string { return "User is not authorized: " + echo(r) }),
		"400 validation echoing every header": jsonError(400, "com.amazonaws.dynamodb.v20120810#ValidationException",
			func(r *http.Request) string { return "bad request " + echo(r) }),
		"400 not JSON": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(400)
			io.WriteString(w, "<html>denied "+echo(r)+"</html>")
		}),
	}
	// adjl's own engine behind a verifier of the environment's key id with
	// another secret: it refuses each request with DynamoDB's
	// InvalidSignatureException, whose message holds the canonical request,
	// session token header included.
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	v := &local.SigV4Verifier{Credentials: local.Credentials{AccessKeyID: leakKeyID, SecretAccessKey: "another-secret-0123456789"}}
	handlers["local serve --auth, another secret"] = v.Wrap(e)
	urls := map[string]string{}
	for name, h := range handlers {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		urls[name] = srv.URL
	}
	return urls
}

// echoesEverything are the leaky servers every output flag is tried on.
var echoesEverything = map[string]bool{"400 echoing Authorization": true, "local serve --auth, another secret": true}

// leakCommands are command lines covering every path to a backend: table
// administration, entity and edge writes, reads, lists, verify and
// reshard, with the school example.
var leakCommands = [][]string{
	{"table", "create"}, {"table", "describe"}, {"table", "plan"}, {"table", "apply", "--yes"}, {"table", "delete", "--yes"},
	{"put", "student", "a91", "--set", "name=Ana"}, {"get", "STU#a91"}, {"delete", "STU#a91", "--cascade"},
	{"enroll", "a91", "math204", "--set", "grade=A"}, {"unenroll", "a91", "math204"}, {"enrolled", "a91", "math204"},
	{"courses", "a91"}, {"members", "math204", "--all"}, {"members", "math204", "--with-entity"},
	{"link", "enrollment", "a91", "math204"}, {"check", "enrollment", "a91", "math204"}, {"list", "enrollment", "math204", "--reverse"},
	{"verify", "--no-capacity-check"}, {"reshard", "enrollment", "--to", "2"},
}

// TestSecretsNeverPrinted runs every command against endpoints that refuse
// or echo what they were sent, with credentials from the environment, from
// a profile's files, and for the aws backend (redirected to the test
// servers by AWS_ENDPOINT_URL): plain on each server, and with --verbose,
// --capacity, --explain and --debug (when adjl has it) on the two that echo
// the most. It fails if a credential, session token or signature appears
// on adjl's stdout or stderr, or on the process's own.
func TestSecretsNeverPrinted(t *testing.T) {
	home := isolate(t)
	awsDir := filepath.Join(home, ".aws")
	writeFile(t, filepath.Join(awsDir, "credentials"), "[leaky]\naws_access_key_id = "+leakProfKeyID+
		"\naws_secret_access_key = "+leakProfSecret+"\naws_session_token = "+leakProfToken+"\n")
	writeFile(t, filepath.Join(awsDir, "config"), "[profile leaky]\nregion = eu-west-1\n")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(awsDir, "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(awsDir, "config"))
	t.Setenv("AWS_ACCESS_KEY_ID", leakKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", leakSecret)
	t.Setenv("AWS_SESSION_TOKEN", leakToken)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	schema := example(t, "school.yaml")
	// The bulk commands, which page and batch on their own paths.
	rows := filepath.Join(t.TempDir(), "enrollments.csv")
	writeFile(t, rows, "from,to,grade\na91,math204,A\nb02,math204,B\n")
	commands := append(slices.Clone(leakCommands),
		[]string{"import", "enrollment", rows}, []string{"import", "enrollment", rows, "--unlink"},
		[]string{"export", "enrollment"}, []string{"members", "math204", "--count"},
		[]string{"counters", "verify"}, []string{"counters", "repair"}, []string{"schema", "infer", "school", "--sample", "10"})

	// Anything written to the process's own stdout and stderr (an SDK
	// logger, say) bypasses the streams adjl redacts: it is collected here
	// and checked too.
	processOut := captureProcessOutput(t)

	variants := [][]string{nil, {"--verbose"}, {"--capacity"}, {"--explain"}}
	if r := adjl(t, runOpts{}, "--debug", "--help"); r.code == ExitOK {
		variants = append(variants, []string{"--debug"}, []string{"--debug", "--verbose"})
	} else {
		t.Log("adjl has no --debug flag: not covered")
	}
	runs := 0
	check := func(what string, r result) {
		t.Helper()
		runs++
		for _, out := range []struct{ name, text string }{{"stdout", r.out}, {"stderr", r.err}} {
			for _, s := range leakSecrets {
				for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
					if strings.Contains(out.text, form) {
						t.Errorf("%s: %s holds the secret %q:\n%s", what, out.name, s, out.text)
					}
				}
			}
			if signature.MatchString(out.text) {
				t.Errorf("%s: %s holds a request signature:\n%s", what, out.name, out.text)
			}
		}
		if r.code == ExitInternal {
			t.Errorf("%s: exit 10:\n%s", what, r.err)
		}
	}
	for name, endpoint := range leakyServers(t) {
		vs := variants[:1]
		if echoesEverything[name] {
			// The output flags on the servers that echo the most; every
			// server gets every command plain.
			vs = variants
		}
		for _, cmd := range commands {
			for _, v := range vs {
				base := append([]string{"--schema", schema}, v...)
				args := append(append(append([]string{}, base...), "--endpoint", endpoint), cmd...)
				check(name+" env: "+strings.Join(args, " "), adjl(t, runOpts{}, args...))
				args = append(append(append([]string{}, base...), "--endpoint", endpoint, "--profile", "leaky"), cmd...)
				check(name+" profile: "+strings.Join(args, " "), adjl(t, runOpts{}, args...))
			}
		}
		// The aws backend: the SDK's default chain (environment, then the
		// profile), its endpoint redirected to the test server.
		t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
		for _, cmd := range commands {
			args := append([]string{"--schema", schema, "--endpoint", "aws", "--verbose"}, cmd...)
			check(name+" aws env: "+strings.Join(args, " "), adjl(t, runOpts{}, args...))
			args = append([]string{"--schema", schema, "--endpoint", "aws", "--profile", "leaky"}, cmd...)
			check(name+" aws profile: "+strings.Join(args, " "), adjl(t, runOpts{}, args...))
		}
		os.Unsetenv("AWS_ENDPOINT_URL_DYNAMODB")
	}
	// Configuration that cannot be loaded: an unknown profile, and a
	// credentials file that is not valid.
	check("unknown profile", adjl(t, runOpts{}, "--schema", schema, "--endpoint", "aws", "--profile", "nobody", "get", "STU#a"))
	writeFile(t, filepath.Join(awsDir, "credentials"), "[leaky\naws_secret_access_key = "+leakProfSecret+"\n= "+leakProfToken+"\n")
	check("broken credentials file", adjl(t, runOpts{}, "--schema", schema, "--endpoint", "aws", "--profile", "leaky", "get", "STU#a"))
	check("broken credentials file, URL", adjl(t, runOpts{}, "--schema", schema, "--endpoint", "http://127.0.0.1:1", "--profile", "leaky", "get", "STU#a"))
	check("the process's own stdout and stderr", result{out: processOut()})
	t.Logf("%d command runs checked", runs)
}

// captureProcessOutput points os.Stdout and os.Stderr at a pipe until the
// returned function is called, which restores them and returns what was
// written.
func captureProcessOutput(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	var buf strings.Builder
	done := make(chan struct{})
	go func() {
		io.Copy(&buf, r)
		close(done)
	}()
	restore := func() {
		if os.Stdout == w {
			os.Stdout, os.Stderr = oldOut, oldErr
			w.Close()
			<-done
			r.Close()
		}
	}
	t.Cleanup(restore)
	return func() string {
		restore()
		return buf.String()
	}
}

// TestRequestLogOfBrowseIsRedacted: browse shows the request log in its
// own view rather than on stderr; an error a server sent back that quotes
// the request's credentials is hidden there too.
func TestRequestLogOfBrowseIsRedacted(t *testing.T) {
	isolate(t)
	urls := leakyServers(t)
	var view bytes.Buffer
	a := newApp(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, nil)
	a.requestSink = &view
	a.secrets.add(leakKeyID, leakSecret, leakToken)
	cfg := aws.Config{Region: "us-east-1", RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(leakKeyID, leakSecret, leakToken)}
	opts := append(a.clientOptions(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(urls["400 echoing Authorization"]) })
	_, err := dynamodb.NewFromConfig(cfg, opts...).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}})
	if err == nil || !strings.Contains(err.Error(), leakKeyID) {
		t.Fatalf("the server did not echo the key id: %v", err)
	}
	log := view.String()
	if !strings.Contains(log, "debug: GetItem") || !strings.Contains(log, "error=") {
		t.Fatalf("request log: %q", log)
	}
	for _, s := range []string{leakKeyID, leakToken} {
		if strings.Contains(log, s) {
			t.Errorf("request log holds %q: %s", s, log)
		}
	}
	if signature.MatchString(log) {
		t.Errorf("request log holds a signature: %s", log)
	}
}
