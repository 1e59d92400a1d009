package local

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

func TestBinaryItemJSONMatchesDecode(t *testing.T) {
	it, err := attr.UnmarshalItem([]byte(`{"s":{"S":"a\"b\u0001"},"n":{"N":"-12.50"},"b":{"B":"AAEC"},"t":{"BOOL":true},"f":{"BOOL":false},
		"z":{"NULL":true},"m":{"M":{"x":{"L":[{"N":"1"},{"SS":["p","q"]},{"M":{}}]},"y":{"NS":["1","2.5"]}}},"bs":{"BS":["AA==","AQ=="]},"e":{"S":""}}`))
	if err != nil {
		t.Fatal(err)
	}
	enc := attr.AppendItem(nil, it)
	got, size, err := appendBinaryItemJSON(nil, enc)
	if err != nil {
		t.Fatal(err)
	}
	if size != attr.ItemSize(it) {
		t.Fatalf("size %d, attr.ItemSize %d", size, attr.ItemSize(it))
	}
	back, err := attr.UnmarshalItem(got)
	if err != nil {
		t.Fatalf("transcoded JSON does not parse: %v\n%s", err, got)
	}
	if !attr.EqualItems(back, it) {
		t.Fatalf("round trip differs:\n%s", got)
	}
	var generic, want map[string]any
	json.Unmarshal(got, &generic)
	wantJSON, _ := it.MarshalJSON()
	json.Unmarshal(wantJSON, &want)
	if !reflect.DeepEqual(generic, want) {
		t.Fatalf("JSON differs from Item.MarshalJSON:\n%s\n%s", got, wantJSON)
	}
	if _, _, err := appendBinaryItemJSON(nil, enc[:len(enc)-1]); err == nil {
		t.Fatal("truncated encoding accepted")
	}
}
