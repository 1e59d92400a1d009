package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/rowfile"
	"github.com/spf13/cobra"
)

// importInput is the file an import reads twice: once to check every line,
// once to write. Standard input is copied to a temporary file first, which
// is unlinked at once where the system allows it (kept open), so that even
// a kill -9 leaves no copy behind.
type importInput struct {
	name   string // as errors quote it
	path   string // the file; for stdin's copy, "" once unlinked
	format rowfile.Format
	temp   *os.File // stdin's copy
	size   int64
	mtime  time.Time
}

// open opens the input for one pass; a file that has changed since it was
// first looked at (size or time) is refused, the check being of other bytes.
func (in *importInput) open() (io.ReadCloser, error) {
	if in.temp != nil {
		return io.NopCloser(io.NewSectionReader(in.temp, 0, in.size)), nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("cannot read %s: %w", in.name, unwrapPath(err))}
	}
	if fi, err := f.Stat(); err == nil && (fi.Size() != in.size || !fi.ModTime().Equal(in.mtime)) {
		f.Close()
		return nil, &usageError{err: fmt.Errorf("%s changed while it was being checked; nothing was written", in.name)}
	}
	return f, nil
}

// close lets go of stdin's copy.
func (in *importInput) close() {
	if in.temp != nil {
		in.temp.Close()
		if in.path != "" {
			os.Remove(in.path)
		}
	}
}

// stat is the input file's identity, to compare with --rejects.
func (in *importInput) stat() (os.FileInfo, error) {
	if in.temp != nil {
		return in.temp.Stat()
	}
	return os.Stat(in.path)
}

func (a *app) importInputOf(c *cobra.Command, file, format string) (*importInput, error) {
	in := &importInput{name: file, path: file}
	ext, extOK := rowfile.FormatOf(file)
	switch {
	case format != "":
		f, err := rowfile.ParseFormat(format)
		if err != nil {
			return nil, usagef(c, "--format: %v", err)
		}
		in.format = f
		if extOK && ext != f && file != "-" {
			// --format is how a misnamed file is read: a note, not a refusal.
			fmt.Fprintf(a.notes(), "note: reading %s as %s (--format %s), although its name says %s\n", file, formatWord(f), format, formatWord(ext))
		}
	case extOK:
		in.format = ext
	case file != "-":
		return nil, usagef(c, "cannot tell the format of %s from its name: give --format csv or --format ndjson", file)
	}
	if file == "-" {
		if err := in.spool(a.io.In); err != nil {
			return nil, err
		}
		if in.format == "" {
			in.format = sniffFormat(io.NewSectionReader(in.temp, 0, in.size))
		}
		return in, nil
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

// spool copies stdin to a temporary file, unlinked at once when the system
// allows (an open file cannot be removed on some), else removed by close.
func (in *importInput) spool(r io.Reader) error {
	in.name = "stdin"
	tmp, err := os.CreateTemp("", "adjl-import-*")
	if err != nil {
		return fmt.Errorf("spool stdin: %w", err)
	}
	in.temp, in.path = tmp, tmp.Name()
	if os.Remove(in.path) == nil {
		in.path = ""
	}
	n, err := io.Copy(tmp, r)
	if err != nil {
		in.close()
		return fmt.Errorf("spool stdin: %w", err)
	}
	in.size = n
	return nil
}

// sniffFormat tells the format of stdin given without --format by its
// first byte that is not blank (after a byte-order mark): '{' is NDJSON,
// anything else CSV, which is what adjl export writes without -o.
func sniffFormat(r io.Reader) rowfile.Format {
	b := make([]byte, 4096)
	n, _ := io.ReadFull(r, b)
	b = bytes.TrimLeft(bytes.TrimPrefix(b[:n], []byte("\ufeff")), " \t\r\n")
	if len(b) > 0 && b[0] == '{' {
		return rowfile.NDJSON
	}
	return rowfile.CSV
}

// writeReject copies a rejected row to a rejects file, one a line: its text
// as the reader kept it, or, for a line too long to have been kept, its
// bytes read again from the input.
func (in *importInput) writeReject(w io.Writer, le *rowfile.LineError) error {
	if le.RawSize == 0 {
		_, err := fmt.Fprintln(w, le.Raw)
		return err
	}
	var src io.ReaderAt = in.temp
	if in.temp == nil {
		f, err := os.Open(in.path)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	if _, err := io.Copy(w, io.NewSectionReader(src, le.RawOffset, le.RawSize)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func formatWord(f rowfile.Format) string {
	if f == rowfile.CSV {
		return "CSV"
	}
	return "NDJSON"
}

// checkResult is what the checking pass found.
type checkResult struct {
	rows, bad int
	took      time.Duration
	hash      string // sha256 of the input's bytes
	header    string // CSV header, for the rejects file
	// entities are the entity items an import into a relation with
	// requireEntities needs, in the order the file names them, and
	// entityLine the first line naming each.
	entities   []string
	entityLine map[string]int
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
	need := t.Relation
	if need == nil || !need.RequireEntities || o.unlink {
		need = nil
	} else {
		res.entityLine = map[string]int{}
	}
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
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *rowfile.LineError
		if err != nil && (!errors.As(err, &le) || le.Fatal) {
			if rejects != nil {
				// A file that cannot be imported has no rejects: a partial
				// list would read as the whole of them.
				rejects.Close()
				os.Remove(o.rejects)
			}
			return nil, lineErr(err)
		}
		if err != nil {
			res.bad++
			if res.bad <= o.maxErrors {
				fmt.Fprintln(a.io.ErrOut, le.Error())
			}
			if rejects != nil {
				if err := in.writeReject(rejects, le); err != nil {
					return nil, fmt.Errorf("write --rejects %s: %w", o.rejects, err)
				}
			}
			continue
		}
		res.rows++
		if need != nil {
			for _, k := range []string{need.From.EntityKey(row.From), need.To.EntityKey(row.To)} {
				if _, ok := res.entityLine[k]; !ok {
					res.entityLine[k] = row.Line
					res.entities = append(res.entities, k)
				}
			}
		}
	}
	if res.bad > o.maxErrors {
		fmt.Fprintf(a.io.ErrOut, "... and %d more invalid %s (--max-errors %d)\n", res.bad-o.maxErrors, english.Plural(res.bad-o.maxErrors, "line", "lines"), o.maxErrors)
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
