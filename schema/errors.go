package schema

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a schema file, located precisely so an editor can
// jump to it: Error() is "file:line:col: msg".
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in one schema file, in file order, so the
// user can fix them all in one pass instead of one per run.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each *Error, so errors.As(err, &e) with e *Error finds the
// first problem whether Parse returned one error or several.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// IsInvalid reports whether err (or anything it wraps) says the schema file
// is invalid, as opposed to unreadable; the CLI maps it to exit code 3.
func IsInvalid(err error) bool {
	var e *Error
	var es Errors
	return errors.As(err, &e) || errors.As(err, &es)
}

// InputError is a bad command-line value (a --set pair, an unknown key
// prefix) caught before any request is sent; the CLI maps it to exit code 2.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// collect gathers problems while a schema is walked.
type collect struct {
	file string
	errs Errors
}

func (c *collect) addf(line, col int, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// result returns nil, the single *Error, or all of them sorted by position
// (duplicates removed: one cause may be reached twice).
func (c *collect) result() error {
	if len(c.errs) == 0 {
		return nil
	}
	sort.SliceStable(c.errs, func(i, j int) bool {
		a, b := c.errs[i], c.errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	out := c.errs[:0:0]
	for i, e := range c.errs {
		if i > 0 && *e == *c.errs[i-1] {
			continue
		}
		out = append(out, e)
	}
	if len(out) == 1 {
		return out[0]
	}
	if len(out) > maxProblems {
		last := out[maxProblems-1]
		out = append(out[:maxProblems], &Error{File: c.file, Line: last.Line, Col: last.Col,
			Msg: fmt.Sprintf("and %d more problems after this line; fix these first", len(out)-maxProblems)})
	}
	return out
}

// maxProblems bounds the problems reported for one file: past it, more
// lines help no one (a file of thousands of errors is the wrong file).
const maxProblems = 100
