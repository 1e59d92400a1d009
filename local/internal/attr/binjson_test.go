package attr

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestAppendJSONFromBinaryMatchesDecode(t *testing.T) {
	it, err := UnmarshalItem([]byte(`{"s":{"S":"a\"b\u0001"},"n":{"N":"-12.50"},"b":{"B":"AAEC"},"t":{"BOOL":true},"f":{"BOOL":false},
		"z":{"NULL":true},"m":{"M":{"x":{"L":[{"N":"1"},{"SS":["p","q"]},{"M":{}}]},"y":{"NS":["1","2.5"]}}},"bs":{"BS":["AA==","AQ=="]},"e":{"S":""}}`))
	if err != nil {
		t.Fatal(err)
	}
	enc := AppendItem(nil, it)
	got, size, err := AppendJSONFromBinary(nil, enc)
	if err != nil {
		t.Fatal(err)
	}
	if size != ItemSize(it) {
		t.Fatalf("size %d, ItemSize %d", size, ItemSize(it))
	}
	back, err := UnmarshalItem(got)
	if err != nil {
		t.Fatalf("transcoded JSON does not parse: %v\n%s", err, got)
	}
	if !EqualItems(back, it) {
		t.Fatalf("round trip differs:\n%s", got)
	}
	var generic, want map[string]any
	json.Unmarshal(got, &generic)
	wantJSON, _ := it.MarshalJSON()
	json.Unmarshal(wantJSON, &want)
	if !reflect.DeepEqual(generic, want) {
		t.Fatalf("JSON differs from Item.MarshalJSON:\n%s\n%s", got, wantJSON)
	}
	if _, _, err := AppendJSONFromBinary(nil, enc[:len(enc)-1]); !errors.Is(err, errCorrupt) {
		t.Fatalf("truncated encoding: err %v, want errCorrupt", err)
	}
	if _, _, err := AppendJSONFromBinary(nil, append(enc, 0)); !errors.Is(err, errCorrupt) {
		t.Fatalf("trailing byte: err %v, want errCorrupt", err)
	}
}

func TestDecodeItemAt(t *testing.T) {
	in := `{"x": {"a":{"S":"x"},"b":{"L":[{"N":"1"},{"M":{"c":{"BOOL":true}}}]}} ,"next":1}`
	it, end, err := DecodeItemAt(in, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rest := in[end:]; rest != ` ,"next":1}` {
		t.Fatalf("rest %q", rest)
	}
	want, err := UnmarshalItem([]byte(in[5:end]))
	if err != nil {
		t.Fatal(err)
	}
	if !EqualItems(it, want) {
		t.Fatalf("got %v, want %v", it, want)
	}
	// The same validation as UnmarshalJSON.
	_, _, err = DecodeItemAt(`{"n":{"N":"1e200"}}`, 0)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("bad number: err %v, want *ValidationError", err)
	}
	_, _, err = DecodeItemAt(`{"a":{"S":"x"}`, 0)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("unterminated item: err %v, want *SyntaxError", err)
	}
}
