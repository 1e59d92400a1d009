package local

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Credentials are the one access key pair a SigV4Verifier accepts.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

// SigV4Verifier checks that each request is signed with AWS Signature
// Version 4 by the holder of one access key pair, as DynamoDB checks its
// callers, and answers the others with DynamoDB's errors. The engine itself
// accepts anything; `adjl local serve --auth` puts a verifier in front of it.
//
// What it checks, in DynamoDB's order: an Authorization header of the AWS4
// family (else MissingAuthenticationTokenException); its Credential,
// Signature and SignedHeaders and a request date (X-Amz-Date, or Date) (else
// IncompleteSignatureException); the date's format; a date within 15
// minutes of the verifier's clock; host among the signed headers; the
// AWS4-HMAC-SHA256 algorithm; a credential scope of five elements naming
// the request's date, a region, the dynamodb service and aws4_request; the
// access key id (else UnrecognizedClientException); the signature over the
// canonical request, whose payload hash is that of the body received
// (InvalidSignatureException, with the canonical request and string to
// sign DynamoDB prints); and no session token, since the pair is long-term
// credentials (UnrecognizedClientException). Any region is accepted, as
// the engine has one.
type SigV4Verifier struct {
	Credentials Credentials
	// Now is the clock the request date is checked against (time.Now when nil).
	Now func() time.Time
}

// maxSkew is how far a request's date may be from the verifier's clock.
const maxSkew = 15 * time.Minute

// coralNamespace prefixes the __type of the errors DynamoDB's front end
// (not the DynamoDB service) answers, authentication among them.
const coralNamespace = "com.amazon.coral.service#"

const (
	errMissingToken        = "MissingAuthenticationTokenException"
	errIncompleteSignature = "IncompleteSignatureException"
	errInvalidSignature    = "InvalidSignatureException"
	errUnrecognizedClient  = "UnrecognizedClientException"
)

const (
	sigAlgorithm = "AWS4-HMAC-SHA256"
	amzDateForm  = "20060102T150405Z"
)

