package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

var (
	testCreds = Credentials{AccessKeyID: "AKIDSERVE", SecretAccessKey: "serve-secret-key"}
	// sigNow is the verifier's clock in the tests that fix it.
	sigNow = time.Date(2026, 6, 9, 10, 0, 15, 0, time.UTC)
)

// authServer serves a new in-memory engine holding table "school" behind a
// verifier of testCreds whose clock is now (the real one when nil).
func authServer(t *testing.T, now func() time.Time) (*httptest.Server, *Engine) {
	t.Helper()
	e := openMem(t)
	createGraphTable(t, clientFor(e), "school")
	v := &SigV4Verifier{Credentials: testCreds, Now: now}
	srv := httptest.NewServer(v.Wrap(e))
	t.Cleanup(srv.Close)
	return srv, e
}

// signedRequest builds a request for op with body, signed by the SDK's v4
// signer with creds at signing time.
func signedRequest(t testing.TB, url, op, body string, creds aws.Credentials, region string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", region, at); err != nil {
		t.Fatal(err)
	}
	return req
}

func goodCreds() aws.Credentials {
	return aws.Credentials{AccessKeyID: testCreds.AccessKeyID, SecretAccessKey: testCreds.SecretAccessKey}
}

// send sends req and returns the status, the error type (without its
// namespace, "" on success), the namespace and the message.
func send(t *testing.T, req *http.Request) (status int, typ, ns, msg string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, "", "", ""
	}
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("error body %q: %v", data, err)
	}
	ns, typ, _ = strings.Cut(e.Type, "#")
	return resp.StatusCode, typ, ns + "#", e.Message
}

const putBody = `{"TableName":"school","Item":{"PK":{"S":"STU#a"},"SK":{"S":"STU#a"}}}`

