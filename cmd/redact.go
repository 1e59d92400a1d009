package cmd

import (
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Nothing adjl prints carries a credential: not its own messages, not an
// error a backend sent back (a server may echo the request's Authorization
// header or session token), not --verbose or --debug lines. Everything
// written to stdout and stderr goes through a redactingWriter, which
// replaces the credential values this run holds (from the environment and
// from every credentials provider the SDK asked) and anything shaped like
// a signature, a credential scope, a session token header or a credentials
// file line.

// redacted replaces what is hidden.
const redacted = "[REDACTED]"

// minSecretLen keeps short placeholder values ("test", what CI scripts and
// local servers use) out of the redaction: hiding every "test" in the
// output would hide the user's data, not a secret. Real access key ids are
// 16 characters or more; secrets and tokens are longer.
const minSecretLen = 12

// credentialEnv are the environment variables that may hold credentials.
var credentialEnv = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
	envServeKeyID, envServeSecret}

// shape is a pattern of credentials in text, and the words (lower case)
// without one of which the pattern cannot match: most output holds none,
// and a substring search is far cheaper than the pattern.
type shape struct {
	re    *regexp.Regexp
	words []string
}

var (
	// credentialShapes hide what follows "Signature=", "Credential=" and a
	// session token header, on stdout and stderr.
	credentialShapes = shape{regexp.MustCompile(`(?i)(signature=)[0-9a-f]{16,}|(credential=)[^/\s,'"]+|(x-amz-security-token["']?\s*[:=]\s*["']?)[^\s,;'"&]+`),
		[]string{"signature=", "credential=", "x-amz-security-token"}}
	// errorShapes are hidden on stderr too: credentials file lines, and
	// access key ids by their prefix.
	errorShapes = shape{regexp.MustCompile(`(?i)(aws_(?:secret_access_key|session_token|security_token|access_key_id)["']?\s*[:=]\s*["']?)[^\s,;'"]+|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
		[]string{"aws_", "akia", "asia"}}
)

// secrets are the credential values of one run.
type secrets struct {
	mu     sync.Mutex
	values []string // longest first, so a value inside another is not half hidden
}

// add records values worth hiding.
func (s *secrets) add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) >= minSecretLen && !slices.Contains(s.values, v) {
			s.values = append(s.values, v)
		}
	}
	slices.SortFunc(s.values, func(a, b string) int { return len(b) - len(a) })
}

// fromEnv records the credentials of the environment.
func (s *secrets) fromEnv(getenv func(string) (string, bool)) {
	for _, name := range credentialEnv {
		s.add(envValue(getenv, name))
	}
}

// redact hides the recorded values in text and, with shapes, what looks
// like a credential.
func (s *secrets) redact(text string, shapes ...shape) string {
	s.mu.Lock()
	values := s.values
	s.mu.Unlock()
	for _, v := range values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, redacted)
		}
	}
	lower := ""
	for _, sh := range shapes {
		if lower == "" {
			lower = strings.ToLower(text)
		}
		if !slices.ContainsFunc(sh.words, func(w string) bool { return strings.Contains(lower, w) }) {
			continue
		}
		text = sh.re.ReplaceAllStringFunc(text, func(m string) string {
			for _, g := range sh.re.FindStringSubmatch(m)[1:] {
				if g != "" {
					return g + redacted // keep the label ("Signature=")
				}
			}
			return redacted
		})
		lower = ""
	}
	return text
}

// redactingWriter hides secrets in each write it passes on (each write is
// redacted as a whole: adjl writes a message or a row at a time).
type redactingWriter struct {
	w      io.Writer
	s      *secrets
	shapes []shape
}

func (r redactingWriter) Write(p []byte) (int, error) {
	out := r.s.redact(string(p), r.shapes...)
	if _, err := io.WriteString(r.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unredacted is the writer under a redactingWriter: a program that drives
// the terminal itself (browse) needs the terminal's file, not a writer.
// Its request log is redacted on its way in (clientOptions).
func unredacted(w io.Writer) io.Writer {
	if r, ok := w.(redactingWriter); ok {
		w = r.w
	}
	if s, ok := w.(stdoutWriter); ok {
		w = s.w
	}
	return w
}

// recordingProvider records the credentials the SDK retrieves.
type recordingProvider struct {
	p aws.CredentialsProvider
	s *secrets
}

// Retrieve asks the wrapped provider; a failure is a *credentialsError, so
// that it is reported as credentials missing (exit 6), not as a bug.
func (r recordingProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := r.p.Retrieve(ctx)
	if err != nil {
		return c, &credentialsError{err: err}
	}
	r.s.add(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)
	return c, nil
}

// recordOption is a DynamoDB client option that records the client's
// credentials in s as they are retrieved. Anonymous credentials (the
// in-process engine's: requests go unsigned) have none and stay as they
// are, so that the SDK still knows not to sign.
func (s *secrets) recordOption(o *dynamodb.Options) {
	if o.Credentials != nil && !aws.IsCredentialsProvider(o.Credentials, aws.AnonymousCredentials{}) {
		o.Credentials = recordingProvider{p: o.Credentials, s: s}
	}
}
