package local

// What BatchGetItem (batchgetitem.go) and BatchWriteItem (batchwriteitem.go)
// share: their limits, request checks and ConsumedCapacity list.

const (
	maxBatchGet      = 100
	maxBatchWrite    = 25
	maxBatchGetBytes = 16 << 20
)

// checkBatch validates what BatchGetItem and BatchWriteItem share
// (ReturnConsumedCapacity, then at least one table) and reports whether
// capacity is wanted.
func checkBatch(rcc string, tables int) (bool, error) {
	wantCC, err := wantCapacity(rcc)
	if err != nil {
		return false, err
	}
	if tables == 0 {
		return false, validationf("1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	return wantCC, nil
}

func appendCapacities(r *response, mode string, ccs []*capacity) {
	r.field("ConsumedCapacity")
	r.b = append(r.b, '[')
	for i, cc := range ccs {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		r.b = cc.appendJSON(r.b, mode)
	}
	r.b = append(r.b, ']')
}
