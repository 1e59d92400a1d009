package cmd

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// loopbackGuard keeps `adjl local serve` without --auth to the programs of
// this machine. Binding a loopback address is not enough on its own: a web
// page the user opens can reach it through the browser. Such a page either
// names its own domain, made to resolve to 127.0.0.1 (DNS rebinding), so the
// request's Host is not a loopback one; or it calls from its own origin, and
// needs the engine's CORS permission to send DynamoDB's headers and read the
// answer. So a request whose Host is not a loopback address or localhost is
// refused (403), and an Origin that is not on a loopback host gets no CORS
// permission (its preflight is refused), while the AWS CLI, SDKs and admin
// UIs on localhost work as before. With --auth every request must be signed,
// which no page can do without the secret, and the guard is not used.
func loopbackGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			denyRequest(w, fmt.Sprintf("adjl local serve answers requests addressed to a loopback host (127.0.0.1, ::1 or localhost), not to %q; start it with --auth to serve others", r.Host))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			if r.Method == http.MethodOptions {
				denyRequest(w, fmt.Sprintf("adjl local serve gives no cross-origin access to %q: only pages on localhost may call it; start it with --auth to serve others", origin))
				return
			}
			// Served as any request, without CORS permission: the browser
			// keeps the answer from the page.
			r = r.Clone(r.Context())
			r.Header.Del("Origin")
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether host (host or host:port) names this machine
// through loopback: a loopback IP, localhost or a name under .localhost.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackOrigin reports whether a browser Origin is a page on this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Host)
}

// denyRequest answers 403 in DynamoDB's error shape, so SDKs and the AWS CLI
// print the message.
func denyRequest(w http.ResponseWriter, msg string) {
	body, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.service#AccessDeniedException", "message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusForbidden)
	w.Write(body)
}
