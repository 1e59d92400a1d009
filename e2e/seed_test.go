package e2e

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sync/errgroup"
)

// seedLinks links N generated keys to one key and writes the generated keys,
// sorted, to OUTFILE for later comparison:
//
//	seed-links SCHEMA RELATION FROM TO N OUTFILE
//
// Exactly one of FROM and TO ends in "*", which is replaced by a zero-padded
// index: `seed-links adjl.yaml enrollment STU#s* CRS#math204 1000 seeded.txt`
// enrolls STU#s000 .. STU#s999 in CRS#math204. On the embedded engine every
// edge goes through ops.Store.Link, the code path of `adjl <link-verb>`; on a
// reference server see bulkLinks.
func seedLinks(ts *testscript.TestScript, neg bool, args []string, b backend) {
	if neg {
		ts.Fatalf("unsupported: ! seed-links")
	}
	if len(args) != 6 {
		ts.Fatalf("usage: seed-links SCHEMA RELATION FROM TO N OUTFILE")
	}
	s, err := schema.Load(ts.MkAbs(args[0]))
	ts.Check(err)
	rel := s.Relation(args[1])
	if rel == nil {
		ts.Fatalf("no relation %q in %s", args[1], args[0])
	}
	from, to := args[2], args[3]
	fromMany, toMany := strings.HasSuffix(from, "*"), strings.HasSuffix(to, "*")
	if fromMany == toMany {
		ts.Fatalf("seed-links: exactly one of FROM and TO must end in *")
	}
	n, err := strconv.Atoi(args[4])
	ts.Check(err)

	api, closeAPI := openBackend(ts, b)
	defer closeAPI()
	store := ops.New(api, s, ops.Options{})

	keys := make([]string, n)
	width := len(strconv.Itoa(n - 1))
	stem := strings.TrimSuffix(from, "*")
	if toMany {
		stem = strings.TrimSuffix(to, "*")
	}
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%0*d", stem, width, i)
	}
	pair := func(k string) (string, string) {
		if toMany {
			return from, k
		}
		return k, to
	}
	link := func(k string) error {
		f, t := pair(k)
		if _, _, err := store.Link(context.Background(), rel, f, t, nil); err != nil {
			return fmt.Errorf("link %s %s: %w", f, t, err)
		}
		return nil
	}
	if b.endpoint == "" {
		ts.Check(parallel(keys, 8, link))
	} else {
		// moto_server copies every table it holds for each TransactWriteItems
		// (and mishandles concurrent ones), so 1,000 links would take minutes:
		// link the first edge for real, then bulk-copy it.
		ts.Check(link(keys[0]))
		ts.Check(bulkLinks(api, s, rel, keys[0], keys[1:], pair, toMany))
	}
	sort.Strings(keys)
	ts.Check(os.WriteFile(ts.MkAbs(args[5]), []byte(strings.Join(keys, "\n")+"\n"), 0o644))
}

// bulkLinks writes the edges of the rest of keys as copies of the first
// key's edge (with their own keys) by BatchWriteItem, and adds their number to
// the shared side's counter. The many side's entity items get no counter:
// scripts using a reference server must not assert them.
func bulkLinks(api ops.API, s *schema.Schema, rel *schema.Relation, first string, rest []string,
	pair func(string) (string, string), toMany bool) error {
	ctx := context.Background()
	edgeKeys := func(k string) (schema.Keys, error) {
		f, t := pair(k)
		fk, err := rel.FromKey(f)
		if err != nil {
			return schema.Keys{}, err
		}
		tk, err := rel.ToKey(t)
		if err != nil {
			return schema.Keys{}, err
		}
		return s.Layout().EdgeKeys(rel, fk, tk), nil
	}
	k0, err := edgeKeys(first)
	if err != nil {
		return err
	}
	got, err := api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.Table.Name),
		Key:       map[string]types.AttributeValue{s.Layout().PK: str(k0.PK), s.Layout().SK: str(k0.SK)},
	})
	if err != nil {
		return err
	}
	if got.Item == nil {
		return fmt.Errorf("edge %s %s was not written", k0.PK, k0.SK)
	}
	var reqs []types.WriteRequest
	for _, k := range rest {
		ek, err := edgeKeys(k)
		if err != nil {
			return err
		}
		item := map[string]types.AttributeValue{}
		for name, v := range got.Item {
			item[name] = v
		}
		for _, kv := range s.Layout().KeyValues(ek) {
			item[kv.Name] = str(kv.Value)
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{s.Table.Name: reqs[:n]},
		})
		if err != nil {
			return err
		}
		reqs = append(out.UnprocessedItems[s.Table.Name], reqs[n:]...)
	}
	// The shared side's item is keyed by its (role) key: the edge's SK without
	// the edge prefix for the to side, the edge's PK for the from side.
	counter, shared := rel.Counters.To, strings.TrimPrefix(k0.SK, rel.Edge)
	if toMany {
		counter, shared = rel.Counters.From, k0.PK
	}
	if counter == "" || len(rest) == 0 {
		return nil
	}
	return addCounter(ctx, api, s, shared, counter, len(rest))
}

// addCounter adds n to the counter attribute of the item keyed (key, key) so
// that a retried request cannot add twice (the SDK retries a request whose
// answer it lost, and ADD is not idempotent): it sets the attribute to the
// value read plus n, on condition that it still holds the value read or
// already the new one.
func addCounter(ctx context.Context, api ops.API, s *schema.Schema, key, counter string, n int) error {
	table := s.Table.Name
	k := map[string]types.AttributeValue{s.Layout().PK: str(key), s.Layout().SK: str(key)}
	names := map[string]string{"#c": counter}
	got, err := api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k,
		ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("#c"), ExpressionAttributeNames: names})
	if err != nil {
		return err
	}
	before, cond := 0, "attribute_not_exists(#c) OR #c = :after"
	values := map[string]types.AttributeValue{}
	if v, ok := got.Item[counter].(*types.AttributeValueMemberN); ok {
		if before, err = strconv.Atoi(v.Value); err != nil {
			return fmt.Errorf("counter %s of %s: %w", counter, key, err)
		}
		cond = "#c = :before OR #c = :after"
		values[":before"] = &types.AttributeValueMemberN{Value: v.Value}
	}
	values[":after"] = &types.AttributeValueMemberN{Value: strconv.Itoa(before + n)}
	_, err = api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       k,
		UpdateExpression:          aws.String("SET #c = :after"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	return err
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// parallel calls f for every key with at most n calls at once and returns
// the first error (the remaining keys are skipped after one).
func parallel(keys []string, n int, f func(string) error) error {
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(n)
	for _, k := range keys {
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // an earlier key failed
			}
			return f(k)
		})
	}
	return g.Wait()
}
