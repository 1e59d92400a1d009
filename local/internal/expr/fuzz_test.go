package expr

import (
	"errors"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

func fuzzEnv(t *testing.T) *Env {
	return env(t, map[string]string{"#n": "name", "#s": "status", "#l": "lst"}, map[string]string{
		":s": `{"S":"Ada"}`, ":n": `{"N":"3"}`, ":l": `{"L":[{"S":"x"}]}`, ":ss": `{"SS":["a"]}`,
		":ns": `{"NS":["1"]}`, ":b": `{"B":"AQ=="}`, ":t": `{"S":"S"}`, ":m": `{"M":{"k":{"N":"1"}}}`,
	})
}

func fuzzItem(t *testing.T) attr.Item {
	return item(t, `{"name":{"S":"Ada Lovelace"},"n":{"N":"10"},"lst":{"L":[{"N":"1"},{"M":{"k":{"S":"v"}}}]},
	 "m":{"M":{"a":{"N":"1"}}},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]}}`)
}

// refused reports whether err refuses s, failing t unless it is an *Error
// with a message, the only refusal a parser or Bind may return; fn names
// the call that returned err.
func refused(t *testing.T, fn, s string, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	var e *Error
	if !errors.As(err, &e) || e.Msg == "" {
		t.Fatalf("%s(%q) returned %T %v, want *Error", fn, s, err, err)
	}
	return true
}

// isApplyError reports whether err is one an update's Apply may return: an
// *Error or an *attr.ValidationError.
func isApplyError(err error) bool {
	var e *Error
	var ve *attr.ValidationError
	return errors.As(err, &e) || errors.As(err, &ve)
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{
		"#n = :s", "a.b[1].c <> :n AND NOT (x < :n OR y BETWEEN :n AND :n)",
		"attribute_exists(#l[0]) AND size(#n) > :n", "contains(ss, :s) OR begins_with(#n, :s)",
		"n IN (:n, :s, :n)", "((a = :s))", "attribute_type(m, :t)", "a = = b", "status = :s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(s, fuzzEnv(t))
		if refused(t, "ParseCondition", s, err) {
			if _, kerr := ParseKeyCondition(s, fuzzEnv(t)); kerr == nil {
				t.Fatalf("key condition parsed where condition failed: %q", s)
			}
			return
		}
		if _, err := c.Eval(fuzzItem(t)); err != nil {
			t.Fatalf("Eval(%q): %v", s, err)
		}
		if _, err := c.Eval(nil); err != nil {
			t.Fatalf("Eval(%q) on nil item: %v", s, err)
		}
		if kc, err := ParseKeyCondition(s, fuzzEnv(t)); err == nil {
			_ = kc.Bind("n", "name")
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{
		"SET n = n + :n, #n = :s REMOVE m.a ADD ss :ss DELETE ns :ns",
		"SET lst = list_append(if_not_exists(lst, :l), :l)", "REMOVE lst[0], lst[1]",
		"SET m.a = :n - m.a", "SET a = :n SET b = :n", "SET lst[5].x = :s", "ADD x :m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUpdate(s, fuzzEnv(t))
		if refused(t, "ParseUpdate", s, err) {
			return
		}
		it := fuzzItem(t)
		before := it.Clone()
		if _, err := u.Apply(it); err != nil && !isApplyError(err) {
			t.Fatalf("Apply(%q) returned %T %v", s, err, err)
		}
		if !attr.EqualItems(it, before) {
			t.Fatalf("Apply(%q) mutated its input", s)
		}
		if _, err := u.Apply(nil); err != nil && !isApplyError(err) {
			t.Fatalf("Apply(%q) on nil item returned %T %v", s, err, err)
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, s := range []string{"a, b.c, lst[1].k", "#n, m", "a,,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pr, err := ParseProjection(s, fuzzEnv(t))
		if err != nil {
			return
		}
		_ = pr.Apply(fuzzItem(t))
	})
}

// FuzzParseKeyCondition: a key condition is refused with an *Error, or
// holds one or two conditions on top-level names, each with the number of
// values its operator takes; Bind either refuses with an *Error or leaves
// an EQ condition on the partition key and, at most, one on the sort key.
func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range []string{
		"#n = :s", "#n = :s AND begins_with(#s, :s)", "n = :n AND status BETWEEN :n AND :n",
		":s = #n AND :n < status", "#n = :s AND #n = :s", "(#n = :s) AND (status >= :s)",
		"#n = :s OR status = :s", "NOT #n = :s", "begins_with(#n, :s)", "a.b = :s", "#l[0] = :s",
		"#n IN (:s)", "#n <> :s", "size(#n) = :n", "#n = :s AND status > :s AND x = :s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kc, err := ParseKeyCondition(s, fuzzEnv(t))
		if refused(t, "ParseKeyCondition", s, err) {
			return
		}
		if len(kc.Conds) == 0 {
			t.Fatalf("ParseKeyCondition(%q) accepted no condition", s)
		}
		for _, c := range kc.Conds {
			want := 1
			if c.Op == BETWEEN {
				want = 2
			}
			if c.Name == "" || len(c.Values) != want {
				t.Fatalf("ParseKeyCondition(%q): condition %+v", s, c)
			}
		}
		for _, keys := range [][2]string{{"name", "status"}, {"name", ""}, {"n", "name"}} {
			k := *kc
			if err := k.Bind(keys[0], keys[1]); refused(t, "Bind", s, err) {
				continue
			}
			if k.Partition.Name != keys[0] || k.Partition.Op != EQ {
				t.Fatalf("Bind(%q, %v): partition %+v", s, keys, k.Partition)
			}
			if k.Sort != nil && (k.Sort.Name != keys[1] || keys[1] == "") {
				t.Fatalf("Bind(%q, %v): sort %+v", s, keys, *k.Sort)
			}
		}
	})
}