// TestSigV4AcceptsTheSDKsSignature: the SDK's own client, holding the
// pair, works against the verifier for writes and reads (no clock fixed).
func TestSigV4AcceptsTheSDKsSignature(t *testing.T) {
	srv, _ := authServer(t, nil)
	c := dynamodb.NewFromConfig(aws.Config{Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider(testCreds.AccessKeyID, testCreds.SecretAccessKey, "")},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
		Item: map[string]av{"PK": s("STU#a"), "SK": s("STU#a"), "name": s(strings.Repeat("é", 3000))}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"), Key: map[string]av{"PK": s("STU#a"), "SK": s("STU#a")}})
	if err != nil || len(out.Item) != 3 {
		t.Fatalf("GetItem: %v %v", out, err)
	}
}

// TestSigV4RefusesWithDynamoDBsErrors checks each refusal's status, type,
// namespace and message (DynamoDB's, as dynalite and ScyllaDB Alternator
// record them), and that a refused write changes nothing.
func TestSigV4RefusesWithDynamoDBsErrors(t *testing.T) {
	srv, e := authServer(t, func() time.Time { return sigNow })
	signed := func(edit func(r *http.Request)) *http.Request {
		r := signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow)
		if edit != nil {
			edit(r)
		}
		return r
	}
	withAuth := func(auth string) *http.Request {
		return signed(func(r *http.Request) { r.Header.Set("Authorization", auth) })
	}
	replaceAuth := func(old, new string) *http.Request {
		return signed(func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), old, new, 1))
		})
	}
	mismatch := "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\nThe Canonical String for this request should have been\n'POST\n/\n\n"
	for _, c := range []struct {
		name      string
		req       *http.Request
		typ, msg  string
		msgPrefix bool
	}{
		{"unsigned", signed(func(r *http.Request) { r.Header.Del("Authorization") }),
			errMissingToken, "Request is missing Authentication Token", false},
		{"not AWS4-", withAuth("AWS4"), errMissingToken, "Request is missing Authentication Token", false},
		{"AWS4- alone", signed(func(r *http.Request) { r.Header.Set("Authorization", "AWS4-"); r.Header.Del("X-Amz-Date") }),
			errIncompleteSignature, "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. " +
				"Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-", false},
		{"malformed date", signed(func(r *http.Request) { r.Header.Set("X-Amz-Date", "201") }),
			errIncompleteSignature, "Date must be in ISO-8601 'basic format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601", false},
		{"16 minutes old", signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow.Add(-16*time.Minute)),
			errInvalidSignature, "Signature expired: 20260609T094415Z is now earlier than 20260609T094515Z (20260609T100015Z - 15 min.)", false},
		{"16 minutes ahead", signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow.Add(16*time.Minute)),
			errInvalidSignature, "Signature not yet current: 20260609T101615Z is still later than 20260609T101515Z (20260609T100015Z + 15 min.)", false},
		{"host not signed", replaceAuth("SignedHeaders=content-length;content-type;host;", "SignedHeaders=content-length;content-type;"),
			errInvalidSignature, "'Host' must be a 'SignedHeader' in the AWS Authorization.", false},
		{"another algorithm", replaceAuth("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA25"),
			errIncompleteSignature, "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). ", false},
		{"four-part credential", replaceAuth("/dynamodb/aws4_request", "/dynamodb"),
			errIncompleteSignature, "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'AKIDSERVE/20260609/us-east-1/dynamodb'", false},
		{"wrong scope", replaceAuth("20260609/us-east-1/dynamodb/aws4_request", "20260608/u$/s3/aws4"),
			errInvalidSignature, "Credential should be scoped to a valid region, not 'u$'. Credential should be scoped to correct service: 'dynamodb'. " +
				"Credential should be scoped with a valid terminator: 'aws4_request', not 'aws4'. " +
				"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20260608' != '20260609', from '20260609T100015Z'.", false},
		{"unknown key id", signedRequest(t, srv.URL, "PutItem", putBody, aws.Credentials{AccessKeyID: "AKIDOTHER", SecretAccessKey: testCreds.SecretAccessKey}, "us-east-1", sigNow),
			errUnrecognizedClient, "The security token included in the request is invalid.", false},
		{"wrong secret", signedRequest(t, srv.URL, "PutItem", putBody, aws.Credentials{AccessKeyID: testCreds.AccessKeyID, SecretAccessKey: "guess"}, "us-east-1", sigNow),
			errInvalidSignature, mismatch, true},
		{"body changed after signing", signed(func(r *http.Request) {
			b := strings.Replace(putBody, "STU#a", "STU#b", 2)
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(b)), int64(len(b))
		}), errInvalidSignature, mismatch, true},
		{"operation changed after signing", signed(func(r *http.Request) { r.Header.Set("X-Amz-Target", targetPrefix+"DeleteItem") }),
			errInvalidSignature, mismatch, true},
		{"signature edited", signed(func(r *http.Request) {
			a := r.Header.Get("Authorization")
			last := "0"
			if strings.HasSuffix(a, "0") {
				last = "1"
			}
			r.Header.Set("Authorization", a[:len(a)-1]+last)
		}), errInvalidSignature, mismatch, true},
		{"session token", signedRequest(t, srv.URL, "PutItem", putBody, aws.Credentials{AccessKeyID: testCreds.AccessKeyID, SecretAccessKey: testCreds.SecretAccessKey, SessionToken: "tok"}, "us-east-1", sigNow),
			errUnrecognizedClient, "The security token included in the request is invalid", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, typ, ns, msg := send(t, c.req)
			if status != http.StatusBadRequest || typ != c.typ || ns != coralNamespace {
				t.Errorf("got %d %s%s %q, want 400 %s%s", status, ns, typ, msg, coralNamespace, c.typ)
			}
			if c.msgPrefix && !strings.HasPrefix(msg, c.msg) || !c.msgPrefix && msg != c.msg {
				t.Errorf("message\n got %q\nwant %q", msg, c.msg)
			}
		})
	}
	out, err := clientFor(e).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school")})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("refused writes left %d items (%v)", len(out.Items), err)
	}
}

