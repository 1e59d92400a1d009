package cmd

import (
	"bufio"
	"fmt"
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
	path string
	f    *os.File
}

func journalPath(key string) string { return filepath.Join(journalDir, key[:32]+".journal") }

// journalState is what an earlier run of an import recorded.
type journalState struct {
	found bool
	done  int // chunks written from the start
	// fresh: whether the relation had no edge when that run began
	// (ops.FreshUnknown when it did not get as far as looking).
	fresh ops.Freshness
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
		}
	}
	if len(head) < 3 || head[0] != journalMagic || head[1] != "key "+key || head[2] != fmt.Sprintf("chunk-rows %d", chunkRows) {
		return journalState{}
	}
	st.found = true
	return st
}

// createJournal starts a journal for key (replacing any earlier one).
func createJournal(key string, chunkRows int) (*importJournal, error) {
	if err := os.MkdirAll(journalDir, 0o700); err != nil {
		return nil, fmt.Errorf("create import journal: %w", err)
	}
	path := journalPath(key)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create import journal: %w", err)
	}
	if _, err := fmt.Fprintf(f, "%s\nkey %s\nchunk-rows %d\n", journalMagic, key, chunkRows); err != nil {
		f.Close()
		return nil, fmt.Errorf("write import journal %s: %w", path, err)
	}
	return &importJournal{path: path, f: f}, nil
}

// done records that the first n chunks are written. A kill loses nothing
// the kernel was handed; a failed write only makes a resume redo chunks.
func (j *importJournal) done(n int) {
	fmt.Fprintf(j.f, "done %d\n", n)
}

// freshness records whether the relation had edges before the first run:
// a resumed run cannot tell any more, its first run's edges being there.
func (j *importJournal) freshness(fresh bool) {
	fmt.Fprintf(j.f, "fresh %t\n", fresh)
}

// close ends the journal; with finished the import is complete and the
// journal is removed.
func (j *importJournal) close(finished bool) {
	j.f.Close()
	if finished {
		os.Remove(j.path)
	}
}
