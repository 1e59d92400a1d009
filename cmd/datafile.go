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
	"strings"
	"sync"
	"time"
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

// writeServeRecord records that this process serves data at url. The
// record is written to a new file (mode 0600, like the data file) and
// renamed over any old one, so a reader never sees half of it and a record
// left with looser permissions is replaced, not reused.
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
	if _, err = f.Write(append(b, '\n')); err == nil {
		err = f.Close()
	} else {
		f.Close()
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

func readServeRecord(data string) (serveRecord, bool) {
	var r serveRecord
	b, err := os.ReadFile(serveRecordPath(data))
	if err != nil || json.Unmarshal(b, &r) != nil || r.URL == "" || !isURL(r.URL) {
		return r, false
	}
	return r, true
}

// serveBanner starts what the engine answers to GET /.
const serveBanner = "adjl local DynamoDB-compatible engine"

// runningServer returns the record of the `adjl local serve` holding data,
// if it names a server that answers as one. A record left by a killed
// server names nobody and is ignored.
func runningServer(ctx context.Context, data string) (serveRecord, bool) {
	r, ok := readServeRecord(data)
	if !ok || !processAlive(r.PID) {
		return r, false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
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
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), serveBanner) {
		return r, false
	}
	return r, true
}

// dataFileExists reports whether path names an existing data file.
func dataFileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// noticeWhileLocked prints, once, that the command is waiting for another
// process's data file if opening it takes over a second and the file is
// locked by someone else. The returned stop ends the watch; once it
// returns, the notice is written or never will be (w is the command's to
// use again).
func noticeWhileLocked(w io.Writer, path string) (stop func()) {
	var mu sync.Mutex
	stopped := false
	t := time.AfterFunc(time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped && lockedByAnother(path) {
			fmt.Fprintf(w, "adjl: waiting for data file %s: another adjl process is using it (run `adjl local serve` to share one engine)\n", path)
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