// TestSigV4AcceptsWithinTheSkewAndOtherForms: a signature 14 minutes old or
// ahead, the Date header instead of X-Amz-Date, parameters separated by
// commas only, and any region are accepted.
func TestSigV4AcceptsWithinTheSkewAndOtherForms(t *testing.T) {
	srv, _ := authServer(t, func() time.Time { return sigNow })
	for name, req := range map[string]*http.Request{
		"14 minutes old":   signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow.Add(-14*time.Minute)),
		"14 minutes ahead": signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow.Add(14*time.Minute)),
		"region localhost": signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "localhost", sigNow),
		"commas only": func() *http.Request {
			r := signedRequest(t, srv.URL, "PutItem", putBody, goodCreds(), "us-east-1", sigNow)
			a := strings.Fields(r.Header.Get("Authorization"))
			r.Header.Set("Authorization", a[0]+" "+strings.Join(a[1:], ""))
			return r
		}(),
		"Date header": func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(putBody))
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", targetPrefix+"PutItem")
			req.Header.Set("Date", sigNow.Format(http.TimeFormat))
			v := &SigV4Verifier{Credentials: testCreds}
			// Sign by hand: the SDK always sends X-Amz-Date.
			signed := []string{"content-type", "date", "host", "x-amz-target"}
			req.Host = strings.TrimPrefix(srv.URL, "http://")
			canonical := canonicalRequest(req, signed, []byte(putBody))
			sum := sha256.Sum256([]byte(canonical))
			sts := "AWS4-HMAC-SHA256\n20260609T100015Z\n20260609/us-east-1/dynamodb/aws4_request\n" + hex.EncodeToString(sum[:])
			key := []byte("AWS4" + v.Credentials.SecretAccessKey)
			for _, p := range []string{"20260609", "us-east-1", "dynamodb", "aws4_request"} {
				key = hmacSHA256(key, p)
			}
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDSERVE/20260609/us-east-1/dynamodb/aws4_request, SignedHeaders="+
				strings.Join(signed, ";")+", Signature="+hex.EncodeToString(hmacSHA256(key, sts)))
			return req
		}(),
	} {
		if status, typ, _, msg := send(t, req); status != http.StatusOK {
			t.Errorf("%s: %d %s %s", name, status, typ, msg)
		}
	}
	// The health check and CORS preflight carry no signature and no data.
	for _, m := range []string{http.MethodGet, http.MethodOptions} {
		req, _ := http.NewRequest(m, srv.URL+"/", nil)
		req.Header.Set("Origin", "http://localhost:8001")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s /: %d", m, resp.StatusCode)
		}
	}
}

// TestSigV4ErrorsReachTheSDKAsTheirCodes: the SDK parses the front end's
// namespace and reports each refusal by its code, which adjl classifies as
// unauthorised.
func TestSigV4ErrorsReachTheSDKAsTheirCodes(t *testing.T) {
	srv, _ := authServer(t, nil)
	for want, p := range map[string]aws.CredentialsProvider{
		errMissingToken:       aws.AnonymousCredentials{},
		errUnrecognizedClient: credentials.NewStaticCredentialsProvider("AKIDOTHER", "x", ""),
		errInvalidSignature:   credentials.NewStaticCredentialsProvider(testCreds.AccessKeyID, "wrong", ""),
	} {
		c := dynamodb.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: p, RetryMaxAttempts: 1},
			func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
		_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != want {
			t.Errorf("want %s, got %v", want, err)
		}
	}
}

