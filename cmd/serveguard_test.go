package cmd

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestLoopbackHost(t *testing.T) {
	for host, ok := range map[string]bool{
		"127.0.0.1:8000": true, "127.0.0.1": true, "[::1]:8000": true, "localhost:8000": true, "LOCALHOST.": true,
		"admin.localhost:8001": true, "127.9.9.9:1": true,
		"evil.example:8000": false, "10.0.0.1:8000": false, "": false, "localhost.evil.example": false, "0.0.0.0:8000": false,
	} {
		if got := loopbackHost(host); got != ok {
			t.Errorf("loopbackHost(%q) = %v", host, got)
		}
	}
}

// TestServeWithoutAuthRefusesBrowsersOfOtherSites: without --auth, a
// request addressed to another host name (a page that rebinds its domain to
// 127.0.0.1) is refused with 403, and a page of another origin gets no CORS
// permission; clients on this machine, and pages on localhost, work.
func TestServeWithoutAuthRefusesBrowsersOfOtherSites(t *testing.T) {
	isolate(t)
	addr, _ := startServe(t, &serveOptions{addr: "127.0.0.1:0", inMemory: true}, nil)
	do := func(method, host, origin string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+addr+"/", strings.NewReader("{}"))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	if resp, body := do("POST", "", ""); resp.StatusCode != 200 || !strings.Contains(body, "TableNames") {
		t.Errorf("plain request: %d %s", resp.StatusCode, body)
	}
	if resp, body := do("POST", "evil.example:8000", ""); resp.StatusCode != 403 ||
		!strings.Contains(body, `"__type":"com.amazon.coral.service#AccessDeniedException"`) || !strings.Contains(body, `not to \"evil.example:8000\"`) {
		t.Errorf("rebound host name: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do("OPTIONS", "", "https://evil.example"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another site: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := do("POST", "", "https://evil.example"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another site got CORS permission: %v", resp.Header)
	}
	if resp, _ := do("OPTIONS", "", "http://localhost:8001"); resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight of a page on localhost: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, body := do("POST", "", "null"); resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" || !strings.Contains(body, "TableNames") {
		t.Errorf("opaque origin: %d %v", resp.StatusCode, resp.Header)
	}
}
