package verify

import (
	"context"
	"errors"
	"sync"

	"github.com/adjl/adjl/ops"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sent is one request as the recorder saw it go out.
type sent struct {
	op       string
	index    string // "" for the table
	capacity []types.ConsumedCapacity
}

// recorder is the API the Store under test talks to: it forwards every
// request and, while on, notes its operation, its index and the capacity
// the backend reported. It asks for capacity per table and index (INDEXES)
// wherever ops asks for a total, so the table's write units can be told
// from the index's. Methods it does not override forward unrecorded: none
// of them is a data request.
type recorder struct {
	ops.API
	mu   sync.Mutex
	on   bool
	sent []sent
}

// scanAPI is Scan, which ops.API leaves out on purpose: the recorder
// offers it so that a Scan anything tries is recorded (and then sent, if the
// backend client can).
type scanAPI interface {
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

func (r *recorder) note(op, index string, cc ...types.ConsumedCapacity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.sent = append(r.sent, sent{op: op, index: index, capacity: cc})
	}
}

// record switches recording on or off; take returns what was recorded
// since the last take.
func (r *recorder) record(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = on
}

func (r *recorder) take() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

func indexes(rcc types.ReturnConsumedCapacity) types.ReturnConsumedCapacity {
	if rcc == "" || rcc == types.ReturnConsumedCapacityNone {
		return rcc
	}
	return types.ReturnConsumedCapacityIndexes
}

func one(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// forward sends in and notes it: with the capacity the answer reports or,
// when it failed, without.
func forward[In, Out any](ctx context.Context, r *recorder, op, index string, send func(context.Context, *In, ...func(*dynamodb.Options)) (*Out, error), in *In, o []func(*dynamodb.Options), consumed func(*Out) []types.ConsumedCapacity) (*Out, error) {
	out, err := send(ctx, in, o...)
	if err != nil {
		r.note(op, index)
		return out, err
	}
	r.note(op, index, consumed(out)...)
	return out, nil
}

func (r *recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "GetItem", "", r.API.GetItem, in, o, func(out *dynamodb.GetItemOutput) []types.ConsumedCapacity {
		return one(out.ConsumedCapacity)
	})
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "Query", aws.ToString(in.IndexName), r.API.Query, in, o, func(out *dynamodb.QueryOutput) []types.ConsumedCapacity {
		return one(out.ConsumedCapacity)
	})
}

func (r *recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "PutItem", "", r.API.PutItem, in, o, func(out *dynamodb.PutItemOutput) []types.ConsumedCapacity {
		return one(out.ConsumedCapacity)
	})
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "UpdateItem", "", r.API.UpdateItem, in, o, func(out *dynamodb.UpdateItemOutput) []types.ConsumedCapacity {
		return one(out.ConsumedCapacity)
	})
}

func (r *recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "DeleteItem", "", r.API.DeleteItem, in, o, func(out *dynamodb.DeleteItemOutput) []types.ConsumedCapacity {
		return one(out.ConsumedCapacity)
	})
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "TransactWriteItems", "", r.API.TransactWriteItems, in, o, func(out *dynamodb.TransactWriteItemsOutput) []types.ConsumedCapacity {
		return out.ConsumedCapacity
	})
}

func (r *recorder) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "BatchGetItem", "", r.API.BatchGetItem, in, o, func(out *dynamodb.BatchGetItemOutput) []types.ConsumedCapacity {
		return out.ConsumedCapacity
	})
}

func (r *recorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	in.ReturnConsumedCapacity = indexes(in.ReturnConsumedCapacity)
	return forward(ctx, r, "BatchWriteItem", "", r.API.BatchWriteItem, in, o, func(out *dynamodb.BatchWriteItemOutput) []types.ConsumedCapacity {
		return out.ConsumedCapacity
	})
}

// errNoScan answers a Scan the backend client cannot send.
var errNoScan = errors.New("the backend client cannot Scan")

func (r *recorder) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	r.note("Scan", aws.ToString(in.IndexName))
	if s, ok := r.API.(scanAPI); ok {
		return s.Scan(ctx, in, o...)
	}
	return nil, errNoScan
}

var (
	_ ops.API = (*recorder)(nil)
	_ scanAPI = (*recorder)(nil)
)
