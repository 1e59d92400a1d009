package ops

import (
	"sync"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is one DynamoDB item as the SDK returns it.
type Item = map[string]types.AttributeValue

// Request is one DynamoDB request, handed to Options.Explain instead of being
// sent so that `--explain` prints exactly what would go over the wire.
type Request struct {
	Operation string // "Query", "TransactWriteItems", ...
	Input     any    // *dynamodb.<Operation>Input
	// When, if set, says when the request is sent ("only if the edge
	// already exists"); requests without it are always sent.
	When string
}

// Options tune a Store.
type Options struct {
	// Explain, when non-nil, receives every request instead of the backend;
	// writes then report a zero Outcome and reads an empty result.
	Explain func(Request)
	// Capacity, when non-nil, makes every data request ask for TOTAL consumed
	// capacity and receives what the backend reported.
	Capacity func(op string, cc []types.ConsumedCapacity)
	// Parallel bounds the concurrent Queries of a sharded read (default 8).
	Parallel int
	// StorageFailure, for the embedded engine in process, reports the data
	// file's write failure (a full disk) after which every write fails
	// until the file is reopened: a request failing while it is set is a
	// *StorageFailureError, which bulk commands do not retry.
	StorageFailure func() error
}

// Store runs adjl's operations for one schema against one backend. It is safe
// for concurrent use; the shard metadata of the table is read once per Store.
type Store struct {
	api    API
	schema *schema.Schema
	// layout names every key attribute the Store reads or writes.
	layout schema.Layout
	opt    Options

	mu sync.Mutex // serialises Explain and Capacity callbacks

	metaMu     sync.Mutex
	metaLoaded bool
	metaExists bool
	metaShards map[string]int
	// metaReshard holds the unfinished reshards recorded in the metadata
	// item, by relation: while one is recorded its edges are in two layouts.
	metaReshard map[string]reshardState
	// metaSort and metaOrdering hold the sort each relation's edges were
	// written under and the unfinished backfills (order_backfill.go).
	metaSort     map[string]string
	metaOrdering map[string]orderingState
	// applyProgress, while ApplyTable runs, hears a long step's progress.
	applyProgress func(string)

	// sleep waits between DescribeTable polls; tests replace it.
	sleep func(d time.Duration) <-chan time.Time
	// now is the clock of sort.default: now; tests replace it.
	now func() time.Time
}

// New returns a Store that sends requests for s through api.
func New(api API, s *schema.Schema, opt Options) *Store {
	if opt.Parallel <= 0 {
		opt.Parallel = 8
	}
	return &Store{api: api, schema: s, layout: s.Layout(), opt: opt, sleep: time.After, now: time.Now}
}

// Outcome says what a write did, so repeated commands can report "unchanged".
type Outcome string

// Outcomes of writes.
const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Deleted   Outcome = "deleted"
)
