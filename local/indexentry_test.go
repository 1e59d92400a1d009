package local

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// Index entries are written key-only: the table key is the entry key's
// tail. Data files written before held the table key as the value; an index
// holding both kinds of entry must read exactly as one of either kind.
func TestIndexEntriesKeyOnlyReadLikeOldOnes(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, inMemory bool) {
		c := clientFor(e)
		createGraphTable(t, c, "ggg")
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String("nnn"),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{attrDef("PK", types.ScalarAttributeTypeB), attrDef("score", types.ScalarAttributeTypeN)},
			KeySchema:            keySchema("PK", ""),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("byScore"),
				KeySchema:  keySchema("score", ""),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
		}); err != nil {
			t.Fatal(err)
		}
		// Key values with 0x00 bytes (escaped in keys), numbers of every sign.
		targets := []string{"T#a", "T#\x00b", "T#c\x00"}
		scores := []string{"-12.5", "0", "7", "1E+20"}
		for i := range 12 {
			a := fmt.Sprintf("A#%d\x00%d", i, i)
			tg := targets[i%len(targets)]
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ggg"), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: a}, "SK": &types.AttributeValueMemberS{Value: tg},
				"GSI1PK": &types.AttributeValueMemberS{Value: tg}, "GSI1SK": &types.AttributeValueMemberS{Value: a},
			}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("nnn"), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberB{Value: []byte{byte(i), 0, 0xFF}}, "score": &types.AttributeValueMemberN{Value: scores[i%len(scores)]},
			}}); err != nil {
				t.Fatal(err)
			}
		}
		// queryIndex returns the items of table's index whose hash key
		// attribute hk is v.
		queryIndex := func(table, index, hk string, v av) []map[string]av {
			q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
				KeyConditionExpression: aws.String(hk + " = :v"), ExpressionAttributeValues: map[string]av{":v": v}})
			if err != nil {
				t.Fatal(err)
			}
			return q.Items
		}
		read := func() []string {
			var out []string
			for _, tg := range targets {
				for _, it := range queryIndex("ggg", "GSI1", "GSI1PK", s(tg)) {
					out = append(out, fmt.Sprintf("g %q %q", str(it, "PK"), str(it, "SK")))
				}
			}
			for _, sc := range scores {
				for _, it := range queryIndex("nnn", "byScore", "score", n(sc)) {
					out = append(out, fmt.Sprintf("n %s %x", sc, it["PK"].(*types.AttributeValueMemberB).Value))
				}
			}
			slices.Sort(out)
			return out
		}
		want := read()
		if len(want) != 24 {
			t.Fatalf("read %d items through the indexes, want 24: %q", len(want), want)
		}
		indexes := []struct {
			bucket []byte
			kinds  []attr.Kind // the index key's kinds, in order
		}{{indexBucketName("ggg", "GSI1"), []attr.Kind{attr.S, attr.S}}, {indexBucketName("nnn", "byScore"), []attr.Kind{attr.N}}}
		// Rewrite every other entry as an older engine wrote it: the table
		// key as value, found by skipping the index key values by hand.
		if err := e.db.Update(func(tx kv.Tx) error {
			for _, x := range indexes {
				b := tx.Bucket(x.bucket)
				var keys [][]byte
				if err := b.ForEach(func(k, v []byte) error {
					if len(v) != 0 {
						return fmt.Errorf("new entry %x has value %x", k, v)
					}
					keys = append(keys, bytes.Clone(k))
					return nil
				}); err != nil {
					return err
				}
				for i, k := range keys {
					if i%2 == 1 {
						continue
					}
					tableKey := k
					for _, kind := range x.kinds {
						var err error
						if tableKey, err = attr.SkipKey(tableKey, kind); err != nil {
							return err
						}
					}
					if tx.Bucket(dataBucketName(string(x.bucket[2:bytes.LastIndexByte(x.bucket, '/')]))).Get(tableKey) == nil {
						return fmt.Errorf("entry %x: no item at %x", k, tableKey)
					}
					if err := b.Put(k, bytes.Clone(tableKey)); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := read(); !slices.Equal(got, want) {
			t.Fatalf("mixed old and new entries read\n%q\nwant\n%q", got, want)
		}
		// Deleting items removes both kinds of entry.
		for i := range 12 {
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("nnn"), Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberB{Value: []byte{byte(i), 0, 0xFF}}}}); err != nil {
				t.Fatal(err)
			}
		}
		e.db.View(func(tx kv.Tx) error {
			k, _ := tx.Bucket(indexBucketName("nnn", "byScore")).Cursor().First()
			if k != nil {
				t.Errorf("index entry %x left after every item was deleted", k)
			}
			return nil
		})
	})
}

