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
			fast.tableNameSet = false // a presence flag encoding/json cannot set
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

// TestDecodeItemErrorsKeepTheirKind checks the one-pass item reader reports
// what the two-pass one did: malformed JSON after an invalid value is still
// a SerializationException, an invalid value in well-formed JSON a
// ValidationException, and the members after an item are still read.
func TestDecodeItemErrorsKeepTheirKind(t *testing.T) {
	for _, c := range []struct {
		body, want string
	}{
		{`{"TableName":"t","Item":{"n":{"N":"x"},"s":{"S":"a}}}`, errSerialization},
		{`{"TableName":"t","Item":{"n":{"N":"x"},"s":{"S":"a"}}}`, errValidation},
		{`{"TableName":"t","Item":{"s":{"S":"a"}},"ReturnValues":5}`, errSerialization},
	} {
		var in putItemIn
		err := decodePutItem([]byte(c.body), &in)
		ae, ok := err.(*apiError)
		if !ok || ae.Type != c.want {
			t.Errorf("%s: err %v, want %s", c.body, err, c.want)
		}
	}
	var in putItemIn
	body := `{"Item":{"PK":{"S":"a"},"m":{"M":{"x":{"NS":["1","2"]}}}},"TableName":"t","ReturnValues":"ALL_OLD"}`
	if err := decodePutItem([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	if in.TableName != "t" || in.ReturnValues != "ALL_OLD" || len(in.Item) != 2 || in.Item["m"].Map["x"].Strs[1] != "2" {
		t.Fatalf("decoded %+v", in)
	}
}
