package dyntest

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
)

// wantItem fails unless got equals want (sets compared unordered).
func wantItem(t *testing.T, what string, got, want item) {
	t.Helper()
	if g, w := showItem(got), showItem(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, brief(g), brief(w))
	}
}

// wantItems fails unless the pages hold the same items in the same order.
func wantItems(t *testing.T, what string, got, want []item) {
	t.Helper()
	if g, w := showItems(got), showItems(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// apiCode returns the error code of a service error, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// apiMessage returns the message of a service error, or err's text.
func apiMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// wantAPIError fails unless err is a service error with code and, when the
// target's messages follow DynamoDB's, a message containing every fragment
// (case-insensitive). It reports whether the code matched.
func (s *suite) wantAPIError(t *testing.T, err error, code string, fragments ...string) bool {
	t.Helper()
	if err == nil {
		t.Errorf("want %s error, got success", code)
		return false
	}
	if got := apiCode(err); got != code {
		t.Errorf("want %s error, got %s: %v", code, got, err)
		return false
	}
	if s.quirks.Has(QuirkValidationMessages) {
		return true
	}
	msg := strings.ToLower(apiMessage(err))
	for _, f := range fragments {
		if !strings.Contains(msg, strings.ToLower(f)) {
			t.Errorf("%s message %q lacks %q", code, apiMessage(err), f)
		}
	}
	return true
}

// wantValidation is wantAPIError for the common ValidationException.
func (s *suite) wantValidation(t *testing.T, err error, fragments ...string) bool {
	t.Helper()
	return s.wantAPIError(t, err, "ValidationException", fragments...)
}

// refused is wantValidation for a refusal that quirk q (if set and held by
// the target) is known to skip or report differently.
func (s *suite) refused(t *testing.T, q Quirk, err error, fragments ...string) {
	t.Helper()
	if q != "" && s.quirks.Has(q) {
		s.documented(t, q, apiCode(err) == "ValidationException", "")
		return
	}
	s.wantValidation(t, err, fragments...)
}

// brief shortens a rendering for failure messages.
func brief(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// wantTyped fails unless err unwraps to the SDK's typed exception T.
func wantTyped[T error](t *testing.T, err error) (T, bool) {
	t.Helper()
	var target T
	if err == nil {
		t.Errorf("want %T, got success", target)
		return target, false
	}
	if !errors.As(err, &target) {
		t.Errorf("want %T, got %T: %v", target, err, err)
		return target, false
	}
	return target, true
}

// must fails the subtest now on an unexpected error.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// asErr is errors.As for inline conditions.
func asErr[T error](err error, target *T) bool { return errors.As(err, target) }
