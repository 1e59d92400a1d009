package dyntest

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The legacy (pre-expression) write parameters: Expected with
// ConditionalOperator, and AttributeUpdates.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html
// Operator semantics: API_Condition and API_ExpectedAttributeValue in the
// API reference; cases the reference leaves open (NOT_CONTAINS of a missing
// attribute, CONTAINS on lists, EQ on maps) follow ScyllaDB Alternator's
// test_expected.py and test_query_filter.py, which were run on DynamoDB.

// legacyCase is one comparison on legacyItem and whether it holds.
type legacyCase struct {
	name string
	attr string
	op   types.ComparisonOperator
	vals []types.AttributeValue
	want bool
}

// legacyItem holds one attribute of each kind the operators compare.
func legacyItem() item {
	return item{
		"pk": vS("x"), "n": vN("5"), "s": vS("hello"), "b": vB([]byte("hi there")),
		"ss": vSS("a", "b"), "ns": vNS("1", "2"), "l": vL(vN("4"), vS("y")),
		"m": vM(item{"k": vN("1")}), "t": vBool(true),
	}
}

var legacyCases = []legacyCase{
	{"EQ", "n", "EQ", []types.AttributeValue{vN("5.0")}, true},
	{"EQOtherType", "n", "EQ", []types.AttributeValue{vS("5")}, false},
	{"EQSetUnordered", "ss", "EQ", []types.AttributeValue{vSS("b", "a")}, true},
	{"EQMap", "m", "EQ", []types.AttributeValue{vM(item{"k": vN("1")})}, true},
	{"EQBool", "t", "EQ", []types.AttributeValue{vBool(true)}, true},
	{"EQMissing", "zz", "EQ", []types.AttributeValue{vN("5")}, false},
	{"NE", "n", "NE", []types.AttributeValue{vN("6")}, true},
	{"NEEqual", "n", "NE", []types.AttributeValue{vN("5")}, false},
	{"NEOtherType", "n", "NE", []types.AttributeValue{vS("5")}, true},
	{"NEMissing", "zz", "NE", []types.AttributeValue{vN("5")}, true},
	{"LE", "n", "LE", []types.AttributeValue{vN("5")}, true},
	{"LT", "n", "LT", []types.AttributeValue{vN("5")}, false},
	{"LTString", "s", "LT", []types.AttributeValue{vS("help")}, true},
	{"LTBinary", "b", "LT", []types.AttributeValue{vB([]byte("hz"))}, true},
	{"LTOtherType", "n", "LT", []types.AttributeValue{vS("9")}, false},
	{"GE", "n", "GE", []types.AttributeValue{vN("6")}, false},
	{"GT", "n", "GT", []types.AttributeValue{vN("4")}, true},
	{"NOT_NULL", "n", "NOT_NULL", nil, true},
	{"NOT_NULLMissing", "zz", "NOT_NULL", nil, false},
	{"NULL", "zz", "NULL", nil, true},
	{"NULLPresent", "n", "NULL", nil, false},
	{"CONTAINSSubstring", "s", "CONTAINS", []types.AttributeValue{vS("ell")}, true},
	{"CONTAINSSetMember", "ns", "CONTAINS", []types.AttributeValue{vN("2")}, true},
	{"CONTAINSListMember", "l", "CONTAINS", []types.AttributeValue{vN("4")}, true},
	{"CONTAINSBinary", "b", "CONTAINS", []types.AttributeValue{vB([]byte("here"))}, true},
	{"CONTAINSAbsent", "ss", "CONTAINS", []types.AttributeValue{vS("z")}, false},
	{"CONTAINSMissing", "zz", "CONTAINS", []types.AttributeValue{vS("z")}, false},
	{"NOT_CONTAINS", "s", "NOT_CONTAINS", []types.AttributeValue{vS("dog")}, true},
	{"NOT_CONTAINSMember", "ss", "NOT_CONTAINS", []types.AttributeValue{vS("a")}, false},
	{"NOT_CONTAINSMissing", "zz", "NOT_CONTAINS", []types.AttributeValue{vS("a")}, false},
	{"BEGINS_WITH", "s", "BEGINS_WITH", []types.AttributeValue{vS("hell")}, true},
	{"BEGINS_WITHBinary", "b", "BEGINS_WITH", []types.AttributeValue{vB([]byte("hi"))}, true},
	{"BEGINS_WITHNumberAttribute", "n", "BEGINS_WITH", []types.AttributeValue{vS("5")}, false},
	{"IN", "s", "IN", []types.AttributeValue{vS("a"), vS("hello")}, true},
	{"INNone", "n", "IN", []types.AttributeValue{vN("1"), vN("2")}, false},
	{"INSetIsNotMembership", "ns", "IN", []types.AttributeValue{vN("1")}, false},
	{"BETWEEN", "n", "BETWEEN", []types.AttributeValue{vN("5"), vN("9")}, true},
	{"BETWEENOutside", "n", "BETWEEN", []types.AttributeValue{vN("6"), vN("9")}, false},
}

