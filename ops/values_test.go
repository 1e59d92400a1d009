package ops

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// marshalValue writes strings and booleans itself; what it writes must be
// what the SDK's marshaler writes for them, the empty string included.
func TestMarshalValueMatchesTheSDKMarshaler(t *testing.T) {
	for _, v := range []any{"", "math204", "é 🙂", true, false} {
		got, err := marshalValue("a", v)
		if err != nil {
			t.Fatalf("marshalValue(%#v): %v", v, err)
		}
		want, err := attributevalue.Marshal(v)
		if err != nil {
			t.Fatalf("attributevalue.Marshal(%#v): %v", v, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("marshalValue(%#v) = %#v, the SDK gives %#v", v, got, want)
		}
	}
}
