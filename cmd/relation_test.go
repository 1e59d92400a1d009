package cmd

import "testing"

// TestRequireEntitiesAcceptsAnItemALinkCreated: --require-entities checks
// that the entity items exist, and the item a plain link created to hold a
// counter is one (it stays after the unlink); a key with no item is refused.
func TestRequireEntitiesAcceptsAnItemALinkCreated(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204")
	s.ok("unenroll", "a91", "math204")
	if r := s.run("enroll", "a91", "math204", "--require-entities"); r.code != 0 {
		t.Errorf("counter items only: exit %d, %s", r.code, r.err)
	}
	if r := s.run("enroll", "b22", "math204", "--require-entities"); r.code != ExitFalse {
		t.Errorf("no item for STU#b22: exit %d, want 1: %s", r.code, r.err)
	}
}

// TestEmptyCursorIsTheFirstPage: --cursor "" (a script's loop before its
// first page) is no cursor.
func TestEmptyCursorIsTheFirstPage(t *testing.T) {
	s := newSession(t, "school.yaml")
	s.ok("table", "create")
	s.ok("enroll", "a91", "math204")
	s.ok("enroll", "a92", "math204")
	first := s.ok("members", "math204", "--limit", "1")
	if got := s.ok("members", "math204", "--limit", "1", "--cursor", ""); got != first || first == "" {
		t.Errorf("--cursor \"\": %q, want the first page %q", got, first)
	}
}
