package attr

import (
	"testing"

	"pgregory.net/rapid"
)

func genValue(depth int) *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		maxKind := 10
		if depth <= 0 {
			maxKind = 5
		}
		switch Kind(rapid.IntRange(1, maxKind).Draw(t, "kind")) {
		case S:
			return String(rapid.String().Draw(t, "s"))
		case N:
			return genNumber().Draw(t, "n")
		case B:
			return Binary(rapid.SliceOf(rapid.Byte()).Draw(t, "b"))
		case BOOL:
			return Bool(rapid.Bool().Draw(t, "bool"))
		case NULL:
			return Null()
		case M:
			return Map(rapid.MapOfN(rapid.String(), genValue(depth-1), 0, 4).Draw(t, "m"))
		case L:
			return List(rapid.SliceOfN(genValue(depth-1), 0, 4).Draw(t, "l"))
		case SS:
			v, _ := StringSet(rapid.SliceOfNDistinct(rapid.String(), 1, 4, rapid.ID).Draw(t, "ss")...)
			return v
		case NS:
			ns := rapid.SliceOfNDistinct(genNumber(), 1, 4, func(v Value) string { return v.Str }).Draw(t, "ns")
			strs := make([]string, len(ns))
			for i, n := range ns {
				strs[i] = n.Str
			}
			return Value{Kind: NS, Strs: strs}
		default:
			bs := rapid.SliceOfNDistinct(rapid.SliceOf(rapid.Byte()), 1, 4, func(b []byte) string { return string(b) }).Draw(t, "bs")
			return Value{Kind: BS, Bins: bs}
		}
	})
}

func genItem() *rapid.Generator[Item] {
	return rapid.Custom(func(t *rapid.T) Item {
		return Item(rapid.MapOfN(rapid.String(), genValue(2), 0, 6).Draw(t, "item"))
	})
}

func TestBinaryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := genItem().Draw(t, "it")
		enc := AppendItem(nil, it)
		back, err := DecodeItem(enc)
		if err != nil {
			t.Fatal(err)
		}
		if !EqualItems(it, back) {
			t.Fatalf("binary round trip: %v -> %v", it, back)
		}
		if ItemSize(it) != ItemSize(back) {
			t.Fatalf("size changed")
		}
	})
}

func TestJSONRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := genItem().Draw(t, "it")
		js, err := it.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalItem(js)
		if err != nil {
			t.Fatalf("decode %s: %v", js, err)
		}
		if !EqualItems(it, back) {
			t.Fatalf("json round trip: %s", js)
		}
	})
}

func TestDecodeItemCorrupt(t *testing.T) {
	enc := AppendItem(nil, Item{"a": String("hello"), "b": List([]Value{Int(1)})})
	for i := 0; i < len(enc); i++ {
		if _, err := DecodeItem(enc[:i]); err == nil {
			t.Errorf("truncated at %d decoded without error", i)
		}
	}
}
