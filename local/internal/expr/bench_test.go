package expr

import "testing"

func BenchmarkParseCondition(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e := &Env{Names: map[string]string{"#pk": "PK"}, Values: nil}
		if _, err := ParseCondition("attribute_not_exists(#pk) OR (grade < :g AND begins_with(SK, :p))", e); err == nil {
			b.Fatal("undefined values should fail")
		}
	}
}

func BenchmarkEvalCondition(b *testing.B) {
	it := item(b, `{"PK":{"S":"STU#a91"},"SK":{"S":"ENROLL#CRS#math204"},"grade":{"N":"3.75"}}`)
	c, err := ParseCondition("attribute_exists(#pk) AND (grade < :g AND begins_with(SK, :p))",
		env(b, map[string]string{"#pk": "PK"}, map[string]string{":g": `{"N":"4"}`, ":p": `{"S":"ENROLL#"}`}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := c.Eval(it); !ok {
			b.Fatal("want true")
		}
	}
}

func BenchmarkUpdateApply(b *testing.B) {
	it := item(b, `{"PK":{"S":"STU#a91"},"courseCount":{"N":"41"},"name":{"S":"Ada"}}`)
	u, err := ParseUpdate("SET updatedAt = :t ADD courseCount :one",
		env(b, nil, map[string]string{":t": `{"S":"2026"}`, ":one": `{"N":"1"}`}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Apply(it); err != nil {
			b.Fatal(err)
		}
	}
}
