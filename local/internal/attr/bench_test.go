package attr

import (
	"encoding/json"
	"testing"
)

const benchItem = `{"PK":{"S":"STU#a91"},"SK":{"S":"ENROLL#CRS#math204"},"GSI1PK":{"S":"CRS#math204"},
"GSI1SK":{"S":"STU#a91"},"grade":{"N":"3.75"},"enrolledOn":{"S":"2024-09-01"},"tags":{"SS":["a","b"]},
"meta":{"M":{"by":{"S":"admin"},"n":{"N":"12"}}}}`

func BenchmarkUnmarshalItem(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnmarshalItem([]byte(benchItem)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalItem(b *testing.B) {
	it, _ := UnmarshalItem([]byte(benchItem))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinaryRoundTrip(b *testing.B) {
	it, _ := UnmarshalItem([]byte(benchItem))
	buf := AppendItem(nil, it)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItem(buf[:0], it)
		if _, err := DecodeItem(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendKey(b *testing.B) {
	pk, sk := String("STU#a91"), String("ENROLL#CRS#math204")
	n := Int(-12345)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendKey(AppendKey(AppendKey(buf[:0], pk), sk), n)
	}
}
