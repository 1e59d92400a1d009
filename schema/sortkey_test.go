package schema

import (
	"cmp"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// sortValue is a generated sort value: what ParseValue gives, and a
// comparison of two of them by the typed value.
type sortGen struct {
	kind    AttrKind
	gen     *rapid.Generator[any]
	compare func(a, b any) int
}

// awkwardRunes are the characters that break naive separators: controls,
// space and the punctuation below the separator, the separator and the
// escape themselves, and multi-byte UTF-8.
var awkwardRunes = []rune{0, 1, '\t', ' ', '!', '"', '#', '$', '%', '-', '0', '9', 'A', 'a', 'b', '~', 0x7f, 'é', '\u2028', '😀'}

func sortGens() []sortGen {
	str := rapid.Custom(func(t *rapid.T) any {
		return rapid.StringOfN(rapid.SampledFrom(awkwardRunes), 0, 6, -1).Draw(t, "s")
	})
	date := rapid.Custom(func(t *rapid.T) any {
		d := rapid.IntRange(0, 3000).Draw(t, "day")
		return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d).Format(time.DateOnly)
	})
	datetime := rapid.Custom(func(t *rapid.T) any {
		sec := rapid.Int64Range(1.7e9, 1.7e9+86400*3).Draw(t, "sec")
		nsec := rapid.SampledFrom([]int64{0, 5e8, 123456789, 1, 999999999}).Draw(t, "nsec")
		off := rapid.IntRange(-14*60, 14*60).Draw(t, "offset") * 60
		return time.Unix(sec, nsec).In(time.FixedZone("", off)).Format(time.RFC3339Nano)
	})
	number := rapid.Custom(func(t *rapid.T) any {
		digits := rapid.StringMatching(`[0-9]{1,12}`).Draw(t, "digits")
		point := rapid.IntRange(0, len(digits)).Draw(t, "point")
		exp := rapid.IntRange(-12, 12).Draw(t, "exp")
		sign := rapid.SampledFrom([]string{"", "-", "+"}).Draw(t, "sign")
		text := sign + digits[:point] + "." + digits[point:]
		if point == len(digits) {
			text = sign + digits
		}
		if exp != 0 {
			text += fmt.Sprintf("e%d", exp)
		}
		n, err := ParseNumber(text)
		if err != nil {
			t.Fatalf("generated %q: %v", text, err)
		}
		return n
	})
	rat := func(v any) *big.Rat {
		r, ok := new(big.Rat).SetString(string(v.(Number)))
		if !ok {
			panic(v)
		}
		return r
	}
	instant := func(v any) time.Time {
		t, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			panic(err)
		}
		return t
	}
	byText := func(a, b any) int { return strings.Compare(a.(string), b.(string)) }
	return []sortGen{
		{KindString, str, byText},
		{KindDate, date, byText},
		{KindDatetime, datetime, func(a, b any) int { return instant(a).Compare(instant(b)) }},
		{KindNumber, number, func(a, b any) int { return rat(a).Cmp(rat(b)) }},
	}
}

func orderedRelation(kind AttrKind) *Relation {
	user := &Entity{Name: "user", Prefix: "USER#"}
	return &Relation{
		Name: "follow", Shards: 1,
		From:       Side{Entity: user, Prefix: "ACTOR#"},
		To:         Side{Entity: user, Prefix: "TARGET#"},
		Attributes: []Attribute{{Name: "since", Kind: kind}},
		Sort:       &Sort{By: "since", Kind: kind, Index: SortComposite},
	}
}

func sign(n int) int { return cmp.Compare(n, 0) }