// FuzzSigV4 sends any Authorization header, date and body: the verifier
// never panics, refuses with one of its four errors, and accepts nothing
// but a request signed with the secret (the fuzzer cannot forge one).
func FuzzSigV4(f *testing.F) {
	good := signedRequest(f, "http://127.0.0.1:8000", "PutItem", putBody, goodCreds(), "us-east-1", sigNow)
	f.Add(good.Header.Get("Authorization"), good.Header.Get("X-Amz-Date"), "", putBody)
	f.Add("AWS4-", "", "Tue, 09 Jun 2026 10:00:15 GMT", "")
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDSERVE/20260609/us-east-1/dynamodb/aws4_request,SignedHeaders=host,Signature=00", "20260609T100015Z", "", "{}")
	f.Add("AWS4-X Credential=/////, SignedHeaders=;;, Signature==", "20260609T100015Z", "", "")
	v := &SigV4Verifier{Credentials: testCreds, Now: func() time.Time { return sigNow }}
	f.Fuzz(func(t *testing.T, auth, amzDate, date, body string) {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Skip()
		}
		req.Header.Set("Authorization", auth)
		req.Header.Set("X-Amz-Date", amzDate)
		req.Header.Set("Date", date)
		req.Header.Set("X-Amz-Target", targetPrefix+"PutItem")
		ae := v.verify(req, []byte(body))
		if ae == nil {
			if auth != good.Header.Get("Authorization") || body != putBody {
				t.Fatalf("accepted a request the fuzzer made: %q %q %q", auth, amzDate, body)
			}
			return
		}
		switch ae.Type {
		case errMissingToken, errIncompleteSignature, errInvalidSignature, errUnrecognizedClient:
		default:
			t.Fatalf("error %s: %s", ae.Type, ae.Message)
		}
		if ae.namespace != coralNamespace || ae.Message == "" {
			t.Fatalf("error %+v", ae)
		}
	})
}

// TestSigV4OversizedBodyIsRefusedAsTheEngineDoes: a body over DynamoDB's
// 16 MB is refused with the engine's 413, not as a signature mismatch.
func TestSigV4OversizedBodyIsRefusedAsTheEngineDoes(t *testing.T) {
	srv, _ := authServer(t, nil)
	body := `{"TableName":"school","Item":{"PK":{"S":"` + strings.Repeat("x", maxRequestBytes) + `"}}}`
	req := signedRequest(t, srv.URL, "PutItem", body, goodCreds(), "us-east-1", time.Now())
	status, typ, _, msg := send(t, req)
	if status != http.StatusRequestEntityTooLarge || typ != errValidation || msg != "Request size exceeded the maximum allowed size" {
		t.Errorf("got %d %s %q", status, typ, msg)
	}
}

// readCounter is a request body that counts the bytes read from it.
type readCounter struct {
	r io.Reader
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (c *readCounter) Close() error { return nil }

// TestSigV4LeavesTheBodiesOfStrangersUnread: a request refused on its
// headers (unsigned, another key id, an old date) has no byte of its body
// read, so a stranger cannot make the server buffer 16 MB; a request of
// the pair's key id is read and verified.
func TestSigV4LeavesTheBodiesOfStrangersUnread(t *testing.T) {
	e := openMem(t)
	v := (&SigV4Verifier{Credentials: testCreds, Now: func() time.Time { return sigNow }}).Wrap(e)
	for name, c := range map[string]struct {
		creds    aws.Credentials
		at       time.Time
		unsigned bool
		read     bool
	}{
		"unsigned":       {unsigned: true},
		"another key id": {creds: aws.Credentials{AccessKeyID: "AKIDOTHER", SecretAccessKey: "x"}, at: sigNow},
		"an old date":    {creds: goodCreds(), at: sigNow.Add(-time.Hour)},
		"the pair":       {creds: goodCreds(), at: sigNow, read: true},
	} {
		req := signedRequest(t, "http://127.0.0.1:8000", "ListTables", "{}", c.creds, "us-east-1", c.at)
		if c.unsigned {
			req.Header.Del("Authorization")
		}
		body := &readCounter{r: strings.NewReader("{}")}
		req.Body = body
		w := httptest.NewRecorder()
		v.ServeHTTP(w, req)
		if got := body.n > 0; got != c.read {
			t.Errorf("%s: %d body bytes read (status %d)", name, body.n, w.Code)
		}
		if c.read && w.Code != http.StatusOK {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
}