// legacyInvalid is one malformed Expected entry and the message it earns;
// the strings are DynamoDB's as dynalite's validation tests record them. q
// names a quirk of a target that accepts this entry although it refuses
// the others.
type legacyInvalid struct {
	name string
	exp  types.ExpectedAttributeValue
	frag string
	q    Quirk
}

var legacyInvalidExpected = []legacyInvalid{
	{"OperatorWithoutValues", types.ExpectedAttributeValue{ComparisonOperator: "LT"},
		"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: LT for Attribute: n", ""},
	{"ExistsWithOperator", types.ExpectedAttributeValue{Exists: aws.Bool(true), ComparisonOperator: "NOT_NULL"},
		"One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: n", ""},
	{"ValueAndList", types.ExpectedAttributeValue{ComparisonOperator: "EQ", Value: vN("1"), AttributeValueList: []types.AttributeValue{vN("1")}},
		"One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: n", ""},
	{"ListWithoutOperator", types.ExpectedAttributeValue{AttributeValueList: []types.AttributeValue{vN("1")}},
		"One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: n", ""},
	{"ExistsTrueWithoutValue", types.ExpectedAttributeValue{Exists: aws.Bool(true)},
		"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: n", ""},
	{"ExistsFalseWithValue", types.ExpectedAttributeValue{Exists: aws.Bool(false), Value: vN("1")},
		"One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: n", ""},
	{"WrongCount", types.ExpectedAttributeValue{ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vN("1"), vN("2")}},
		"One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator", ""},
	{"NullWithValue", types.ExpectedAttributeValue{ComparisonOperator: "NULL", AttributeValueList: []types.AttributeValue{vN("1")}},
		"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator", ""},
	{"EmptyIn", types.ExpectedAttributeValue{ComparisonOperator: "IN", AttributeValueList: []types.AttributeValue{}},
		"One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator", ""},
	{"MixedTypes", types.ExpectedAttributeValue{ComparisonOperator: "IN", AttributeValueList: []types.AttributeValue{vN("1"), vS("a")}},
		"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type", ""},
	{"ContainsList", types.ExpectedAttributeValue{ComparisonOperator: "CONTAINS", AttributeValueList: []types.AttributeValue{vL(vN("1"))}},
		"One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type", QuirkExpectedOperandTypesUnchecked},
	{"BeginsWithNumber", types.ExpectedAttributeValue{ComparisonOperator: "BEGINS_WITH", AttributeValueList: []types.AttributeValue{vN("3")}},
		"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type", QuirkExpectedOperandTypesUnchecked},
	{"BetweenReversed", types.ExpectedAttributeValue{ComparisonOperator: "BETWEEN", AttributeValueList: []types.AttributeValue{vN("4"), vN("3")}},
		"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound", ""},
	{"UnknownOperator", types.ExpectedAttributeValue{ComparisonOperator: "eq", AttributeValueList: []types.AttributeValue{vN("1")}},
		"1 validation error detected: Value 'eq' at 'expected.n.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]", ""},
}

