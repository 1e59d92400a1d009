package cmd

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adjl/adjl/local"
)

// TestDebugLogsEachRequest: --debug prints one line per request with the
// operation, table, index, key condition with its values, latency,
// consumed capacity and attempts.
func TestDebugLogsEachRequest(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204", "--set", "grade=A")
	r := s.run("--debug", "members", "math204", "--limit", "5")
	if r.code != 0 || r.out != "STU#a91\tA\t\n" {
		t.Fatalf("exit %d, out %q, err %s", r.code, r.out, r.err)
	}
	want := regexp.MustCompile(`^debug: Query table=school index=GSI1 key='\(GSI1PK = "CRS#math204"\) AND \(begins_with \(GSI1SK, "STU#"\)\)' limit=6 latency=[0-9.]+[µm]?s capacity=0\.5 attempts=1\n$`)
	if !want.MatchString(r.err) {
		t.Errorf("stderr = %q, want a match for %s", r.err, want)
	}
	r = s.run("--debug", "enroll", "a91", "math204", "--set", "grade=B")
	if !strings.Contains(r.err, `debug: TransactWriteItems items='Put school PK="STU#a91",SK="ENROLL#CRS#math204"; Update school PK="STU#a91",SK="STU#a91"; Update school PK="CRS#math204",SK="CRS#math204"'`) &&
		!strings.Contains(r.err, "debug: UpdateItem table=school key='PK=\"STU#a91\",SK=\"ENROLL#CRS#math204\"'") {
		t.Errorf("link: stderr = %q", r.err)
	}
	if n := strings.Count(r.err, "debug: "); n < 1 {
		t.Errorf("link logged %d requests", n)
	}
	// The SDK's expression builder ends an update with a newline; the log
	// shows the expression, not an escaped \n.
	r = s.run("--debug", "put", "student", "a91", "--set", "name=Ana")
	if want := `update='SET GSI1PK = "STU#a91", GSI1SK = "STU#a91", type = "student", name = "Ana"' latency=`; !strings.Contains(r.err, want) {
		t.Errorf("put: stderr = %q, want %q", r.err, want)
	}
	r = s.run("members", "math204")
	if strings.Contains(r.err, "debug:") {
		t.Errorf("without --debug: stderr = %q", r.err)
	}
}

// TestDebugNeverLogsCredentials runs commands against a server on loopback
// with known credentials in the environment: the requests are signed with
// them, and nothing of them, nor the signature, reaches the log.
func TestDebugNeverLogsCredentials(t *testing.T) {
	isolate(t)
	const (
		keyID  = "AKIAKNOWNKEYID123456"
		secret = "knownSecretAccessKey/abcdefghijklmnopqrstuv"
		token  = "knownSessionTokenXYZ0123456789"
	)
	t.Setenv("AWS_ACCESS_KEY_ID", keyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", token)
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token"))
		mu.Unlock()
		e.ServeHTTP(w, r)
	}))
	defer srv.Close()
	school := example(t, "school.yaml")
	var logged strings.Builder
	for _, args := range [][]string{{"table", "create"}, {"enroll", "a91", "math204"}, {"members", "math204"}, {"get", "STU#a91"}} {
		r := adjl(t, runOpts{}, append([]string{"--schema", school, "--endpoint", srv.URL, "--debug"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.err)
		}
		logged.WriteString(r.err)
	}
	log := logged.String()
	if !strings.Contains(log, "debug: GetItem") {
		t.Fatalf("no request logged:\n%s", log)
	}
	secrets := []string{keyID, secret, token, "Signature=", "Credential=", "AWS4-HMAC-SHA256"}
	mu.Lock()
	for _, h := range auth {
		if _, sig, ok := strings.Cut(h, "Signature="); ok {
			secrets = append(secrets, sig)
		}
	}
	signed := len(auth) > 0 && strings.Contains(auth[0], keyID)
	mu.Unlock()
	if !signed {
		t.Fatalf("requests were not signed with the test credentials (%q): the test proves nothing", auth)
	}
	for _, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the debug log holds %q:\n%s", s, log)
		}
	}
}

// TestDebugLogsRetries: a throttled first attempt shows as attempts=2 with
// the error of the retried attempt.
func TestDebugLogsRetries(t *testing.T) {
	isolate(t)
	e, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var queries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".Query") && queries.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"slow down"}`))
			return
		}
		e.ServeHTTP(w, r)
	}))
	defer srv.Close()
	school := example(t, "school.yaml")
	if r := adjl(t, runOpts{}, "--schema", school, "--endpoint", srv.URL, "table", "create"); r.code != 0 {
		t.Fatalf("table create: %s", r.err)
	}
	r := adjl(t, runOpts{}, "--schema", school, "--endpoint", srv.URL, "--debug", "members", "math204")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.err, " attempts=2 retry1='") || !strings.Contains(r.err, "ThrottlingException") {
		t.Errorf("stderr = %q, want attempts=2 and the throttling error", r.err)
	}
}

func TestFillExpressionLongerPlaceholdersFirst(t *testing.T) {
	got := fillExpression("#0 = :1 AND #1 > :10", map[string]string{"#0": "PK", "#1": "n"}, nil)
	if got != "PK = :1 AND n > :10" {
		t.Errorf("names: %q", got)
	}
}
