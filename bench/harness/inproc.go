//go:build !nolocal

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"

	"time"

	"github.com/adjl/adjl/local"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// engineLinked reports whether this harness was built with the engine.
const engineLinked = true

// startAdjlInProcess serves an in-memory engine from this process on a
// loopback port: the fallback before `adjl local serve` exists. It shares
// the harness's CPU with the load generator exactly as a separate process would.
func startAdjlInProcess(_ context.Context) (*target, error) {
	eng, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		return nil, fmt.Errorf("open in-memory engine: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: eng}
	go srv.Serve(l)
	return &target{
		Name:     "adjl",
		Endpoint: "http://" + l.Addr().String(),
		Detail:   "engine in the harness process (http.Server on loopback; `adjl local serve` not available)",
		stop: func() error {
			srv.Close()
			return eng.Close()
		},
	}, nil
}

// engineIngest measures BatchWriteItem ingest through the engine's in-process
// HTTPClient, on a data file in dir (durable, as the default backend) or in
// memory. For a data file the timed region ends when Close returns — every
// item is then in the bbolt file itself — and the check reopens the file.
func engineIngest(ctx context.Context, dir string, inMemory bool, n, workers int) (ingestResult, error) {
	path := ""
	if !inMemory {
		path = filepath.Join(dir, "engine.db")
	}
	eng, err := local.Open(path, local.Options{InMemory: inMemory})
	if err != nil {
		return ingestResult{}, fmt.Errorf("open engine: %w", err)
	}
	defer func() { eng.Close() }()
	finish, reopen := func() error { return nil }, func() (*http.Client, error) { return eng.HTTPClient(), nil }
	if !inMemory {
		finish = eng.Close
		reopen = func() (*http.Client, error) {
			if eng, err = local.Open(path, local.Options{}); err != nil {
				return nil, fmt.Errorf("reopen engine: %w", err)
			}
			return eng.HTTPClient(), nil
		}
	}
	return ingestEdges(ctx, eng.HTTPClient(), n, workers, finish, reopen)
}

// enginePaging runs benchPaging on a fresh in-memory engine in this process.
func enginePaging(ctx context.Context, n int, stderr io.Writer) (pagingResult, error) {
	eng, err := local.Open("", local.Options{InMemory: true})
	if err != nil {
		return pagingResult{}, fmt.Errorf("open engine: %w", err)
	}
	defer eng.Close()
	return benchPaging(ctx, eng.HTTPClient(), n, stderr)
}

// engineFileLoad writes items 0..n-1 into table of the data file with a
// hand-written loop of parallel BatchWriteItem calls through the engine in
// this process, as `adjl import` reaches it, and returns the time from open
// to close (the close folds the log into the file, as adjl's exit does).
func engineFileLoad(ctx context.Context, dataFile, table string, n, workers int, item func(i int) map[string]types.AttributeValue) (time.Duration, error) {
	start := time.Now()
	eng, err := local.Open(dataFile, local.Options{})
	if err != nil {
		return 0, err
	}
	err = writeBatches(ctx, newInProcessClient(eng.HTTPClient()), table, n, workers, item)
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	return time.Since(start), err
}
