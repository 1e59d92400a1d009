package cmd

import (
	"sync"

	"github.com/adjl/adjl/ops"
	"github.com/aws/smithy-go"
)

// failingAPI answers every request with the same error and records which
// operations were called, to test how each error class is reported.
type failingAPI struct {
	refusingAPI
	err error
	mu  sync.Mutex
	ops []string
}

func newFailingAPI(err error) *failingAPI {
	f := &failingAPI{err: err}
	f.refusingAPI = refusingAPI{refuse: f.called}
	return f
}

func apiError(code, msg string) error {
	return &smithy.GenericAPIError{Code: code, Message: msg}
}

func (f *failingAPI) called(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, op)
	return f.err
}

var _ ops.API = (*failingAPI)(nil)
