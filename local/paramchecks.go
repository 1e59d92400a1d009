package local

import (
	"github.com/adjl/adjl/local/internal/attr"
)

// Checks that several operations share: the item size limit, and the old
// item a failed condition returns.

// checkItemSize enforces DynamoDB's 400 KB item limit.
func checkItemSize(it attr.Item) error {
	if attr.ItemSize(it) > maxItemSize {
		return validationf("Item size has exceeded the maximum allowed size")
	}
	return nil
}

// failedItem renders the old item for ConditionalCheckFailedException when
// the request asked for ALL_OLD.
func failedItem(mode string, old attr.Item) []byte {
	if mode != "ALL_OLD" || old == nil {
		return nil
	}
	b, _ := old.AppendJSON(nil)
	return b
}