func (s *suite) testLegacyWrites(t *testing.T) {
	t.Run("ExpectedOperators", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, legacyItem())
		s.legacyOutcomes(t, func(t *testing.T, c legacyCase) string {
			_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("x")},
				AttributeUpdates: map[string]types.AttributeValueUpdate{"seen": {Value: vS(c.name)}},
				Expected:         map[string]types.ExpectedAttributeValue{c.attr: {ComparisonOperator: c.op, AttributeValueList: c.vals}}})
			var ccf *types.ConditionalCheckFailedException
			switch {
			case c.want && err != nil:
				return fmt.Sprintf("condition that holds: %v", err)
			case !c.want && !asErr(err, &ccf):
				return fmt.Sprintf("condition that fails: want ConditionalCheckFailedException, got %v", err)
			}
			return ""
		})
	})

	t.Run("ExpectedValueAndExists", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("x"), "a": vN("1")})
		put := func(v string, exp map[string]types.ExpectedAttributeValue) error {
			_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb),
				Item: item{"pk": vS("x"), "a": vN("1"), "v": vS(v)}, Expected: exp})
			return err
		}
		must(t, put("value", map[string]types.ExpectedAttributeValue{"a": {Value: vN("1")}}), "Value equal")
		must(t, put("exists", map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true), Value: vN("1")}}), "Exists true with Value")
		must(t, put("absent", map[string]types.ExpectedAttributeValue{"zz": {Exists: aws.Bool(false)}}), "Exists false")
		wantTyped[*types.ConditionalCheckFailedException](t, put("bad", map[string]types.ExpectedAttributeValue{"a": {Value: vN("2")}}))
		wantTyped[*types.ConditionalCheckFailedException](t, put("bad", map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}))
		wantTyped[*types.ConditionalCheckFailedException](t, put("bad", map[string]types.ExpectedAttributeValue{"zz": {Value: vN("1")}}))
		wantItem(t, "after the refused puts", s.get(t, tb, item{"pk": vS("x")}), item{"pk": vS("x"), "a": vN("1"), "v": vS("absent")})
		// DeleteItem takes Expected too.
		_, err := s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"pk": vS("x")},
			Expected: map[string]types.ExpectedAttributeValue{"a": {Value: vN("2")}}})
		var ccf *types.ConditionalCheckFailedException
		s.documented(t, QuirkDeleteItemIgnoresExpected, asErr(err, &ccf), "DeleteItem with a condition that fails: want ConditionalCheckFailedException, got %v", err)
		_, err = s.c.DeleteItem(s.ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(tb), Key: item{"pk": vS("x")},
			Expected: map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vN("1")}}}})
		must(t, err, "DeleteItem with a condition that holds")
		if got := s.get(t, tb, item{"pk": vS("x")}); got != nil {
			t.Errorf("item still there after DeleteItem: %s", showItem(got))
		}
	})

	// ConditionalOperator joins the entries with AND (the default) or OR.
	t.Run("ConditionalOperator", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("x"), "a": vN("1"), "b": vN("2")})
		upd := func(op types.ConditionalOperator) error {
			_, err := s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS("x")},
				AttributeUpdates: map[string]types.AttributeValueUpdate{"z": {Action: "PUT", Value: vS(string(op))}},
				Expected: map[string]types.ExpectedAttributeValue{"a": {Value: vN("1")},
					"b": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{vN("999")}}},
				ConditionalOperator: op})
			return err
		}
		wantTyped[*types.ConditionalCheckFailedException](t, upd(""))
		wantTyped[*types.ConditionalCheckFailedException](t, upd("AND"))
		err := upd("OR")
		if s.quirks.Has(QuirkLegacyOrIgnored) {
			s.documented(t, QuirkLegacyOrIgnored, err == nil, "")
			return
		}
		if s.quirks.Has(QuirkLegacyOrFirstCondition) {
			// Which entry decides depends on the order the SDK writes the
			// map in; the read paths assert the quirk.
			var ccf *types.ConditionalCheckFailedException
			if err != nil && !asErr(err, &ccf) {
				t.Errorf("OR with one entry true: want success or ConditionalCheckFailedException (quirk %s), got %v", QuirkLegacyOrFirstCondition, err)
			}
			t.Logf("OR with one entry true: %v (quirk %s)", err, QuirkLegacyOrFirstCondition)
			return
		}
		must(t, err, "OR with one entry true")
		wantItem(t, "after OR", s.get(t, tb, item{"pk": vS("x")}), item{"pk": vS("x"), "a": vN("1"), "b": vN("2"), "z": vS("OR")})
	})

	t.Run("ExpectedValidation", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		s.put(t, tb, item{"pk": vS("x"), "n": vN("1")})
		for _, c := range legacyInvalidExpected {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(tb),
					Item: item{"pk": vS("x"), "n": vN("2")}, Expected: map[string]types.ExpectedAttributeValue{"n": c.exp}})
				q := c.q
				if s.quirks.Has(QuirkLegacyValidationLax) {
					q = QuirkLegacyValidationLax
				}
				s.refused(t, q, err, c.frag)
			})
		}
		if !s.quirks.Has(QuirkLegacyValidationLax) {
			wantItem(t, "item after refused puts", s.get(t, tb, item{"pk": vS("x")}), item{"pk": vS("x"), "n": vN("1")})
		}
	})

	t.Run("AttributeUpdates", s.testAttributeUpdates)
}

