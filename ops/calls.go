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

func (s *Store) getItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("GetItem", in)
		return &dynamodb.GetItemOutput{}, nil
	}
	out, err := s.api.GetItem(ctx, in)
	if err != nil {
		s.reportAnswered("GetItem", err)
		return nil, s.classify(err)
	}
	s.report("GetItem", out.ConsumedCapacity)
	return out, nil
}

func (s *Store) putItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("PutItem", in)
		return &dynamodb.PutItemOutput{}, nil
	}
	out, err := s.api.PutItem(ctx, in)
	if err != nil {
		s.reportAnswered("PutItem", err)
		return nil, s.classify(err)
	}
	s.report("PutItem", out.ConsumedCapacity)
	return out, nil
}

func (s *Store) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("UpdateItem", in)
		return &dynamodb.UpdateItemOutput{}, nil
	}
	out, err := s.api.UpdateItem(ctx, in)
	if err != nil {
		s.reportAnswered("UpdateItem", err)
		return nil, s.classify(err)
	}
	s.report("UpdateItem", out.ConsumedCapacity)
	return out, nil
}

func (s *Store) deleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("DeleteItem", in)
		return &dynamodb.DeleteItemOutput{}, nil
	}
	out, err := s.api.DeleteItem(ctx, in)
	if err != nil {
		s.reportAnswered("DeleteItem", err)
		return nil, s.classify(err)
	}
	s.report("DeleteItem", out.ConsumedCapacity)
	return out, nil
}

func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = s.rcc()
	if s.explaining() {
		s.explain("Query", in)
		return &dynamodb.QueryOutput{}, nil
	}
	out, err := s.api.Query(ctx, in)
	if err != nil {
		s.reportAnswered("Query", err)
		return nil, s.classify(err)
	}
	s.report("Query", out.ConsumedCapacity)
	return out, nil
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
	if s.explaining() {
		s.explain("TransactWriteItems", in)
		return &dynamodb.TransactWriteItemsOutput{}, nil
	}
	if in.ClientRequestToken == nil {
		in.ClientRequestToken = aws.String(rand.Text())
	}
	out, err := s.api.TransactWriteItems(ctx, in)
	if err != nil {
		s.reportAnswered("TransactWriteItems", err)
		return nil, s.classify(err)
	}
	cc := make([]*types.ConsumedCapacity, len(out.ConsumedCapacity))
	for i := range out.ConsumedCapacity {
		cc[i] = &out.ConsumedCapacity[i]
	}
	s.report("TransactWriteItems", cc...)
	return out, nil
}
