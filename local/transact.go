package local

// What TransactGetItems (transactgetitems.go) and TransactWriteItems
// (transactwriteitems.go) share: their limits and request checks.

const (
	maxTransactItems = 100
	maxTransactBytes = 4 << 20
)

// checkTransact validates what TransactWriteItems and TransactGetItems share
// (ReturnConsumedCapacity, then 1 to 100 actions) and reports whether
// capacity is wanted.
func checkTransact(rcc string, actions int) (bool, error) {
	wantCC, err := wantCapacity(rcc)
	if err != nil {
		return false, err
	}
	if actions == 0 || actions > maxTransactItems {
		return false, validationf("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100, Member must have length greater than or equal to 1")
	}
	return wantCC, nil
}