// testAttributeUpdates applies each AttributeValueUpdate action as the API
// reference describes it (PUT is the default Action).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
func (s *suite) testAttributeUpdates(t *testing.T) {
	tb := s.table(t, hashOnly)
	s.put(t, tb, item{"pk": vS("u"), "n": vN("10"), "ss": vSS("a", "b", "c"), "l": vL(vN("1")), "gone": vS("x"), "keep": vS("k")})
	upd := func(key string, us map[string]types.AttributeValueUpdate, rv types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
		return s.c.UpdateItem(s.ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tb), Key: item{"pk": vS(key)},
			AttributeUpdates: us, ReturnValues: rv})
	}
	out, err := upd("u", map[string]types.AttributeValueUpdate{
		"p":    {Value: vS("new")}, // no Action: PUT
		"n":    {Action: "ADD", Value: vN("-3")},
		"ss":   {Action: "DELETE", Value: vSS("a", "z")},
		"gone": {Action: "DELETE"},
		"ns":   {Action: "ADD", Value: vNS("7")},
	}, types.ReturnValueUpdatedNew)
	must(t, err, "UpdateItem with AttributeUpdates")
	wantItem(t, "UPDATED_NEW", out.Attributes, item{"p": vS("new"), "n": vN("7"), "ss": vSS("b", "c"), "ns": vNS("7")})
	wantItem(t, "item after update", s.get(t, tb, item{"pk": vS("u")}),
		item{"pk": vS("u"), "p": vS("new"), "n": vN("7"), "ss": vSS("b", "c"), "l": vL(vN("1")), "ns": vNS("7"), "keep": vS("k")})

	// ADD appends to a list, a legacy action the expressions do not have.
	_, err = upd("u", map[string]types.AttributeValueUpdate{"l": {Action: "ADD", Value: vL(vS("two"))}}, "")
	must(t, err, "ADD of a list")
	if got := s.get(t, tb, item{"pk": vS("u")})["l"]; show(got) != show(vL(vN("1"), vS("two"))) {
		t.Errorf("ADD list: l = %s, want [1, two]", show(got))
	}

	// On a missing item: PUT and ADD create it from the key, DELETE does
	// nothing.
	_, err = upd("new", map[string]types.AttributeValueUpdate{"c": {Action: "ADD", Value: vN("2")}, "d": {Action: "DELETE"}}, "")
	must(t, err, "ADD on a missing item")
	wantItem(t, "item made by ADD", s.get(t, tb, item{"pk": vS("new")}), item{"pk": vS("new"), "c": vN("2")})

	for _, c := range []struct {
		name string
		us   map[string]types.AttributeValueUpdate
		frag string
		q    Quirk // of a target that accepts this update although it refuses the others
	}{
		{"NoValue", map[string]types.AttributeValueUpdate{"x": {Action: "PUT"}},
			"One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified", ""},
		{"DeleteScalar", map[string]types.AttributeValueUpdate{"x": {Action: "DELETE", Value: vS("a")}},
			"One or more parameter values were invalid: DELETE action with value is not supported for the type S", ""},
		{"AddString", map[string]types.AttributeValueUpdate{"x": {Action: "ADD", Value: vS("a")}},
			"One or more parameter values were invalid: ADD action is not supported for the type S", ""},
		{"KeyAttribute", map[string]types.AttributeValueUpdate{"pk": {Value: vS("other")}},
			"One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key", ""},
		{"AddWrongSetType", map[string]types.AttributeValueUpdate{"ss": {Action: "ADD", Value: vNS("1")}},
			"Type mismatch for attribute to update", ""},
		{"DeleteFromNumber", map[string]types.AttributeValueUpdate{"n": {Action: "DELETE", Value: vNS("1")}},
			"Type mismatch for attribute to update", ""},
		{"UnknownAction", map[string]types.AttributeValueUpdate{"x": {Action: "REMOVE", Value: vS("a")}},
			"1 validation error detected: Value 'REMOVE' at 'attributeUpdates.x.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]",
			QuirkUpdateActionUnchecked},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := s.get(t, tb, item{"pk": vS("u")})
			_, err := upd("u", c.us, "")
			q := c.q
			if s.quirks.Has(QuirkLegacyValidationLax) {
				q = QuirkLegacyValidationLax
			}
			s.refused(t, q, err, c.frag)
			if !s.quirks.Has(QuirkLegacyValidationLax) {
				wantItem(t, "item after refused update", s.get(t, tb, item{"pk": vS("u")}), before)
			}
		})
	}
}

// legacyOutcomes runs check on every legacyCase; check says how the target
// departed from the documented outcome, or "". A target with
// QuirkLegacyComparisons must depart on some case; which ones is logged.
func (s *suite) legacyOutcomes(t *testing.T, check func(t *testing.T, c legacyCase) string) {
	t.Helper()
	lax := s.quirks.Has(QuirkLegacyComparisons)
	var departed []string
	for _, c := range legacyCases {
		t.Run(c.name, func(t *testing.T) {
			msg := check(t, c)
			switch {
			case msg == "":
			case lax:
				departed = append(departed, c.name)
				t.Logf("%s (quirk %s)", msg, QuirkLegacyComparisons)
			default:
				t.Error(msg)
			}
		})
	}
	if lax {
		s.documented(t, QuirkLegacyComparisons, len(departed) == 0, "")
		t.Logf("cases departing from the documentation: %v", departed)
	}
}
