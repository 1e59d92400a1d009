package expr

import (
	"strings"
	"testing"
)

func TestReservedWords(t *testing.T) {
	if n := len(strings.Fields(reservedList)); n != 573 || len(reserved) != 573 {
		t.Errorf("reserved list has %d words (%d distinct), want 573 as documented", n, len(reserved))
	}
	longest := 0
	for w := range reserved {
		longest = max(longest, len(w))
	}
	if longest > maxReservedLen {
		t.Errorf("maxReservedLen %d < longest word %d", maxReservedLen, longest)
	}
	for _, w := range []string{"status", "STATUS", "Status", "name", "size", "ttl", "data", "LocalTimestamp"} {
		if !IsReserved(w) {
			t.Errorf("%q should be reserved", w)
		}
	}
	for _, w := range []string{"pk", "grade", "enrolledOn", "statuses", "courseCount", ""} {
		if IsReserved(w) {
			t.Errorf("%q should not be reserved", w)
		}
	}
}
