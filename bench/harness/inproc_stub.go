//go:build nolocal

package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// engineLinked reports whether this harness was built with the engine; the
// nolocal tag lets the harness measure the references while local/ does not build.
const engineLinked = false

var errNoEngine = errors.New("harness built with -tags nolocal")

func startAdjlInProcess(context.Context) (*target, error) { return nil, errNoEngine }

func engineIngest(context.Context, string, bool, int, int) (ingestResult, error) {
	return ingestResult{}, errNoEngine
}

func enginePaging(context.Context, int, io.Writer) (pagingResult, error) {
	return pagingResult{}, errNoEngine
}

func engineFileLoad(context.Context, string, string, int, int, func(int) map[string]types.AttributeValue) (time.Duration, error) {
	return 0, errNoEngine
}
