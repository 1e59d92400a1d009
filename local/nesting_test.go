package local

import "testing"

// A single-item write with a value nested past the 32-level limit reports
// its members' constraints first, and past about 62 levels a ReturnValues it
// does not take first too, bare (captured in two regions, 2026-10-09; every
// table absent, so each answer comes before the table is looked up).
func TestSingleItemWritesReportNestingAfterTheirConstraints(t *testing.T) {
	e := layersEngine(t)
	const (
		nest     = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
		xorOlder = "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"
		rvOlder  = "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
		key      = `{"pk":{"S":"a"},"sk":{"S":"1"}}`
	)
	table := `"TableName":"deep_order_absent",`
	cond := func(depth int) string {
		return `,"ConditionExpression":"#d = :deep","ExpressionAttributeNames":{"#d":"d"},"ExpressionAttributeValues":{":deep":` + nested(depth) + `}`
	}
	checkRefusals(t, e, []refusalCase{
		{"PutItemConditionalOperatorBeforeExpectedNested100", "PutItem",
			`{` + table + `"Item":` + key + `,"Expected":{"a":{"Value":` + nested(100) + `},"b":{"Exists":false}},"ConditionalOperator":"XOR"}`, xorOlder},
		{"UpdateItemConditionalOperatorBeforeExpectedNested100", "UpdateItem",
			`{` + table + `"Key":` + key + `,"AttributeUpdates":{"x":{"Action":"PUT","Value":{"S":"1"}}},"Expected":{"a":{"Value":` + nested(100) + `},"b":{"Exists":false}},"ConditionalOperator":"XOR"}`, xorOlder},
		{"DeleteItemReturnValuesBeforeConditionValueNested63", "DeleteItem",
			`{` + table + `"Key":` + key + cond(63) + `,"ReturnValues":"BOGUS"}`, rvOlder},
		{"DeleteItemReturnValuesBeforeExpectedNested63", "DeleteItem",
			`{` + table + `"Key":` + key + `,"Expected":{"d":{"Value":` + nested(63) + `}},"ReturnValues":"BOGUS"}`, rvOlder},
		{"DeleteItemReturnValuesBeforeKeyNested100", "DeleteItem",
			`{` + table + `"Key":{"pk":` + nested(100) + `,"sk":{"S":"1"}},"ReturnValues":"BOGUS"}`, rvOlder},
		{"DeleteItemUpdatedNewBareBeforeConditionValueNested100", "DeleteItem",
			`{` + table + `"Key":` + key + cond(100) + `,"ReturnValues":"UPDATED_NEW"}`, "ReturnValues can only be ALL_OLD or NONE"},
		// Not captured: short of the older form the engine reports the nesting
		// before ReturnValues' own check, as it did before.
		{"DeleteItemNestingBeforeUpdatedNewAt40", "DeleteItem",
			`{` + table + `"Key":` + key + cond(40) + `,"ReturnValues":"UPDATED_NEW"}`, nest},
		{"PutItemNested40", "PutItem", `{` + table + `"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"d":` + nested(40) + `}}`, nest},
		{"UpdateItemAttributeUpdateNested40", "UpdateItem",
			`{` + table + `"Key":` + key + `,"AttributeUpdates":{"x":{"Action":"PUT","Value":` + nested(40) + `}}}`, nest},
	})
}
