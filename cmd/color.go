package cmd

import (
	"slices"
	"strconv"
)

// ANSI sequences for the little colour adjl uses: bold table headers, a red
// "adjl:" before an error and a yellow "hint:" before its hint.
const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// paint wraps s in an ANSI sequence when on.
func paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return code + s + ansiReset
}

// colorAllowed reports whether the user lets adjl colour its output:
// NO_COLOR (any non-empty value, no-color.org), TERM=dumb, --no-color and
// ADJL_NO_COLOR turn colour off. Before the settings are resolved (an error
// in them) the command line and environment are read directly.
func (a *app) colorAllowed() bool {
	if v, _ := a.getenv("NO_COLOR"); v != "" {
		return false
	}
	if v, _ := a.getenv("TERM"); v == "dumb" {
		return false
	}
	if a.set != nil {
		return !a.set.NoColor
	}
	if slices.Contains(a.args, "--no-color") || slices.Contains(a.args, "--no-color=true") {
		return false
	}
	// A value that is not a boolean is refused with an error, which prints
	// without colour: whoever set it meant to turn colour off.
	v, _ := a.getenv("ADJL_NO_COLOR")
	off, err := strconv.ParseBool(v)
	return v == "" || (err == nil && !off)
}

// setColor decides, once, whether stdout and stderr take colour.
func (a *app) setColor() {
	allowed := a.colorAllowed()
	a.io.Color = allowed && a.io.OutTTY
	a.io.ErrColor = allowed && a.io.ErrTTY
}
