package local

import (
	"slices"

	"github.com/adjl/adjl/local/internal/attr"
)

// Parameter checks that several operations share: legacy (pre-expression)
// parameters, ReturnValues and ReturnValuesOnConditionCheckFailure, the
// item size limit.

// legacyParams rejects the pre-expression parameters the engine does not
// implement, rather than silently ignoring a condition.
func legacyParams(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		name := pairs[i].(string)
		set := false
		switch v := pairs[i+1].(type) {
		case map[string]any:
			set = v != nil
		case string:
			set = v != ""
		case []string:
			set = v != nil
		}
		if set {
			return validationf("The legacy parameter %s is not supported by the adjl local engine; use expressions instead", name)
		}
	}
	return nil
}

func checkReturnValues(rv string, allowed ...string) error {
	if rv == "" || rv == "NONE" || slices.Contains(allowed, rv) {
		return nil
	}
	return validationf("Return values set to invalid value")
}

func checkReturnOnFailure(v string) error {
	switch v {
	case "", "NONE", "ALL_OLD":
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", v)
}

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
