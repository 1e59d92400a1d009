package cmd

import (
	"bufio"
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
	// ErrTTY reports whether ErrOut is a terminal.
	ErrTTY bool
	// Color and ErrColor: Out and ErrOut take colour - a terminal, and
	// neither NO_COLOR nor --no-color (set once the settings are known).
	Color, ErrColor bool

	buffered *bufio.Writer // Out when piped, so a long list is not a write per row
}

// Flush writes buffered output; commands that block (local serve) call it
// before waiting, and Main calls it before exiting.
func (s *IOStreams) Flush() error {
	if s.buffered == nil {
		return nil
	}
	return s.buffered.Flush()
}

// NewIOStreams wraps the given streams and detects a terminal on out.
// Output that is not a terminal is buffered; call Flush before exiting.
func NewIOStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: stdoutWriter{out}, ErrOut: errOut, OutTTY: isTerminal(out), ErrTTY: isTerminal(errOut)}
	if !s.OutTTY {
		s.buffered = bufio.NewWriterSize(s.Out, 64<<10)
		s.Out = s.buffered
	}
	return s
}

// stdoutWriter marks a failed write to stdout as an outputError, whichever
// layer (a row, a buffer flush) it surfaces in, so it gets its exit code.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = &outputError{err: err}
	}
	return n, err
}

// isTerminal reports whether w is a terminal (through the redacting
// writer adjl puts over its streams).
func isTerminal(w io.Writer) bool {
	f, ok := unredacted(w).(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
