package cmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedactHidesCredentials(t *testing.T) {
	s := &secrets{}
	s.add("AKIAKNOWN00000000001", "known-secret-value-0123456789", "test", "")
	for _, c := range []struct{ in, stdout, stderr string }{
		{"key AKIAKNOWN00000000001 and known-secret-value-0123456789",
			"key [REDACTED] and [REDACTED]", "key [REDACTED] and [REDACTED]"},
		{"Authorization=AWS4-HMAC-SHA256 Credential=AKIAOTHER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=" + strings.Repeat("ab", 32),
			"Authorization=AWS4-HMAC-SHA256 Credential=[REDACTED]/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=[REDACTED]",
			"Authorization=AWS4-HMAC-SHA256 Credential=[REDACTED]/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=[REDACTED]"},
		{"x-amz-security-token:FwoGZXIvYXdzE+abc/def==\n", "x-amz-security-token:[REDACTED]\n", "x-amz-security-token:[REDACTED]\n"},
		{`"X-Amz-Security-Token": "FwoGZXIvYXdzE"`, `"X-Amz-Security-Token": "[REDACTED]"`, `"X-Amz-Security-Token": "[REDACTED]"`},
		{"aws_secret_access_key = abc/def", "aws_secret_access_key = abc/def", "aws_secret_access_key = [REDACTED]"},
		{"id ASIAABCDEFGHIJKLMNOP here", "id ASIAABCDEFGHIJKLMNOP here", "id [REDACTED] here"},
		// Short placeholders are not secrets: a student named test stays.
		{"STU#test\tAna\n", "STU#test\tAna\n", "STU#test\tAna\n"},
	} {
		var out, errb bytes.Buffer
		w := redactingWriter{w: &out, s: s, shapes: []shape{credentialShapes}}
		e := redactingWriter{w: &errb, s: s, shapes: []shape{credentialShapes, errorShapes}}
		if n, err := w.Write([]byte(c.in)); n != len(c.in) || err != nil {
			t.Errorf("Write(%q) = %d, %v", c.in, n, err)
		}
		e.Write([]byte(c.in))
		if out.String() != c.stdout {
			t.Errorf("stdout %q\n got %q\nwant %q", c.in, out.String(), c.stdout)
		}
		if errb.String() != c.stderr {
			t.Errorf("stderr %q\n got %q\nwant %q", c.in, errb.String(), c.stderr)
		}
	}
}

// TestForeignAnswerIsUnreachable: an endpoint answering with something other
// than DynamoDB's JSON (an HTML page) is a backend that cannot be used:
// exit 6 with what it answered, not an internal error.
func TestForeignAnswerIsUnreachable(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>bad gateway</html>"))
	}))
	defer srv.Close()
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", srv.URL, "get", "STU#a91")
	want := "adjl: the backend at " + srv.URL + " did not answer like DynamoDB: HTTP 502 with a body that is not DynamoDB's JSON"
	if r.code != ExitUnreachable || !strings.HasPrefix(r.err, want) || !strings.Contains(r.err, "hint: check --endpoint") {
		t.Errorf("exit %d\n got %q\nwant prefix %q", r.code, r.err, want)
	}
}

// TestMissingCredentialsAreExit6: credentials the SDK cannot find (a
// profile whose file is broken) are reported as such, exit 6 with the
// credentials hint.
func TestMissingCredentialsAreExit6(t *testing.T) {
	home := isolate(t)
	creds := filepath.Join(home, "credentials")
	writeFile(t, creds, "[broken\naws_access_key_id = x\n")
	writeFile(t, filepath.Join(home, "config"), "[profile broken]\nregion = eu-west-1\n")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "config"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--endpoint", "http://127.0.0.1:1", "--profile", "broken", "get", "STU#a91")
	if r.code != ExitUnreachable || !strings.Contains(r.err, "no usable AWS credentials: ") ||
		!strings.Contains(r.err, "hint: check your AWS credentials") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
}
