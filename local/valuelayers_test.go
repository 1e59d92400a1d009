package local

import (
	"encoding/json"
	"strings"
	"testing"
)

// DynamoDB checks attribute values in one of two layers, as captured in four
// regions in October 2026: PutItem, UpdateItem and DeleteItem report a
// malformed number or a duplicate set member inside the "1 validation error
// detected: " envelope, GetItem, BatchGetItem and Query bare but in the same
// current wording, and BatchWriteItem, the transactions and Scan in the
// older wording (attr.ValidationError).

// rawCall posts body as op to e and returns the error type and message, or
// "" and "" when the request succeeds.
func rawCall(t *testing.T, e *Engine, op, body string) (string, string) {
	t.Helper()
	status, raw := postRaw(t, e, op, body)
	if status == 200 {
		return "", ""
	}
	var out struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Msg     string `json:"Message"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: undecodable error body %q", op, raw)
	}
	if out.Message == "" {
		out.Message = out.Msg
	}
	return out.Type[strings.LastIndex(out.Type, "#")+1:], out.Message
}

// layersEngine opens an in-memory engine with the hash table "vltable" (pk S).
func layersEngine(t *testing.T) *Engine {
	t.Helper()
	e := openMem(t)
	if typ, msg := rawCall(t, e, "CreateTable", `{"TableName":"vltable","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`); typ != "" {
		t.Fatalf("create table: %s %s", typ, msg)
	}
	return e
}

type refusalCase struct {
	name, op, body, want string
}

func checkRefusals(t *testing.T, e *Engine, cases []refusalCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ, msg := rawCall(t, e, c.op, c.body)
			if typ != "ValidationException" || msg != c.want {
				t.Errorf("%s:\n got  %s %q\n want ValidationException %q", c.op, typ, msg, c.want)
			}
		})
	}
}

const envelope = "1 validation error detected: "

func TestSingleItemWritesReportValueErrorsInsideValidationEnvelope(t *testing.T) {
	e := layersEngine(t)
	checkRefusals(t, e, []refusalCase{
		{"PutItemNumberOverflow", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"n":{"N":"1e126"}}}`,
			envelope + "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"PutItemEmptyNumber", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"n":{"N":""}}}`,
			envelope + "The parameter cannot be converted to a numeric value: "},
		{"PutItemNestedNumber", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"n":{"M":{"x":{"L":[{"N":"abc"}]}}}}}`,
			envelope + "The parameter cannot be converted to a numeric value: abc"},
		{"PutItemConditionValueHasNoWrapper", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk) OR n = :v","ExpressionAttributeValues":{":v":{"N":"abc"}}}`,
			envelope + "The parameter cannot be converted to a numeric value: abc"},
		{"UpdateItemValueHasNoWrapper", "UpdateItem",
			`{"TableName":"vltable","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :v","ExpressionAttributeValues":{":v":{"N":"1e126"}}}`,
			envelope + "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"DeleteItemKeyNumber", "DeleteItem",
			`{"TableName":"vltable","Key":{"pk":{"N":"abc"}}}`,
			envelope + "The parameter cannot be converted to a numeric value: abc"},
		{"PutItemDuplicateStringSetMembersQuotedInByteOrder", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"s":{"SS":["b","a","b"]}}}`,
			envelope + `One or more parameter values were invalid: Input collection ["a", "b", "b"] contains duplicates.`},
		{"PutItemDuplicateBinarySetMembers", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"s":{"BS":["/w==","AA==","AA=="]}}}`,
			envelope + `One or more parameter values were invalid: Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.`},
		{"PutItemDuplicateNumberSetMembers", "PutItem",
			`{"TableName":"vltable","Item":{"pk":{"S":"a"},"s":{"NS":["2","1","2"]}}}`,
			envelope + "One or more parameter values were invalid: Input collection contains duplicates."},
	})
}

func TestReadsReportValueErrorsBareInCurrentWording(t *testing.T) {
	e := layersEngine(t)
	checkRefusals(t, e, []refusalCase{
		{"GetItemEmptyNumberKeepsColon", "GetItem",
			`{"TableName":"vltable","Key":{"pk":{"N":""}}}`,
			"The parameter cannot be converted to a numeric value: "},
		{"GetItemDuplicateStringSetQuotedInByteOrder", "GetItem",
			`{"TableName":"vltable","Key":{"pk":{"SS":["b","a","b"]}}}`,
			`One or more parameter values were invalid: Input collection ["a", "b", "b"] contains duplicates.`},
		{"BatchGetItemDuplicateNumberSet", "BatchGetItem",
			`{"RequestItems":{"vltable":{"Keys":[{"pk":{"NS":["2","1","2"]}}]}}}`,
			"One or more parameter values were invalid: Input collection contains duplicates."},
		{"QueryFilterValueHasNoWrapper", "Query",
			`{"TableName":"vltable","KeyConditionExpression":"pk = :p","FilterExpression":"n = :v","ExpressionAttributeValues":{":p":{"S":"a"},":v":{"N":"abc"}}}`,
			"The parameter cannot be converted to a numeric value: abc"},
	})
}

// TestOtherOperationsReportValueErrorsInOlderWording: BatchWriteItem, the
// transactions and Scan keep the older wording: an empty number without the
// colon, set members unquoted as sent, expression values in their wrapper.
func TestOtherOperationsReportValueErrorsInOlderWording(t *testing.T) {
	e := layersEngine(t)
	checkRefusals(t, e, []refusalCase{
		{"BatchWriteItemEmptyNumber", "BatchWriteItem",
			`{"RequestItems":{"vltable":[{"PutRequest":{"Item":{"pk":{"S":"a"},"n":{"N":""}}}}]}}`,
			"The parameter cannot be converted to a numeric value"},
		{"BatchWriteItemDuplicateStringSet", "BatchWriteItem",
			`{"RequestItems":{"vltable":[{"PutRequest":{"Item":{"pk":{"S":"a"},"s":{"SS":["b","a","b"]}}}}]}}`,
			"One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."},
		{"BatchWriteItemDuplicateNumberSet", "BatchWriteItem",
			`{"RequestItems":{"vltable":[{"PutRequest":{"Item":{"pk":{"S":"a"},"s":{"NS":["2","1","2"]}}}}]}}`,
			"Input collection contains duplicates"},
		{"TransactWriteItemsUpdateValueInWrapper", "TransactWriteItems",
			`{"TransactItems":[{"Update":{"TableName":"vltable","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :v","ExpressionAttributeValues":{":v":{"N":"abc"}}}}]}`,
			"ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric value: abc for key :v"},
		{"ScanFilterValueInWrapper", "Scan",
			`{"TableName":"vltable","FilterExpression":"n = :v","ExpressionAttributeValues":{":v":{"N":"abc"}}}`,
			"ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric value: abc for key :v"},
	})
}
