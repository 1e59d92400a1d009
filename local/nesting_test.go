package local

import (
	"strings"
	"testing"
)

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

// What the engine keeps of a member whose value nests too deep, and how deep
// it measures it: the operators and actions the members' constraints check,
// the deepest value of any member, attribute levels rather than keys that
// happen to be named M, and the first value error in body order.
func TestNestingKeptForSingleItemWrites(t *testing.T) {
	e := layersEngine(t)
	const nest = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	namedM := strings.Repeat(`{"M":{"M":`, 33) + `{"S":"leaf"}` + strings.Repeat(`}}`, 33)
	checkRefusals(t, e, []refusalCase{
		{"ActionBesideNestedUpdateValue", "UpdateItem",
			`{"TableName":"vltable","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"a":{"Action":"BOGUS","Value":{"S":"x"}},"b":{"Action":"PUT","Value":` + nested(40) + `}}}`,
			"1 validation error detected: Value 'BOGUS' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"},
		{"OperatorBesideNestedExpectedValue", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"u"}},"Expected":{"a":{"ComparisonOperator":"BOGUS","AttributeValueList":[` + nested(40) + `]}}}`,
			"1 validation error detected: Value 'BOGUS' at 'expected.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"OlderFormFromALaterDeeperMember", "DeleteItem",
			`{"TableName":"vltable","Key":{"pk":{"S":"u"},"k":` + nested(40) + `},"ConditionExpression":"a = :d","ExpressionAttributeValues":{":d":` + nested(100) + `},"ReturnValues":"UPDATED_NEW"}`,
			"ReturnValues can only be ALL_OLD or NONE"},
		{"AttributesNamedMAreNotLevels", "DeleteItem",
			`{"TableName":"vltable","Key":{"pk":{"S":"u"}},"ConditionExpression":"a = :d","ExpressionAttributeValues":{":d":` + namedM + `},"ReturnValues":"UPDATED_NEW"}`,
			nest},
		{"NestingBeforeALaterValueError", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"u"},"d":` + nested(40) + `},"ConditionExpression":"a = :b","ExpressionAttributeValues":{":b":{"N":"abc"}}}`,
			nest},
	})
	if _, raw := postRaw(t, e, "GetItem", `{"TableName":"vltable","Key":{"pk":{"S":"u"}},"ConsistentRead":true}`); string(raw) != "{}" {
		t.Errorf("after the refused writes, GetItem answered %s; want {}", raw)
	}
}

// PutItem reports an attribute named "" after its members' constraints and
// before a value nested too deep, wherever in the item that value is, as a
// transaction's Put does (TestTransactWriteItemsChecksActionsInRequestOrder);
// a map key "" is not an attribute name and does not count.
func TestPutItemReportsEmptyAttributeNameBeforeNesting(t *testing.T) {
	e := layersEngine(t)
	const (
		nest      = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
		emptyName = "Empty attribute name"
	)
	put := func(more string) string {
		return `{"TableName":"deep_order_absent","Item":{"pk":{"S":"a"},"sk":{"S":"1"}` + more + `}}`
	}
	checkRefusals(t, e, []refusalCase{
		{"EmptyNameBeforeNested40", "PutItem", put(`,"":{"S":"x"},"d":` + nested(40)), emptyName},
		{"EmptyNameAfterNested40", "PutItem", put(`,"d":` + nested(40) + `,"":{"S":"x"}`), emptyName},
		{"EmptyNameAfterNested100", "PutItem", put(`,"d":` + nested(100) + `,"":{"S":"x"}`), emptyName},
		{"EmptyNameBesideNestedConditionValue", "PutItem",
			`{"TableName":"deep_order_absent","Item":{"pk":{"S":"a"},"":{"S":"x"}},"ConditionExpression":"d = :deep","ExpressionAttributeValues":{":deep":` + nested(40) + `}}`,
			emptyName},
		{"EmptyMapKeyBesideNested40", "PutItem", put(`,"m":{"M":{"":{"S":"x"}}},"d":` + nested(40)), nest},
		{"ConstraintBeforeEmptyName", "PutItem",
			`{"TableName":"deep_order_absent","Item":{"pk":{"S":"a"},"":{"S":"x"},"d":` + nested(40) + `},"ReturnValues":"BOGUS"}`,
			"1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"},
	})
}
