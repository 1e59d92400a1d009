package local

import (
	"reflect"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

// FuzzDecodePutItem checks the hand-written decoder against encoding/json:
// it must never panic, and where both accept a body they must agree.
func FuzzDecodePutItem(f *testing.F) {
	for _, s := range []string{
		`{"TableName":"t","Item":{"PK":{"S":"a"},"n":{"N":"1"}},"ConditionExpression":"attribute_not_exists(PK)"}`,
		`{"TableName":"t\u00e9\"x","Item":{"m":{"M":{"l":{"L":[{"BOOL":true},{"NULL":true}]}}}},"ExpressionAttributeNames":{"#a":"b"},"ExpressionAttributeValues":{":v":{"SS":["x"]}},"Unknown":[1,{"a":null}],"ReturnValues":"ALL_OLD"}`,
		`{"TableName":null,"Item":null}`,
		` { "TableName" : "t" , "Expected" : {"a":{"Exists":false}} } `,
		`{"TableName":"t",}`, `{"TableName":5}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast, std putItemIn
		errFast := decodePutItem(body, &fast)
		errStd := decodeRequest(body, &std)
		if errFast == nil && errStd == nil {
			if std.Expected != nil {
				std.Expected = map[string]any{}
			}
			if !reflect.DeepEqual(fast, std) && !itemsEqual(fast.Item, std.Item) {
				t.Fatalf("decoders disagree on %q:\nfast %+v\nstd  %+v", body, fast, std)
			}
		}
		if errStd == nil && errFast != nil {
			if ae, ok := errFast.(*apiError); !ok || ae.Type != errValidation {
				t.Fatalf("fast decoder refused a valid body %q: %v", body, errFast)
			}
		}
	})
}

func itemsEqual(a, b attr.Item) bool { return attr.EqualItems(a, b) }
