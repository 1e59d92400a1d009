package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/adjl/adjl/ops"
)

// journalDir holds the progress journals of imports, under the working
// directory like the embedded engine's default data file.
var journalDir = filepath.Join(".adjl", "imports")

const journalMagic = "adjl import journal 1"

// importJournal records how many row chunks of an import are written, so
// that `adjl import --resume` after an interrupted run skips them. It is
// named by a key that hashes everything that decides what the import
// writes (the input's bytes, NAME, --unlink, --skip-invalid, the table and
// the backend), so a journal is only ever used for the same import. Lines
// are appended as chunks complete; a torn last line (a kill mid-write) is
// ignored, which at worst makes a resume write one chunk again.
type importJournal struct {
	path, key string
	chunkRows int
	f         *os.File // nil until the first record
	made      []string // directories create made, innermost first
	err       error    // why the journal could not be created
}

func journalPath(key string) string { return filepath.Join(journalDir, key[:32]+".journal") }

// journalState is what an earlier run of an import recorded.
type journalState struct {
	found bool
	done  int // chunks written from the start
	// fresh: whether the relation had no edge when that run began
	// (ops.FreshUnknown when it did not get as far as looking).
	fresh ops.Freshness
	// counting: a run began on the counters (ops.ImportOptions.CountedBefore).
	counting bool
}

// readJournal returns what an earlier run recorded, if a journal for key
// exists with the same chunk size.
func readJournal(key string, chunkRows int) journalState {
	var st journalState
	f, err := os.Open(journalPath(key))
	if err != nil {
		return st
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var head []string
	for sc.Scan() {
		line := sc.Text()
		if len(head) < 3 {
			head = append(head, line)
			continue
		}
		if n, ok := strings.CutPrefix(line, "done "); ok {
			if v, err := strconv.Atoi(n); err == nil && v >= st.done {
				st.done = v
			}
		}
		switch line {
		case "fresh true":
			st.fresh = ops.FreshYes
		case "fresh false":
			st.fresh = ops.FreshNo
		case "counting":
			st.counting = true
		}
	}
	if len(head) < 3 || head[0] != journalMagic || head[1] != "key "+key || head[2] != fmt.Sprintf("chunk-rows %d", chunkRows) {
		return journalState{}
	}
	st.found = true
	return st
}

// newJournal is the journal of the import named by key, replacing any
// earlier one. Nothing is on disk until it records something, so an import
// that fails before it begins leaves no file and no directory behind.
func newJournal(key string, chunkRows int) *importJournal {
	return &importJournal{path: journalPath(key), key: key, chunkRows: chunkRows}
}

// create makes the journal file, and the directories it is in, noting the
// directories it made.
func (j *importJournal) create() error {
	for d := filepath.Dir(j.path); d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		j.made = append(j.made, d)
	}
	if err := os.MkdirAll(filepath.Dir(j.path), 0o700); err != nil {
		return fmt.Errorf("create import journal: %w", err)
	}
	f, err := os.OpenFile(j.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create import journal: %w", err)
	}
	j.f = f
	if _, err := fmt.Fprintf(f, "%s\nkey %s\nchunk-rows %d\n", journalMagic, j.key, j.chunkRows); err != nil {
		return fmt.Errorf("write import journal %s: %w", j.path, err)
	}
	return nil
}

// record appends a line, creating the journal first. A journal that cannot
// be created is noted once (err) and the import goes on: it does not need
// it, a rerun is still exact.
func (j *importJournal) record(format string, args ...any) {
	if j.f == nil && j.err == nil {
		j.err = j.create()
	}
	if j.f != nil {
		fmt.Fprintf(j.f, format, args...)
	}
}

// done records that the first n chunks are written. A kill loses nothing
// the kernel was handed; a failed write only makes a resume redo chunks.
func (j *importJournal) done(n int) { j.record("done %d\n", n) }

// freshness records whether the relation had edges before the first run:
// a resumed run cannot tell any more, its first run's edges being there.
func (j *importJournal) freshness(fresh bool) { j.record("fresh %t\n", fresh) }

// counting records that a run began on the counters: a later run finds
// those it corrected already exact (see ops.ImportOptions.CountedBefore).
func (j *importJournal) counting() { j.record("counting\n") }

// journalEnd is how an import run ended, for its journal.
type journalEnd int

const (
	// journalFinished: the import is complete; the journal goes.
	journalFinished journalEnd = iota
	// journalUnused: the run failed before anything was written, by it or
	// by an earlier run; the journal goes with the directories it made.
	journalUnused
	// journalInterrupted: rows were written; the journal stays for --resume.
	journalInterrupted
)

// close ends the journal.
func (j *importJournal) close(end journalEnd) {
	if j.f != nil {
		j.f.Close()
	}
	switch end {
	case journalFinished:
		os.Remove(j.path)
	case journalUnused:
		os.Remove(j.path)
		for _, d := range j.made {
			os.Remove(d) // only if empty: another import may have put its journal there
		}
	}
}
