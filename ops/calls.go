package ops

import (
	"context"
	"crypto/rand"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// The wrappers below are the only places requests leave the Store: each one
// honours Explain (hand over, send nothing, return an empty output), asks for
// and reports consumed capacity, and classifies errors.

func (s *Store) explaining() bool { return s.opt.Explain != nil }

func (s *Store) explain(op string, in any) { s.explainWhen(op, in, "") }

// explainWhen hands over a request that is sent only in the case when says.
func (s *Store) explainWhen(op string, in any, when string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.Explain(Request{Operation: op, Input: in, When: when})
}

func (s *Store) rcc() types.ReturnConsumedCapacity {
	if s.opt.Capacity != nil {
		return types.ReturnConsumedCapacityTotal
	}
	return ""
}

func (s *Store) report(op string, cc ...*types.ConsumedCapacity) {
	if s.opt.Capacity == nil {
		return
	}
	var list []types.ConsumedCapacity
	for _, c := range cc {
		if c != nil {
			list = append(list, *c)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.Capacity(op, list)
}

// reportAnswered counts a request the backend answered with an error (a
// condition that failed, a cancelled transaction): it was sent, though the
// error carries no consumed capacity.
func (s *Store) reportAnswered(op string, err error) {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		s.report(op)
	}
}

// funnel is what each wrapper does: under Explain it hands in over and
// returns an empty output; otherwise it sends in, reports the capacity the
// answer says was consumed (or, for an error the backend answered, that the
// request was sent) and classifies the error. A wrapper adds what is its
// own: asking for capacity in its input type, and reading it from its output.
// send is a method expression (API.GetItem), so that the API is touched only
// when the request is really sent: an explaining Store may have none.
func funnel[In, Out any](ctx context.Context, s *Store, op string, send func(API, context.Context, *In, ...func(*dynamodb.Options)) (*Out, error), in *In, consumed func(*Out) []*types.ConsumedCapacity) (*Out, error) {
	if s.explaining() {
		s.explain(op, in)
		return new(Out), nil
	}
	out, err := send(s.api, ctx, in)
	if err != nil {
		s.reportAnswered(op, err)
		return nil, s.classify(err)
	}
	s.report(op, consumed(out)...)
	return out, nil
}

func (s *Store) getItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "GetItem", API.GetItem, in, func(out *dynamodb.GetItemOutput) []*types.ConsumedCapacity {
		return []*types.ConsumedCapacity{out.ConsumedCapacity}
	})
}

func (s *Store) putItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "PutItem", API.PutItem, in, func(out *dynamodb.PutItemOutput) []*types.ConsumedCapacity {
		return []*types.ConsumedCapacity{out.ConsumedCapacity}
	})
}

func (s *Store) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "UpdateItem", API.UpdateItem, in, func(out *dynamodb.UpdateItemOutput) []*types.ConsumedCapacity {
		return []*types.ConsumedCapacity{out.ConsumedCapacity}
	})
}

func (s *Store) deleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "DeleteItem", API.DeleteItem, in, func(out *dynamodb.DeleteItemOutput) []*types.ConsumedCapacity {
		return []*types.ConsumedCapacity{out.ConsumedCapacity}
	})
}

func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	return funnel(ctx, s, "Query", API.Query, in, func(out *dynamodb.QueryOutput) []*types.ConsumedCapacity {
		return []*types.ConsumedCapacity{out.ConsumedCapacity}
	})
}

// transact sends a TransactWriteItems with a ClientRequestToken of its own
// (unless the caller set one): the SDK's retries resend it unchanged, so a
// transaction applied on an attempt whose answer was lost (a connection
// closed after the write, a timeout) is answered as a success on the retry
// instead of being applied again or failing its conditions. The SDK fills
// an empty token itself too; adjl sets it so that it does not depend on a
// client's middleware. Each call is a new token: a transaction sent again
// after a cancellation is a new request.
func (s *Store) transact(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	send := func(api API, ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
		if in.ClientRequestToken == nil {
			in.ClientRequestToken = aws.String(rand.Text())
		}
		return api.TransactWriteItems(ctx, in, opts...)
	}
	return funnel(ctx, s, "TransactWriteItems", send, in, func(out *dynamodb.TransactWriteItemsOutput) []*types.ConsumedCapacity {
		return ccList(out.ConsumedCapacity)
	})
}
