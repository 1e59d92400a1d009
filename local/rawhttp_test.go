package local

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func newRequest(target, body string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, "http://local.adjl/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Target", target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	return req, nil
}

// postRaw sends body as DynamoDB operation op to e and returns the status
// and body of the answer.
func postRaw(t *testing.T, e *Engine, op, body string) (int, []byte) {
	t.Helper()
	req, err := newRequest("DynamoDB_20120810."+op, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func ioCopy(w io.Writer, r io.Reader) (int64, error) { return io.Copy(w, r) }

func TestCORSPreflight(t *testing.T) {
	e := openMem(t)
	req, _ := http.NewRequest(http.MethodOptions, "http://local.adjl/", nil)
	req.Header.Set("Origin", "http://localhost:8001")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := e.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ = newRequest("DynamoDB_20120810.ListTables", "{}")
	req.Header.Set("Origin", "http://localhost:8001")
	resp, err = e.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("cross-origin request: %d %v", resp.StatusCode, resp.Header)
	}
}
