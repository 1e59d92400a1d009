package cmd

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams carries stdin/stdout/stderr and whether stdout is a terminal, so
// commands choose headers and layout without touching os directly and tests
// can pretend to be a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY reports whether Out is a terminal: tables get headers and borders
	// there, and tab-separated rows without a header when piped.
	OutTTY bool
}

// NewIOStreams wraps the given streams and detects a terminal on out.
func NewIOStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	return &IOStreams{In: in, Out: out, ErrOut: errOut, OutTTY: isTerminal(out)}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