// TestCompositeKeyOrderIsValueThenKey: for every sortable kind, the byte
// order of two edges' composite index sort keys is the order of their
// typed values, then of their from-keys.
func TestCompositeKeyOrderIsValueThenKey(t *testing.T) {
	for _, g := range sortGens() {
		t.Run(string(g.kind), func(t *testing.T) {
			r := orderedRelation(g.kind)
			id := rapid.StringOfN(rapid.SampledFrom(awkwardRunes), 1, 4, -1)
			rapid.Check(t, func(t *rapid.T) {
				va, vb := g.gen.Draw(t, "a"), g.gen.Draw(t, "b")
				ka, kb := "ACTOR#"+id.Draw(t, "ida"), "ACTOR#"+id.Draw(t, "idb")
				ta, err := r.Sort.KeyText(va)
				if err != nil {
					t.Fatal(err)
				}
				tb, err := r.Sort.KeyText(vb)
				if err != nil {
					t.Fatal(err)
				}
				want := g.compare(va, vb)
				if want == 0 {
					want = strings.Compare(ka, kb)
				}
				got := strings.Compare(r.CompositeIndexSK(ta, ka), r.CompositeIndexSK(tb, kb))
				if sign(got) != sign(want) {
					t.Fatalf("(%q, %q) vs (%q, %q): keys %q and %q compare %d, values %d", va, ka, vb, kb,
						r.CompositeIndexSK(ta, ka), r.CompositeIndexSK(tb, kb), got, want)
				}
				if v, ok := CompositeValueText("ACTOR#", r.CompositeIndexSK(ta, ka), ka); !ok || v != ta {
					t.Fatalf("CompositeValueText(%q) = %q, %v; want %q", r.CompositeIndexSK(ta, ka), v, ok, ta)
				}
			})
		})
	}
}

// TestCompositeRangeSelectsExactly: the key condition CompositeRange
// builds for a --where selects exactly the edges whose value satisfies it.
func TestCompositeRangeSelectsExactly(t *testing.T) {
	for _, g := range sortGens() {
		t.Run(string(g.kind), func(t *testing.T) {
			r := orderedRelation(g.kind)
			ops := []string{OpEq, OpLt, OpLe, OpGt, OpGe, OpBetween}
			if g.kind == KindString || g.kind == KindDate {
				ops = append(ops, OpBeginsWith)
			}
			rapid.Check(t, func(t *rapid.T) {
				op := rapid.SampledFrom(ops).Draw(t, "op")
				c := Condition{Attr: r.Attributes[0], Op: op, Values: []any{g.gen.Draw(t, "bound")}}
				if op == OpBetween {
					hi := g.gen.Draw(t, "hi")
					if g.compare(c.Values[0], hi) > 0 {
						c.Values[0], hi = hi, c.Values[0]
					}
					c.Values = append(c.Values, hi)
				}
				if op == OpBeginsWith {
					s := c.Values[0].(string)
					c.Values[0] = s[:rapid.IntRange(0, len(s)).Draw(t, "cut")]
				}
				kr, err := r.Sort.CompositeRange("ACTOR#", c)
				if err != nil {
					t.Fatal(err)
				}
				v := g.gen.Draw(t, "v")
				text, _ := r.Sort.KeyText(v)
				key := r.CompositeIndexSK(text, "ACTOR#"+rapid.StringMatching(`[a-z#!]{1,3}`).Draw(t, "id"))
				in := strings.HasPrefix(key, kr.BeginsWith)
				if kr.BeginsWith == "" {
					in = kr.Lo <= key && key <= kr.Hi
				}
				if want := satisfies(g, c, v); in != want {
					t.Fatalf("%s: value %q (key %q) selected %v, want %v (range %+v)", c, v, key, in, want, kr)
				}
			})
		})
	}
}

func satisfies(g sortGen, c Condition, v any) bool {
	x := g.compare(v, c.Values[0])
	switch c.Op {
	case OpEq:
		return x == 0
	case OpLt:
		return x < 0
	case OpLe:
		return x <= 0
	case OpGt:
		return x > 0
	case OpGe:
		return x >= 0
	case OpBetween:
		return x >= 0 && g.compare(v, c.Values[1]) <= 0
	case OpBeginsWith:
		return strings.HasPrefix(v.(string), c.Values[0].(string))
	}
	panic(c.Op)
}
