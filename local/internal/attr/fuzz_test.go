package attr

import (
	"testing"
	"unicode/utf8"
)

func FuzzDecodeItem(f *testing.F) {
	it, _ := UnmarshalItem([]byte(benchItem))
	f.Add(AppendItem(nil, it))
	f.Add(AppendItem(nil, Item{"l": List([]Value{Null(), Bool(false), Binary([]byte{0})})}))
	f.Add([]byte{1, 1, 'a', 9, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := DecodeItem(b)
		if err != nil {
			return
		}
		// whatever decodes must re-encode to an equivalent item
		back, err := DecodeItem(AppendItem(nil, it))
		if err != nil || !EqualItems(it, back) {
			t.Fatalf("re-encode of %x: %v", b, err)
		}
	})
}

func FuzzUnmarshalItem(f *testing.F) {
	f.Add([]byte(benchItem))
	f.Add([]byte(`{"a":{"NS":["1","1.0"]},"b":{"L":[{"M":{}}]}}`))
	f.Add([]byte(`{"s":{"S":"\ud83d\ude00\u0000"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := UnmarshalItem(b)
		if err != nil {
			return
		}
		out, err := it.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := UnmarshalItem(out)
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		if !EqualItems(it, back) && utf8.Valid(b) {
			t.Fatalf("round trip changed %s -> %s", b, out)
		}
	})
}
