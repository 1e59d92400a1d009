package attr

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genNumber draws valid DynamoDB numbers across signs, magnitudes and
// precisions, written in varied notations.
func genNumber() *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		digits := rapid.StringMatching(`[1-9][0-9]{0,37}`).Draw(t, "digits")
		exp := rapid.IntRange(-129+len(digits), 126).Draw(t, "exp")
		neg := rapid.Bool().Draw(t, "neg")
		s := digits + "E" + strconv.Itoa(exp-len(digits))
		if rapid.IntRange(0, 9).Draw(t, "zero") == 0 {
			s = "0"
		}
		if neg {
			s = "-" + s
		}
		v, err := Number(s)
		if err != nil {
			t.Fatalf("generated invalid number %q: %v", s, err)
		}
		return v
	})
}

func genKey(k Kind) *rapid.Generator[Value] {
	switch k {
	case S:
		return rapid.Custom(func(t *rapid.T) Value {
			return String(rapid.StringOfN(rapid.SampledFrom([]rune{0, 1, 'a', 'b', 0xff, 'é', '日'}), 0, 6, -1).Draw(t, "s"))
		})
	case B:
		return rapid.Custom(func(t *rapid.T) Value {
			return Binary(rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 2, 0xfe, 0xff}), 0, 6).Draw(t, "b"))
		})
	}
	return genNumber()
}

func TestKeyOrderMatchesCompare(t *testing.T) {
	for _, k := range []Kind{S, N, B} {
		t.Run(k.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				a, b := genKey(k).Draw(t, "a"), genKey(k).Draw(t, "b")
				ea, eb := AppendKey(nil, a), AppendKey(nil, b)
				if got, want := bytes.Compare(ea, eb), Compare(a, b); got != want {
					t.Fatalf("order of %v vs %v: bytes %d, Compare %d (%x vs %x)", a, b, got, want, ea, eb)
				}
				back, rest, err := DecodeKey(ea, k)
				if err != nil || len(rest) != 0 || !Equal(back, a) {
					t.Fatalf("DecodeKey(%x) = %v, %x, %v; want %v", ea, back, rest, err, a)
				}
			})
		})
	}
}

func TestCompositeKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pa, pb := genKey(S).Draw(t, "pa"), genKey(S).Draw(t, "pb")
		sa, sb := genNumber().Draw(t, "sa"), genNumber().Draw(t, "sb")
		ea := AppendKey(AppendKey(nil, pa), sa)
		eb := AppendKey(AppendKey(nil, pb), sb)
		want := Compare(pa, pb)
		if want == 0 {
			want = Compare(sa, sb)
		}
		if got := bytes.Compare(ea, eb); got != want {
			t.Fatalf("(%v,%v) vs (%v,%v): bytes %d, want %d", pa, sa, pb, sb, got, want)
		}
		p, rest, err := DecodeKey(ea, S)
		if err != nil || !Equal(p, pa) {
			t.Fatalf("decode partition: %v %v", p, err)
		}
		s, rest, err := DecodeKey(rest, N)
		if err != nil || len(rest) != 0 || !Equal(s, sa) {
			t.Fatalf("decode sort: %v %v", s, err)
		}
	})
}

func TestKeyPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genKey(S).Draw(t, "a")
		p := genKey(S).Draw(t, "p")
		has := strings.HasPrefix(a.Str, p.Str)
		if got := bytes.HasPrefix(AppendKey(nil, a), AppendKeyPrefix(nil, p)); got != has {
			t.Fatalf("prefix %q of %q: encoded %v, want %v", p.Str, a.Str, got, has)
		}
	})
}

func TestKeyNumbersSortNumerically(t *testing.T) {
	in := []string{"-1E10", "-100", "-99.5", "-1", "-0.5", "-0.05", "0", "1E-130", "0.05", "0.5", "1", "9", "10", "99.5", "100", "1E125"}
	var prev []byte
	for _, s := range in {
		enc := AppendKey(nil, mustParse(t, Number, s))
		if prev != nil && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("%s does not sort after its predecessor", s)
		}
		prev = enc
	}
}

func TestSkipKeyFindsWhatFollows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.SampledFrom([]Kind{S, N, B}).Draw(t, "kind")
		v := genKey(k).Draw(t, "v")
		rest := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "rest")
		enc := append(AppendKey(nil, v), rest...)
		got, err := SkipKey(enc, k)
		if err != nil || !bytes.Equal(got, rest) {
			t.Fatalf("SkipKey(%x, %s) = %x, %v; want %x", enc, k, got, err, rest)
		}
	})
}

func TestSkipKeyAgreesWithDecodeKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.SampledFrom([]Kind{S, N, B}).Draw(t, "kind")
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 2, 3, '5', 0xCA, 0xFE, 0xFF}), 0, 10).Draw(t, "b")
		_, want, derr := DecodeKey(b, k)
		got, serr := SkipKey(b, k) // must not panic on any input
		if derr == nil && (serr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("SkipKey(%x, %s) = %x, %v; DecodeKey leaves %x", b, k, got, serr, want)
		}
	})
	if _, err := SkipKey([]byte("a"), M); err == nil {
		t.Error("SkipKey accepted a map kind")
	}
}
