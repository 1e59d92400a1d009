package english

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "lines", 1: "line", 2: "lines", -1: "lines"} {
		if got := Plural(n, "line", "lines"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
