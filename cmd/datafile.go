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
	"strings"
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
}

// serveRecordPath is where the record of the server holding data lives:
// beside the file, like its write-ahead logs (data.db-wal0).
func serveRecordPath(data string) string { return data + "-serve.json" }

// writeServeRecord records that this process serves data at url.
func writeServeRecord(data, url string) error {
	b, err := json.Marshal(serveRecord{URL: url, PID: os.Getpid()})
	if err != nil {
		return err
	}
	return os.WriteFile(serveRecordPath(data), append(b, '\n'), 0o600)
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

// runningServer returns the URL of the `adjl local serve` holding data, if
// its record names a server that answers as one. A record left by a killed
// server names nobody and is ignored.
func runningServer(ctx context.Context, data string) (string, bool) {
	r, ok := readServeRecord(data)
	if !ok || !processAlive(r.PID) {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(r.URL, "/")+"/", nil)
	if err != nil {
		return "", false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), serveBanner) {
		return "", false
	}
	return r.URL, true
}

// dataFileExists reports whether path names an existing data file.
func dataFileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// noticeWhileLocked prints, once, that the command is waiting for another
// process's data file if opening it takes over a second and the file is
// locked by someone else. The returned stop ends the watch, and waits for a
// notice being written, so nothing writes to w after it returns.
func noticeWhileLocked(w io.Writer, path string) (stop func()) {
	done := make(chan struct{})
	t := time.AfterFunc(time.Second, func() {
		defer close(done)
		if lockedByAnother(path) {
			fmt.Fprintf(w, "adjl: waiting for data file %s: another adjl process is using it (run `adjl local serve` to share one engine)\n", path)
		}
	})
	return func() {
		if !t.Stop() {
			<-done
		}
	}
}
