package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/adjl/adjl/local"
)

// A data file is held by one process at a time. `adjl local serve` records
// its address beside the file it serves (serveRecordPath), so a command on
// the same --data talks to that server instead of waiting for the file;
// while another command holds the file, the waiting one says so.

// serveRecord is what `adjl local serve` writes beside its data file.
type serveRecord struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
	// Auth: the server requires requests signed with its key pair.
	Auth bool `json:"auth,omitempty"`
}

// serveRecordPath is where the record of the server holding data lives:
// beside the file, like its write-ahead logs (data.db-wal0).
func serveRecordPath(data string) string { return data + "-serve.json" }

// writeServeRecord records that this process serves data at url, in a new
// file readable by this user only that replaces any earlier record (whose
// owner and mode would otherwise stay).
func writeServeRecord(data, url string, auth bool) error {
	b, err := json.Marshal(serveRecord{URL: url, PID: os.Getpid(), Auth: auth})
	if err != nil {
		return err
	}
	path := serveRecordPath(data)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// removeServeRecord removes the record if it is still this process's.
func removeServeRecord(data string) {
	if r, ok := readServeRecord(data); ok && r.PID == os.Getpid() {
		os.Remove(serveRecordPath(data))
	}
}

// readServeRecord reads the record beside data. A record this user did
// not write, or that others could have rewritten, is no record: a command
// would send its data wherever it points.
func readServeRecord(data string) (serveRecord, bool) {
	var r serveRecord
	f, err := os.Open(serveRecordPath(data))
	if err != nil {
		return r, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !writtenByThisUserOnly(st) {
		return r, false
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil || json.Unmarshal(b, &r) != nil || r.URL == "" || !isURL(r.URL) {
		return r, false
	}
	return r, true
}

// servePIDHeader carries, on every answer of `adjl local serve`, the id of
// the serving process: a command checks it against the record's, so a
// record left by a killed server is not taken for another server started
// since on the same address (for another data file).
const servePIDHeader = "X-Adjl-Pid"

// withServePID marks h's answers with this process's id.
func withServePID(h http.Handler) http.Handler {
	pid := strconv.Itoa(os.Getpid())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(servePIDHeader, pid)
		h.ServeHTTP(w, r)
	})
}

// serveBanner starts what the engine answers to GET /.
const serveBanner = "adjl local DynamoDB-compatible engine"

// runningServer returns the record of the `adjl local serve` holding data,
// if it names a server that answers as one, and as the process that wrote
// the record. A record left by a killed server names nobody and is ignored.
func runningServer(ctx context.Context, data string) (serveRecord, bool) {
	r, ok := readServeRecord(data)
	if !ok || !processAlive(r.PID) {
		return r, false
	}
	// The recorded process is alive and holds the data file: if its server
	// is slow to answer (many clients, a loaded machine), opening the file
	// instead would only wait out the same lock and fail. So the probe
	// waits as long as a lock wait would; a server that is gone or another
	// program on its address answers at once.
	ctx, cancel := context.WithTimeout(ctx, local.DefaultLockTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(r.URL, "/")+"/", nil)
	if err != nil {
		return r, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return r, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), serveBanner) ||
		resp.Header.Get(servePIDHeader) != strconv.Itoa(r.PID) {
		return r, false
	}
	return r, true
}

// dataFileExists reports whether path names an existing data file.
func dataFileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// lockNoticeAfter is how long a command waits for another process's data
// file before saying that it waits.
const lockNoticeAfter = time.Second

// openDataFile opens a command's data file with open (openEngineWithin).
// When another process holds the file for over lockNoticeAfter, it says on
// w that it is waiting, once, then waits out the rest of the engine's lock
// timeout. The notice comes from the lock wait itself, so it is never
// printed once this process has the lock (an open still recovering its
// logs holds it) nor after the open has returned.
func openDataFile(w io.Writer, path string, open func(path string, lockTimeout time.Duration) (engine, error)) (engine, error) {
	e, err := open(path, lockNoticeAfter)
	var held *local.LockedError
	if !errors.As(err, &held) {
		return e, err
	}
	fmt.Fprintf(w, "adjl: waiting for data file %s: another adjl process is using it (run `adjl local serve` to share one engine)\n", path)
	e, err = open(path, local.DefaultLockTimeout-lockNoticeAfter)
	if errors.As(err, &held) {
		held.Timeout += lockNoticeAfter // the whole wait
	}
	return e, err
}
