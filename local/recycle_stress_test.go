package local

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stressWidth is how many payload attributes version ver of an item has:
// 0..40, so some items are wider than the pool keeps (32).
func stressWidth(ver int) int { return ver % 41 }

// stressItemJSON is version ver of item sk in wire JSON: every payload value
// names the key and version, so a stray attribute of a recycled map shows.
func stressItemJSON(sk string, ver int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"PK":{"S":"P"},"SK":{"S":%q},"ver":{"N":"%d"}`, sk, ver)
	for i := range stressWidth(ver) {
		fmt.Fprintf(&b, `,"a%d":{"S":"%s/%d/%d"}`, i, sk, ver, i)
	}
	if ver%3 == 0 {
		fmt.Fprintf(&b, `,"GSI1PK":{"S":"G"},"GSI1SK":{"S":"%s"}`, sk)
	}
	fmt.Fprintf(&b, `,"m":{"M":{"x":{"S":"%s/%d"}}},"l":{"L":[{"N":"%d"},{"S":"%s"}]}}`, sk, ver, ver, sk)
	return b.String()
}

// stressCheck reports what is wrong with it, a read of item sk, or "".
func stressCheck(sk string, it map[string]av) string {
	if got := str(it, "SK"); got != sk {
		return fmt.Sprintf("SK %q, want %q", got, sk)
	}
	ver, err := strconv.Atoi(num(it, "ver"))
	if err != nil {
		return fmt.Sprintf("ver: %v", err)
	}
	want := 5 + stressWidth(ver) // PK SK ver m l
	for i := range stressWidth(ver) {
		if got, w := str(it, fmt.Sprintf("a%d", i)), fmt.Sprintf("%s/%d/%d", sk, ver, i); got != w {
			return fmt.Sprintf("a%d = %q, want %q", i, got, w)
		}
	}
	if ver%3 == 0 {
		want += 2
		if str(it, "GSI1PK") != "G" || str(it, "GSI1SK") != sk {
			return "index attributes wrong"
		}
	}
	m, ok := it["m"].(*types.AttributeValueMemberM)
	if !ok || str(m.Value, "x") != fmt.Sprintf("%s/%d", sk, ver) {
		return "m wrong"
	}
	l, ok := it["l"].(*types.AttributeValueMemberL)
	if !ok || len(l.Value) != 2 {
		return "l wrong"
	}
	if len(it) != want {
		return fmt.Sprintf("%d attributes, want %d: %v", len(it), want, it)
	}
	return ""
}

// TestBatchWriteRecycledMapsUnderErrors drives concurrent
// BatchWriteItem requests whose item maps are recycled, mixing in every kind
// of failure (duplicate keys, an oversized item, a wrong key type, a bad
// value, malformed JSON, a missing table, a table deleted mid-flight) with
// GetItem and Query readers that check every item they see, then checks the
// final state item by item against what succeeded.
func TestBatchWriteRecycledMapsUnderErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, mem bool) {
		if !mem {
			SetCheckpointBytes(e, 256<<10) // checkpoint while writing
		}
		c := clientFor(e)
		createGraphTable(t, c, "school")
		createGraphTable(t, c, "tmp")

		const workers, keys, rounds = 6, 30, 60
		expect := make([]map[string]int, workers) // sk -> ver; absent: deleted/never
		var stop atomic.Bool
		var readErr atomic.Value
		var readers sync.WaitGroup
		for range 3 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for !stop.Load() {
					sk := fmt.Sprintf("w%d-k%02d", rand.IntN(workers), rand.IntN(keys))
					out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"),
						Key: map[string]av{"PK": s("P"), "SK": s(sk)}})
					if err != nil {
						readErr.Store(err.Error())
						return
					}
					if out.Item != nil {
						if msg := stressCheck(sk, out.Item); msg != "" {
							readErr.Store("GetItem " + sk + ": " + msg)
							return
						}
					}
					q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"),
						KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}})
					if err != nil {
						readErr.Store(err.Error())
						return
					}
					for _, it := range q.Items {
						if msg := stressCheck(str(it, "SK"), it); msg != "" {
							readErr.Store("Query: " + msg)
							return
						}
					}
				}
			}()
		}
		var ddl sync.WaitGroup
		ddl.Add(1)
		go func() { // delete and re-create "tmp" while batches target it
			defer ddl.Done()
			for !stop.Load() {
				c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tmp")})
				c.CreateTable(ctx, graphTableInput("tmp"))
			}
		}()

		var outcomes [8][2]atomic.Int64 // bad kind -> failed, succeeded
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			expect[w] = map[string]int{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				ver := 0
				for range rounds {
					perm := rng.Perm(keys)[:1+rng.IntN(20)]
					var reqs []string
					next := map[string]int{}
					for j, k := range perm {
						sk := fmt.Sprintf("w%d-k%02d", w, k)
						ver++
						if j%5 == 4 {
							reqs = append(reqs, fmt.Sprintf(`{"DeleteRequest":{"Key":{"PK":{"S":"P"},"SK":{"S":%q}}}}`, sk))
							next[sk] = -1
							continue
						}
						reqs = append(reqs, `{"PutRequest":{"Item":`+stressItemJSON(sk, ver)+`}}`)
						next[sk] = ver
					}
					bad := rng.IntN(8)
					first := fmt.Sprintf("w%d-k%02d", w, perm[0])
					extra := ""
					switch bad {
					case 1: // duplicate key
						reqs = append(reqs, `{"PutRequest":{"Item":`+stressItemJSON(first, ver+1)+`}}`)
					case 2: // oversized item
						reqs = append(reqs, fmt.Sprintf(`{"PutRequest":{"Item":{"PK":{"S":"P"},"SK":{"S":"w%d-big"},"x":{"S":"%s"}}}}`, w, strings.Repeat("x", 410<<10)))
					case 3: // wrong key type
						reqs = append(reqs, fmt.Sprintf(`{"PutRequest":{"Item":{"PK":{"N":"1"},"SK":{"S":"w%d-n"}}}}`, w))
					case 4: // bad value after valid ones: the pooled decode fails part way
						reqs = append(reqs, fmt.Sprintf(`{"PutRequest":{"Item":{"PK":{"S":"P"},"SK":{"S":"w%d-x"},"a":{"S":"1"},"b":{"X":"2"}}}}`, w))
					case 5: // another table, deleted and re-created meanwhile
						extra = fmt.Sprintf(`,"tmp":[{"PutRequest":{"Item":%s}}]`, stressItemJSON(first, ver))
					case 6: // missing table
						extra = fmt.Sprintf(`,"gone":[{"PutRequest":{"Item":%s}}]`, stressItemJSON(first, ver))
					}
					body := `{"RequestItems":{"school":[` + strings.Join(reqs, ",") + `]` + extra + `},"ReturnConsumedCapacity":"INDEXES"}`
					if bad == 7 { // malformed JSON after every item was decoded
						body = body[:len(body)-1]
					}
					_, err := e.batchWriteItem([]byte(body))
					var ae *apiError
					if err == nil {
						outcomes[bad][1].Add(1)
					} else {
						outcomes[bad][0].Add(1)
					}
					switch {
					case err == nil && bad != 0 && bad != 5:
						errs <- fmt.Errorf("bad batch %d succeeded", bad)
						return
					case err != nil && (bad == 0 || bad == 5 && !errors.As(err, &ae)):
						errs <- fmt.Errorf("batch (bad %d): %v", bad, err)
						return
					case err == nil:
						for sk, v := range next {
							if v < 0 {
								delete(expect[w], sk)
							} else {
								expect[w][sk] = v
							}
						}
					}
					ver += 2
				}
			}()
		}
		wg.Wait()
		stop.Store(true)
		readers.Wait()
		ddl.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if msg := readErr.Load(); msg != nil {
			t.Fatal(msg)
		}
		for bad := range outcomes {
			if outcomes[bad][0].Load()+outcomes[bad][1].Load() == 0 {
				t.Errorf("no batch of kind %d ran", bad)
			}
		}
		t.Logf("tmp batches: %d failed, %d succeeded", outcomes[5][0].Load(), outcomes[5][1].Load())
		indexed := 0
		for w := range workers {
			for k := range keys {
				sk := fmt.Sprintf("w%d-k%02d", w, k)
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"),
					Key: map[string]av{"PK": s("P"), "SK": s(sk)}, ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatal(err)
				}
				want, ok := expect[w][sk]
				switch {
				case !ok && out.Item != nil:
					t.Fatalf("%s: read %v, want none", sk, out.Item)
				case ok && out.Item == nil:
					t.Fatalf("%s: missing, want version %d", sk, want)
				case ok:
					if msg := stressCheck(sk, out.Item); msg != "" {
						t.Fatalf("%s: %s", sk, msg)
					}
					if got := num(out.Item, "ver"); got != strconv.Itoa(want) {
						t.Fatalf("%s: version %s, want %d", sk, got, want)
					}
					if want%3 == 0 {
						indexed++
					}
				}
			}
		}
		for _, sk := range []string{"big", "n", "x"} {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("school"),
				Key: map[string]av{"PK": s("P"), "SK": s("w0-" + sk)}})
			if err != nil || out.Item != nil {
				t.Fatalf("a failed batch's item w0-%s: %v %v", sk, out.Item, err)
			}
		}
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), IndexName: aws.String("GSI1"), Select: types.SelectCount,
			KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}})
		if err != nil || int(q.Count) != indexed {
			t.Fatalf("index holds %d items, want %d (err %v)", q.Count, indexed, err)
		}
	})
}