// Wrap returns a handler that passes next only the POST requests the
// verifier accepts. Other methods (the GET health check, CORS preflight)
// reach next as they are: the engine serves no data on them.
func (v *SigV4Verifier) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		// The headers first: a request that cannot be signed by the
		// pair's holder costs no body read.
		s, ae := v.checkHeaders(r)
		if ae != nil {
			r.Body.Close()
			writeError(w, r, ae)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
		r.Body.Close()
		if err != nil {
			writeError(w, r, &apiError{Type: errSerialization, Message: "cannot read request body"})
			return
		}
		if len(body) > maxRequestBytes {
			// As the engine answers it; verifying a cut body would only fail.
			writeError(w, r, &apiError{Type: errValidation, Message: "Request size exceeded the maximum allowed size", Status: http.StatusRequestEntityTooLarge})
			return
		}
		if ae := v.checkSignature(r, body, s); ae != nil {
			writeError(w, r, ae)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func authError(typ, msg string) *apiError {
	return &apiError{Type: typ, Message: msg, namespace: coralNamespace}
}

// signing is what the headers of a request say about its signature.
type signing struct {
	date   time.Time
	scope  []string // keyid/date/region/service/aws4_request
	signed []string // SignedHeaders
	sig    string
}

// verify returns nil for a request signed with v's credentials, else the
// error DynamoDB answers.
func (v *SigV4Verifier) verify(r *http.Request, body []byte) *apiError {
	s, ae := v.checkHeaders(r)
	if ae != nil {
		return ae
	}
	return v.checkSignature(r, body, s)
}

// checkHeaders does every check that needs no body, up to the access key
// id: a request that fails one has its body left unread.
func (v *SigV4Verifier) checkHeaders(r *http.Request) (*signing, *apiError) {
	fail := func(ae *apiError) (*signing, *apiError) { return nil, ae }
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if !strings.HasPrefix(auth, "AWS4-") {
		return fail(authError(errMissingToken, "Request is missing Authentication Token"))
	}
	algorithm, params := parseAuthorization(auth)
	dateText, fromDateHeader := r.Header.Get("X-Amz-Date"), false
	if dateText == "" {
		dateText, fromDateHeader = r.Header.Get("Date"), true
	}
	var missing strings.Builder
	for _, name := range []string{"Credential", "Signature", "SignedHeaders"} {
		if params[name] == "" {
			fmt.Fprintf(&missing, "Authorization header requires '%s' parameter. ", name)
		}
	}
	if dateText == "" {
		missing.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
	}
	if missing.Len() > 0 {
		return fail(authError(errIncompleteSignature, missing.String()+"Authorization="+auth))
	}

	date, err := time.Parse(amzDateForm, dateText)
	if fromDateHeader {
		date, err = http.ParseTime(dateText)
	}
	if err != nil {
		return fail(authError(errIncompleteSignature, fmt.Sprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601", dateText)))
	}
	date = date.UTC()
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	t := now().UTC()
	if date.Before(t.Add(-maxSkew)) {
		return fail(authError(errInvalidSignature, fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)",
			date.Format(amzDateForm), t.Add(-maxSkew).Format(amzDateForm), t.Format(amzDateForm))))
	}
	if date.After(t.Add(maxSkew)) {
		return fail(authError(errInvalidSignature, fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
			date.Format(amzDateForm), t.Add(maxSkew).Format(amzDateForm), t.Format(amzDateForm))))
	}

	signed := strings.Split(params["SignedHeaders"], ";")
	if !slices.ContainsFunc(signed, func(h string) bool { return strings.EqualFold(h, "host") }) {
		return fail(authError(errInvalidSignature, "'Host' must be a 'SignedHeader' in the AWS Authorization."))
	}
	if algorithm != sigAlgorithm {
		return fail(authError(errIncompleteSignature, fmt.Sprintf("Unsupported AWS 'algorithm': '%s' (only %s for now). ", algorithm, sigAlgorithm)))
	}
	credential := strings.TrimRight(params["Credential"], "/")
	scope := strings.Split(credential, "/")
	if len(scope) != 5 {
		return fail(authError(errIncompleteSignature, fmt.Sprintf("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '%s'", credential)))
	}
	keyID, day, region, service, term := scope[0], scope[1], scope[2], scope[3], scope[4]
	var wrong []string
	if !validRegion(region) {
		wrong = append(wrong, fmt.Sprintf("Credential should be scoped to a valid region, not '%s'.", region))
	}
	if service != "dynamodb" {
		wrong = append(wrong, "Credential should be scoped to correct service: 'dynamodb'.")
	}
	if term != "aws4_request" {
		wrong = append(wrong, fmt.Sprintf("Credential should be scoped with a valid terminator: 'aws4_request', not '%s'.", term))
	}
	if amzDate := date.Format(amzDateForm); day != amzDate[:8] {
		wrong = append(wrong, fmt.Sprintf("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.", day, amzDate[:8], amzDate))
	}
	if len(wrong) > 0 {
		return fail(authError(errInvalidSignature, strings.Join(wrong, " ")))
	}
	if keyID != v.Credentials.AccessKeyID {
		return fail(authError(errUnrecognizedClient, "The security token included in the request is invalid."))
	}
	return &signing{date: date, scope: scope, signed: signed, sig: params["Signature"]}, nil
}

// checkSignature compares the request's signature with the one v computes
// over its canonical form and body, then refuses a session token.
func (v *SigV4Verifier) checkSignature(r *http.Request, body []byte, s *signing) *apiError {
	date, scope, signed := s.date, s.scope, s.signed
	canonical := canonicalRequest(r, signed, body)
	sum := sha256.Sum256([]byte(canonical))
	stringToSign := sigAlgorithm + "\n" + date.Format(amzDateForm) + "\n" + strings.Join(scope[1:], "/") + "\n" + hex.EncodeToString(sum[:])
	key := []byte("AWS4" + v.Credentials.SecretAccessKey)
	for _, part := range scope[1:] {
		key = hmacSHA256(key, part)
	}
	want := hex.EncodeToString(hmacSHA256(key, stringToSign))
	if !hmac.Equal([]byte(want), []byte(s.sig)) {
		return authError(errInvalidSignature, "The request signature we calculated does not match the signature you provided. "+
			"Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\n"+
			"The Canonical String for this request should have been\n'"+canonical+"'\n\n"+
			"The String-to-Sign should have been\n'"+stringToSign+"'\n")
	}
	if r.Header.Get("X-Amz-Security-Token") != "" {
		return authError(errUnrecognizedClient, "The security token included in the request is invalid")
	}
	return nil
}

// parseAuthorization splits "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
// Signature=..." into the algorithm and its parameters; the parameters may
// be separated by commas, spaces or both.
func parseAuthorization(auth string) (algorithm string, params map[string]string) {
	algorithm, rest, _ := strings.Cut(auth, " ")
	params = map[string]string{}
	for _, part := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' }) {
		if k, v, ok := strings.Cut(part, "="); ok {
			params[k] = v
		}
	}
	return algorithm, params
}

// validRegion accepts region names of AWS's shape and the names local tools
// use ("localhost", "local"): letters, digits and dashes.
func validRegion(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// canonicalRequest is SigV4's canonical form of r with the given signed
// headers (as the Authorization header lists them) and body.
func canonicalRequest(r *http.Request, signed []string, body []byte) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(uriEncode(path, false))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.Query()))
	b.WriteByte('\n')
	for _, name := range signed {
		b.WriteString(strings.ToLower(name))
		b.WriteByte(':')
		b.WriteString(strings.Join(headerValues(r, name), ","))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	sum := sha256.Sum256(body)
	b.WriteString(hex.EncodeToString(sum[:]))
	return b.String()
}

// headerValues are the trimmed values of header name as the client sent
// them; net/http keeps Host, Content-Length and Transfer-Encoding out of
// r.Header.
func headerValues(r *http.Request, name string) []string {
	var vals []string
	switch strings.ToLower(name) {
	case "host":
		vals = []string{r.Host}
	case "content-length":
		if r.ContentLength >= 0 {
			vals = []string{strconv.FormatInt(r.ContentLength, 10)}
		}
	case "transfer-encoding":
		vals = r.TransferEncoding
	default:
		vals = r.Header.Values(name)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return out
}

// canonicalQuery encodes each name and value, then sorts the pairs.
func canonicalQuery(q url.Values) string {
	var pairs [][2]string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, [2]string{uriEncode(k, true), uriEncode(v, true)})
		}
	}
	slices.SortFunc(pairs, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p[0] + "=" + p[1]
	}
	return strings.Join(out, "&")
}

// uriEncode percent-encodes every byte but the unreserved ones (and '/'
// unless encodeSlash), as SigV4 requires.
func uriEncode(s string, encodeSlash bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && !encodeSlash {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
