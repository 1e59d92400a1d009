package attr

import "testing"

func TestSize(t *testing.T) {
	num := func(s string) Value { return mustParse(t, Number, s) }
	ss, _ := StringSet("ab", "cde")
	cases := []struct {
		v    Value
		want int
	}{
		{String("héllo"), 6},
		{Binary([]byte{1, 2, 3}), 3},
		{Bool(true), 1},
		{Null(), 1},
		{num("0"), 1},
		{num("1"), 2},
		{num("12"), 2},
		{num("123"), 3},
		{num("1.2"), 3},
		{num("-1"), 3},
		{num("100"), 2},
		{ss, 5},
		{List(nil), 3},
		{List([]Value{String("ab"), Bool(true)}), 3 + (2 + 1) + (1 + 1)},
		{Map(map[string]Value{"k": String("vv")}), 3 + 1 + 2 + 1},
	}
	for _, c := range cases {
		if got := Size(c.v); got != c.want {
			t.Errorf("Size(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := ItemSize(Item{"name": String("abc"), "n": num("12")}); got != 4+3+1+2 {
		t.Errorf("ItemSize = %d", got)
	}
}
