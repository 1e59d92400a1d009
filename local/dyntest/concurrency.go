package dyntest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testConcurrency: conditional writes and atomic counters stay correct when
// clients race. "Conditional writes are helpful in cases where multiple users
// attempt to modify the same item"; "atomic counter ... each request
// increments the value".
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalUpdate
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.AtomicCounters
func (s *suite) testConcurrency(t *testing.T) {
	t.Run("OneConditionalCreateWins", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		const racers = 8
		var wg sync.WaitGroup
		results := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb),
					Item: item{"pk": vS("race"), "winner": vN(fmt.Sprint(i))}, ConditionExpression: aws.String("attribute_not_exists(pk)")})
			}()
		}
		wg.Wait()
		wins, winner := 0, ""
		for i, err := range results {
			var ccf *types.ConditionalCheckFailedException
			switch {
			case err == nil:
				wins++
				winner = fmt.Sprint(i)
			case !errors.As(err, &ccf):
				t.Errorf("racer %d: %v", i, err)
			}
		}
		if wins != 1 && s.quirks.Has(QuirkLostUpdates) {
			t.Logf("quirk %s: %d conditional creates succeeded", QuirkLostUpdates, wins)
			return
		}
		if wins != 1 {
			t.Fatalf("%d conditional creates succeeded, want exactly 1", wins)
		}
		if got := nOf(s.get(t, tb, item{"pk": vS("race")})["winner"]); got != winner {
			t.Errorf("stored winner %s, but racer %s succeeded", got, winner)
		}
	})

	// A cancelled transaction "makes no changes", and transactions are
	// isolated: puts acknowledged while transactions naming the same
	// table are being cancelled must all stay.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-isolation
	t.Run("CancelledTransactionKeepsOtherWrites", func(t *testing.T) {
		if s.quirks.Has(QuirkNoTransactions) {
			t.Skip("no transactions")
		}
		tb := s.table(t, hashOnly)
		for i := range 50 { // a table worth copying
			s.put(t, tb, item{"pk": vS(fmt.Sprint("seed", i)), "pad": vS(fmt.Sprint(i))})
		}
		const puts = 40
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				_, err := s.c.TransactWriteItems(s.ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String(tb), Key: item{"pk": vS("seed1")},
						UpdateExpression: aws.String("SET #p = :v"), ExpressionAttributeNames: map[string]string{"#p": "pad"},
						ExpressionAttributeValues: item{":v": vS("tx")}}},
					{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tb), Key: item{"pk": vS("seed0")},
						ConditionExpression: aws.String("attribute_not_exists(pk)")}},
				}})
				var tce *types.TransactionCanceledException
				switch {
				case errors.As(err, &tce):
				case s.quirks.Has(QuirkTransactionRollbackLosesWrites):
					t.Logf("quirk %s: transaction: %v", QuirkTransactionRollbackLosesWrites, err)
				default:
					t.Errorf("transaction: %v, want it cancelled", err)
					return
				}
			}
		}()
		var acked []string
		for i := range puts {
			pk := fmt.Sprint("w", i)
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb), Item: item{"pk": vS(pk)}})
			switch {
			case err == nil:
				acked = append(acked, pk)
			case s.quirks.Has(QuirkTransactionRollbackLosesWrites):
				t.Logf("quirk %s: put: %v", QuirkTransactionRollbackLosesWrites, err)
			default:
				t.Errorf("put %s: %v", pk, err)
			}
		}
		close(done)
		wg.Wait()
		var lost []string
		for _, pk := range acked {
			if s.get(t, tb, item{"pk": vS(pk)}) == nil {
				lost = append(lost, pk)
			}
		}
		if got := s.get(t, tb, item{"pk": vS("seed1")})["pad"]; sOf(got) != "1" {
			lost = append(lost, "seed1 changed by a cancelled transaction")
		}
		switch {
		case len(lost) > 0 && s.quirks.Has(QuirkTransactionRollbackLosesWrites):
			t.Logf("quirk %s: lost %v", QuirkTransactionRollbackLosesWrites, lost)
		case len(lost) > 0:
			t.Errorf("acknowledged writes lost while transactions were cancelled: %v", lost)
		}
	})

	t.Run("AtomicCounter", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		const workers, each = 6, 8
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("ctr")},
						UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: item{":one": vN("1")}})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("UpdateItem: %v", err)
		}
		got := nOf(s.get(t, tb, item{"pk": vS("ctr")})["n"])
		switch {
		case got != fmt.Sprint(workers*each) && s.quirks.Has(QuirkLostUpdates):
			t.Logf("quirk %s: counter = %s after %d concurrent increments", QuirkLostUpdates, got, workers*each)
		case got != fmt.Sprint(workers*each):
			t.Errorf("counter = %s after %d concurrent increments", got, workers*each)
		}
	})
}
