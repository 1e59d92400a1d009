package cmd

import (
	"strings"
	"testing"
)

// TestColorOnlyOnTerminalsThatAllowIt: bold headers and coloured error
// prefixes on a terminal; none when piped, with NO_COLOR, --no-color,
// ADJL_NO_COLOR or TERM=dumb.
func TestColorOnlyOnTerminalsThatAllowIt(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		tty  bool
		want bool
	}{
		{"terminal", nil, nil, true, true},
		{"piped", nil, nil, false, false},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, nil, true, false},
		{"--no-color", nil, []string{"--no-color"}, true, false},
		{"ADJL_NO_COLOR", map[string]string{"ADJL_NO_COLOR": "true"}, nil, true, false},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, nil, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("NO_COLOR", "")
			t.Setenv("TERM", "xterm-256color")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			r := adjl(t, runOpts{tty: c.tty, errTTY: c.tty}, append(c.args, "config", "show")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			if got := strings.HasPrefix(r.out, ansiBold+"SETTING"); got != c.want {
				t.Errorf("bold header = %v, want %v:\n%q", got, c.want, r.out)
			}
			if !c.want && strings.Contains(r.out, "\x1b[") {
				t.Errorf("escape sequence in uncoloured output: %q", r.out)
			}
			r = adjl(t, runOpts{tty: c.tty, errTTY: c.tty}, append(c.args, "get")...)
			wantErr := "adjl: "
			if c.want {
				wantErr = ansiRed + "adjl:" + ansiReset + " "
			}
			if !strings.HasPrefix(r.err, wantErr) || strings.Contains(r.err, "\x1b[") != c.want {
				t.Errorf("error = %q, want prefix %q", r.err, wantErr)
			}
			if c.want && !strings.Contains(r.err, ansiYellow+"hint:"+ansiReset+" ") {
				t.Errorf("hint prefix not coloured: %q", r.err)
			}
		})
	}
}

// TestRefusedNoColorVariablePrintsWithoutColor: ADJL_NO_COLOR=yes is refused
// (it is not a boolean), and the refusal itself is not coloured: whoever set
// it meant colour off.
func TestRefusedNoColorVariablePrintsWithoutColor(t *testing.T) {
	isolate(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("ADJL_NO_COLOR", "yes")
	r := adjl(t, runOpts{tty: true, errTTY: true}, "config", "show")
	if r.code != ExitUsage || !strings.HasPrefix(r.err, "adjl: invalid no-color value") || strings.Contains(r.err, "\x1b[") {
		t.Errorf("exit %d, stderr %q; want 2 and an uncoloured refusal", r.code, r.err)
	}
}
