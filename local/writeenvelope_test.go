package local

import "testing"

// PutItem, UpdateItem and DeleteItem report the checks of their expression
// parameters, ReturnValues, Expected and ConditionExpression inside the
// validation envelope, and values without an expression no longer name the
// expression missing (captured in two regions, 2026-10-09; a reserved word in
// a PutItem condition as a user's log quotes DynamoDB).
func TestSingleItemWritesReportRequestChecksInsideValidationEnvelope(t *testing.T) {
	e := layersEngine(t)
	const invalid = envelope + "One or more parameter values were invalid: "
	put := func(extra string) string { return `{"TableName":"vltable","Item":{"pk":{"S":"a"}}` + extra + `}` }
	del := func(extra string) string { return `{"TableName":"vltable","Key":{"pk":{"S":"a"}}` + extra + `}` }
	checkRefusals(t, e, []refusalCase{
		{"PutItemValuesWithoutExpression", "PutItem", put(`,"ExpressionAttributeValues":{":v":{"S":"x"}}`),
			envelope + "ExpressionAttributeValues can only be specified when using expressions"},
		{"PutItemNamesWithoutExpression", "PutItem", put(`,"ExpressionAttributeNames":{"#a":"a"}`),
			envelope + "ExpressionAttributeNames can only be specified when using expressions"},
		{"PutItemEmptyCondition", "PutItem", put(`,"ConditionExpression":""`),
			envelope + "Invalid ConditionExpression: The expression can not be empty;"},
		{"PutItemExpectedExistsWithoutValue", "PutItem", put(`,"Expected":{"a":{"Exists":true}}`),
			invalid + "Value must be provided when Exists is true for Attribute: a"},
		{"PutItemExpectedOperatorWithoutValue", "PutItem", put(`,"Expected":{"a":{"ComparisonOperator":"EQ"}}`),
			invalid + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{"PutItemReservedWordInCondition", "PutItem", put(`,"ConditionExpression":"status = :v","ExpressionAttributeValues":{":v":{"S":"x"}}`),
			envelope + "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"UpdateItemUndefinedConditionValue", "UpdateItem",
			`{"TableName":"vltable","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET b = :w","ConditionExpression":"a = :v","ExpressionAttributeValues":{":w":{"S":"x"}}}`,
			envelope + "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v"},
		{"DeleteItemValuesWithoutExpression", "DeleteItem", del(`,"ExpressionAttributeValues":{":v":{"S":"x"}}`),
			envelope + "ExpressionAttributeValues can only be specified when using expressions"},
		{"DeleteItemNamesWithoutExpression", "DeleteItem", del(`,"ExpressionAttributeNames":{"#a":"a"}`),
			envelope + "ExpressionAttributeNames can only be specified when using expressions"},
		{"DeleteItemNamesBesideExpected", "DeleteItem", del(`,"Expected":{"a":{"Exists":false}},"ExpressionAttributeNames":{"#a":"a"}`),
			envelope + "ExpressionAttributeNames can only be specified when using expressions"},
		{"DeleteItemEmptyValues", "DeleteItem", del(`,"ConditionExpression":"attribute_exists(a)","ExpressionAttributeValues":{}`),
			envelope + "ExpressionAttributeValues must not be empty"},
		{"DeleteItemEmptyNames", "DeleteItem", del(`,"ConditionExpression":"attribute_exists(a)","ExpressionAttributeNames":{}`),
			envelope + "ExpressionAttributeNames must not be empty"},
		{"DeleteItemEmptyCondition", "DeleteItem", del(`,"ConditionExpression":""`),
			envelope + "Invalid ConditionExpression: The expression can not be empty;"},
		{"DeleteItemReturnValuesAllNew", "DeleteItem", del(`,"ReturnValues":"ALL_NEW"`),
			envelope + "ReturnValues can only be ALL_OLD or NONE"},
		{"DeleteItemReturnValuesUpdatedNew", "DeleteItem", del(`,"ReturnValues":"UPDATED_NEW"`),
			envelope + "ReturnValues can only be ALL_OLD or NONE"},
		{"DeleteItemExpectedExistsWithoutValue", "DeleteItem", del(`,"Expected":{"a":{"Exists":true}}`),
			invalid + "Value must be provided when Exists is true for Attribute: a"},
		{"DeleteItemExpectedAbsentWithValue", "DeleteItem", del(`,"Expected":{"a":{"Exists":false,"Value":{"S":"x"}}}`),
			invalid + "Value cannot be used when Exists is false for Attribute: a"},
		{"DeleteItemExpectedValueAndList", "DeleteItem", del(`,"Expected":{"a":{"Value":{"S":"x"},"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}}`),
			invalid + "Value and AttributeValueList cannot be used together for Attribute: a"},
		{"DeleteItemExpectedOperatorWithoutValue", "DeleteItem", del(`,"Expected":{"a":{"ComparisonOperator":"EQ"}}`),
			invalid + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{"DeleteItemExpectedBetweenOneValue", "DeleteItem", del(`,"Expected":{"a":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"S":"x"}]}}`),
			invalid + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		// Reads keep the bare message, naming what is missing.
		{"GetItemNamesWithoutProjection", "GetItem", `{"TableName":"vltable","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"#a":"a"}}`,
			"ExpressionAttributeNames can only be specified when using expressions"},
		{"ScanValuesWithoutFilter", "Scan", `{"TableName":"vltable","ExpressionAttributeValues":{":v":{"S":"x"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"},
	})
}
