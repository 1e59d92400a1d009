package local

import (
	"fmt"
	"strings"
	"testing"
)

// nested is an attribute value of depth single-key maps around a string.
func nested(depth int) string {
	return strings.Repeat(`{"M":{"n":`, depth) + `{"S":"leaf"}` + strings.Repeat(`}}`, depth)
}

// TransactWriteItems checks its actions one at a time, in request order, and
// reports the first problem it meets: a later action's error never beats an
// earlier action's. Within an action an attribute named "" comes first, then
// its values, its expressions and the values of its item or key. Captured in
// ten regions, 2026-10-09 (every table absent: each answer comes before the
// table is looked up).
func TestTransactWriteItemsChecksActionsInRequestOrder(t *testing.T) {
	e := layersEngine(t)
	const (
		nest      = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
		emptyName = "Empty attribute name"
		syntax    = `Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"`
	)
	key := func(pk string) string { return `{"pk":` + pk + `,"sk":{"S":"1"}}` }
	item := func(pk string, more string) string { return `{"pk":{"S":"` + pk + `"},"sk":{"S":"1"}` + more + `}` }
	put := func(it string, more string) string {
		return `{"Put":{"TableName":"deep_order_absent","Item":` + it + more + `}}`
	}
	act := func(kind, body string) string {
		return `{"` + kind + `":{"TableName":"deep_order_absent",` + body + `}}`
	}
	tx := func(actions ...string) string { return `{"TransactItems":[` + strings.Join(actions, ",") + `]}` }
	var sets []string
	for i := range 500 {
		sets = append(sets, fmt.Sprintf("a%d = :v", i))
	}
	checkRefusals(t, e, []refusalCase{
		{"ItemNestedBeforeLaterEmptyName", "TransactWriteItems",
			tx(put(item("b", `,"d":`+nested(40)), ""), put(item("a", `,"":{"S":"x"}`), "")), nest},
		{"EmptyNameBeforeLaterItemNested", "TransactWriteItems",
			tx(put(item("a", `,"":{"S":"x"}`), ""), put(item("b", `,"d":`+nested(100)), "")), emptyName},
		{"EmptyNameBeforeNestedInSameItem", "TransactWriteItems",
			tx(put(item("a", `,"":{"S":"x"},"d":`+nested(100)), "")), emptyName},
		{"EmptyNameAfterNestedInSameItem", "TransactWriteItems",
			tx(put(item("a", `,"d":`+nested(100)+`,"":{"S":"x"}`), "")), emptyName},
		{"NestedBeforeEmptyMapKeyInSameItem", "TransactWriteItems",
			tx(put(item("a", `,"m":{"M":{"":{"S":"x"}}},"d":`+nested(40)), "")), nest},
		{"EmptyNameBeforeLaterConditionValueNested", "TransactWriteItems",
			tx(put(item("a", `,"":{"S":"x"}`), ""),
				act("ConditionCheck", `"Key":`+key(`{"S":"b"}`)+`,"ConditionExpression":"d = :deep","ExpressionAttributeValues":{":deep":`+nested(100)+`}`)),
			emptyName},
		{"ConditionValueNestedBeforeLaterEmptyName", "TransactWriteItems",
			tx(act("ConditionCheck", `"Key":`+key(`{"S":"b"}`)+`,"ConditionExpression":"d = :deep","ExpressionAttributeValues":{":deep":`+nested(40)+`}`),
				put(item("a", `,"":{"S":"x"}`), "")),
			nest},
		{"UpdateValueNestedBeforeLaterEmptyName", "TransactWriteItems",
			tx(act("Update", `"Key":`+key(`{"S":"a"}`)+`,"UpdateExpression":"SET d = :deep","ExpressionAttributeValues":{":deep":`+nested(40)+`}`),
				put(item("b", `,"":{"S":"x"}`), "")),
			nest},
		{"KeyNestedBeforeLaterSyntaxError", "TransactWriteItems",
			tx(act("Delete", `"Key":`+key(nested(40))), put(key(`{"S":"a"}`), `,"ConditionExpression":"a = = b"`)), nest},
		{"KeyNestedBeforeLaterUnusedValue", "TransactWriteItems",
			tx(act("ConditionCheck", `"Key":`+key(nested(40))+`,"ConditionExpression":"attribute_exists(a)"`),
				act("Update", `"Key":`+key(`{"S":"a"}`)+`,"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"},":u":{"S":"y"}}`)),
			nest},
		{"SyntaxErrorBeforeLaterKeyNested", "TransactWriteItems",
			tx(put(key(`{"S":"a"}`), `,"ConditionExpression":"a = = b"`), act("Delete", `"Key":`+key(nested(100)))), syntax},
		{"SyntaxErrorBeforeKeyNestedInSameAction", "TransactWriteItems",
			tx(act("Delete", `"Key":`+key(nested(100))+`,"ConditionExpression":"a = = b"`)), syntax},
		{"OversizedConditionBeforeKeyNestedInSameAction", "TransactWriteItems",
			tx(act("Delete", `"Key":`+key(nested(100))+`,"ConditionExpression":"a = :v`+strings.Repeat(" AND a = :v", 373)+`","ExpressionAttributeValues":{":v":{"S":"x"}}`)),
			"Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4109"},
		{"OversizedUpdateBeforeLaterKeyNested", "TransactWriteItems",
			tx(act("Update", `"Key":`+key(`{"S":"a"}`)+`,"UpdateExpression":"SET `+strings.Join(sets, ", ")+`","ExpressionAttributeValues":{":v":{"S":"x"}}`),
				act("ConditionCheck", `"Key":`+key(nested(100))+`,"ConditionExpression":"attribute_exists(a)"`)),
			"Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"},
		{"UnusedValueBeforeLaterKeyNested", "TransactWriteItems",
			tx(act("Update", `"Key":`+key(`{"S":"a"}`)+`,"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"},":u":{"S":"y"}}`),
				act("ConditionCheck", `"Key":`+key(nested(100))+`,"ConditionExpression":"attribute_exists(a)"`)),
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
	})
}

// An action reads only the members it takes: a Put its Item, the others
// their Key (a stray member is not read, as DynamoDB ignores members a
// shape does not have), and malformed JSON anywhere is a
// SerializationException, even after a value DynamoDB refuses.
func TestTransactWriteItemsReadsTheMembersEachActionTakes(t *testing.T) {
	e := layersEngine(t)
	const badNumber = "The parameter cannot be converted to a numeric value: bad"
	for _, c := range []struct{ name, body, typ, msg string }{
		{"PutItemBeforeStrayKey", `{"TransactItems":[{"Put":{"TableName":"vltable","Item":{"pk":{"S":"a"},"n":{"N":"bad"}},"Key":{"pk":{"S":"a"}}}}]}`,
			"ValidationException", badNumber},
		{"PutStrayKeyBeforeItem", `{"TransactItems":[{"Put":{"TableName":"vltable","Key":{"pk":{"N":"bad"}},"Item":{"pk":{"S":"put-stray-key"}}}}]}`, "", ""},
		{"DeleteKeyBeforeStrayItem", `{"TransactItems":[{"Delete":{"TableName":"vltable","Key":{"pk":{"S":"a"},"n":{"N":"bad"}},"Item":{"pk":{"S":"a"}}}}]}`,
			"ValidationException", badNumber},
		{"UpdateStrayItemWithEmptyName", `{"TransactItems":[{"Update":{"TableName":"vltable","Key":{"pk":{"S":"upd-stray"}},"Item":{"":{"S":"x"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"}}}}]}`, "", ""},
		{"MalformedAfterInvalidValueInItem", `{"TransactItems":[{"Put":{"TableName":"absent_t","Item":{"pk":{"S":"a"}}}},{"Put":{"TableName":"vltable","Item":{"pk":{"S":"b"},"x":{"N":"bad"},"y":{"S" "z"}}}}]}`,
			"SerializationException", ""},
		{"MalformedAfterInvalidValueInValues", `{"TransactItems":[{"Update":{"TableName":"vltable","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET a = :a","ExpressionAttributeValues":{":a":{"N":"bad"},":b":{"S":tru}}}}]}`,
			"SerializationException", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, msg := rawCall(t, e, "TransactWriteItems", c.body)
			if typ != c.typ || c.msg != "" && msg != c.msg {
				t.Errorf("got %s %q; want %s %q", typ, msg, c.typ, c.msg)
			}
		})
	}
	// The same malformed item in PutItem.
	if typ, msg := rawCall(t, e, "PutItem", `{"TableName":"vltable","Item":{"pk":{"S":"b"},"x":{"N":"bad"},"y":{"S" "z"}}}`); typ != "SerializationException" {
		t.Errorf("PutItem: got %s %q; want SerializationException", typ, msg)
	}
}