func TestTableKeyOfMalformedEntry(t *testing.T) {
	x := &index{name: "GSI1", hash: "h", hashKind: attr.S, rng: "r", rngKind: attr.N}
	if _, err := x.tableKeyOf([]byte("abc"), nil); err == nil {
		t.Error("an entry key without a terminated hash value was accepted")
	}
	if got, err := x.tableKeyOf([]byte("ignored"), []byte("tk")); err != nil || string(got) != "tk" {
		t.Errorf("an old entry's value: %q, %v", got, err)
	}
}

// TestTableKeyOfAtNumberAndByteExtremes: SkipKey and tableKeyOf find
// the table key after index key values whose encodings contain their own
// terminator byte (number exponent bytes 0x00 and 0xFF, escaped 0x00 in S
// and B), for every kind pair, and agree with DecodeKey.
func TestTableKeyOfAtNumberAndByteExtremes(t *testing.T) {
	vals := map[attr.Kind][]attr.Value{
		attr.N: {ixNum(0), ixNum(2), ixNum(3), ixNum(4), ixNum(8), {Kind: attr.N, Str: "-0.000000000000000000000000000000000000001"}},
		attr.S: {attr.String("\x00"), attr.String("\x00\x00"), attr.String("a\x00\x01"), attr.String("\xff")},
		attr.B: {attr.Binary([]byte{0x00}), attr.Binary([]byte{0xFF}), attr.Binary([]byte{0x00, 0x01}), attr.Binary([]byte{0x00, 0xFF, 0x00})},
	}
	tableKey := attr.AppendKey(attr.AppendKey(nil, attr.Binary([]byte{0x00, 0x01})), ixNum(8))
	kinds := []attr.Kind{attr.S, attr.N, attr.B}
	for _, hk := range kinds {
		for _, hv := range vals[hk] {
			x := &index{name: "h", hash: "h", hashKind: hk}
			k := append(attr.AppendKey(nil, hv), tableKey...)
			if got, err := x.tableKeyOf(k, nil); err != nil || !bytes.Equal(got, tableKey) {
				t.Errorf("hash %v: table key %x, %v; want %x", hv, got, err, tableKey)
			}
			if got, err := x.tableKeyOf(k, []byte{}); err != nil || !bytes.Equal(got, tableKey) {
				t.Errorf("hash %v, empty value: table key %x, %v", hv, got, err)
			}
			for _, rk := range kinds {
				for _, rv := range vals[rk] {
					x := &index{name: "hr", hash: "h", hashKind: hk, rng: "r", rngKind: rk}
					k := append(attr.AppendKey(attr.AppendKey(nil, hv), rv), tableKey...)
					got, err := x.tableKeyOf(k, nil)
					if err != nil || !bytes.Equal(got, tableKey) {
						t.Errorf("hash %v, range %v: table key %x, %v; want %x", hv, rv, got, err, tableKey)
					}
					_, rest, derr := attr.DecodeKey(k, hk)
					if derr == nil {
						_, rest, derr = attr.DecodeKey(rest, rk)
					}
					if derr != nil || !bytes.Equal(rest, got) {
						t.Errorf("hash %v, range %v: DecodeKey leaves %x (%v), SkipKey %x", hv, rv, rest, derr, got)
					}
				}
			}
		}
	}
	// Truncated entries are errors, never a wrong table key or a panic.
	x := &index{name: "hr", hash: "h", hashKind: attr.N, rng: "r", rngKind: attr.B}
	full := attr.AppendKey(attr.AppendKey(nil, ixNum(4)), attr.Binary([]byte{0x00}))
	for i := 0; i < len(full); i++ {
		if got, err := x.tableKeyOf(full[:i], nil); err == nil {
			t.Errorf("entry cut to %x: table key %x, no error", full[:i], got)
		}
	}
}
