package cmd

import (
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// engineHint notes whether a server at a URL is `adjl local serve`, adjl's
// engine: every answer of one carries servePIDHeader. Nothing is sent to find
// out; the answers the command gets anyway tell.
type engineHint struct{ seen atomic.Bool }

func (h *engineHint) clientOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Deserialize.Add(middleware.DeserializeMiddlewareFunc("adjl/engine-hint", h.handle), middleware.After)
	})
}

func (h *engineHint) handle(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if r, ok := out.RawResponse.(*smithyhttp.Response); ok && r.Header.Get(servePIDHeader) != "" {
		h.seen.Store(true)
	}
	return out, md, err
}

// servedByAdjl reports whether the backend is a server at a URL that has
// answered as `adjl local serve`.
func (b *backend) servedByAdjl() bool { return b.engine != nil && b.engine.seen.Load() }
