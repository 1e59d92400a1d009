package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/adjl/adjl/rowfile"
	"github.com/spf13/cobra"
)

// importInput is the file an import reads twice: once to check every line,
// once to write. Standard input is copied to a temporary file first.
type importInput struct {
	name   string // as errors quote it
	path   string
	format rowfile.Format
	temp   bool
	size   int64
	mtime  time.Time
}

func (in *importInput) open() (*os.File, error) {
	f, err := os.Open(in.path)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("cannot read %s: %w", in.name, unwrapPath(err))}
	}
	return f, nil
}

func (a *app) importInputOf(c *cobra.Command, file, format string) (*importInput, error) {
	in := &importInput{name: file, path: file}
	if format != "" {
		f, err := rowfile.ParseFormat(format)
		if err != nil {
			return nil, usagef(c, "--format: %v", err)
		}
		in.format = f
	} else if f, ok := rowfile.FormatOf(file); ok {
		in.format = f
	} else if file == "-" {
		return nil, usagef(c, "give --format csv or --format ndjson to read stdin")
	} else {
		return nil, usagef(c, "cannot tell the format of %s from its name: give --format csv or --format ndjson", file)
	}
	if file == "-" {
		in.name = "stdin"
		tmp, err := os.CreateTemp("", "adjl-import-*")
		if err != nil {
			return nil, fmt.Errorf("spool stdin: %w", err)
		}
		in.path, in.temp = tmp.Name(), true
		_, err = io.Copy(tmp, a.io.In)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(in.path)
			return nil, fmt.Errorf("spool stdin: %w", err)
		}
	}
	st, err := os.Stat(in.path)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("cannot read %s: %w", in.name, unwrapPath(err))}
	}
	if st.IsDir() {
		return nil, usagef(c, "%s is a directory; give a CSV or NDJSON file", in.name)
	}
	in.size, in.mtime = st.Size(), st.ModTime()
	return in, nil
}

// checkResult is what the checking pass found.
type checkResult struct {
	rows, bad int
	took      time.Duration
	hash      string // sha256 of the input's bytes
	header    string // CSV header, for the rejects file
}

// checkInput reads the whole input once: counts the rows, prints every bad
// line (up to maxErrors) and, with a rejects file, copies the bad lines to it.
func (a *app) checkInput(in *importInput, t rowfile.Target, o importOpts) (*checkResult, error) {
	f, err := in.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	r, err := rowfile.NewReader(io.TeeReader(f, h), in.name, in.format, t)
	if err != nil {
		return nil, lineErr(err)
	}
	res := &checkResult{header: r.Header()}
	var rejects *os.File
	if o.rejects != "" && o.skipInvalid {
		if rejects, err = os.Create(o.rejects); err != nil {
			return nil, &usageError{err: fmt.Errorf("cannot write --rejects %s: %w", o.rejects, unwrapPath(err))}
		}
		defer rejects.Close()
		if res.header != "" {
			fmt.Fprintln(rejects, res.header)
		}
	}
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *rowfile.LineError
		if err != nil && (!errors.As(err, &le) || le.Fatal) {
			return nil, lineErr(err)
		}
		if err != nil {
			res.bad++
			if res.bad <= o.maxErrors {
				fmt.Fprintln(a.io.ErrOut, le.Error())
			}
			if rejects != nil {
				fmt.Fprintln(rejects, le.Raw)
			}
			continue
		}
		res.rows++
	}
	if res.bad > o.maxErrors {
		fmt.Fprintf(a.io.ErrOut, "... and %d more invalid %s (--max-errors %d)\n", res.bad-o.maxErrors, plural(res.bad-o.maxErrors, "line", "lines"), o.maxErrors)
	}
	io.Copy(h, f) // a fatal error stops early; hash whatever follows too
	res.hash = hex.EncodeToString(h.Sum(nil))
	return res, nil
}

// lineErr makes a fatal file error (a bad header) an input error, exit 2.
func lineErr(err error) error {
	var le *rowfile.LineError
	if errors.As(err, &le) {
		return &usageError{err: le, hint: "fix the file (see 'adjl import --help' for its format)"}
	}
	return err
}

// importKey names an import for its journal: everything that decides what
// it writes.
func (a *app) importKey(t rowfile.Target, in *importInput, res *checkResult, o importOpts) string {
	data := a.set.Data
	if abs, err := filepath.Abs(data); err == nil {
		data = abs
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00%t\x00%s\x00%s\x00%s\x00%s", res.hash, t.Name(), in.format, o.unlink, o.skipInvalid,
		a.sch.Table.Name, a.set.Endpoint, data, a.set.Region)
	return hex.EncodeToString(h.Sum(nil))
}
