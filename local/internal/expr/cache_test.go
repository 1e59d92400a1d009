package expr

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/adjl/adjl/local/internal/attr"
)

// withCache runs fn with a new, empty cache in place of the process's.
func withCache(t testing.TB, c *parseCache, fn func()) {
	t.Helper()
	old := parses
	parses = c
	defer func() { parses = old }()
	fn()
}

// parseResult is everything a parse tells its caller: the result, the
// refusal, and which placeholders the request left unused.
type parseResult struct {
	cond   *Condition
	upd    *Update
	kc     *KeyCondition
	err    string
	unused string
}

func parseAs(t testing.TB, kind Kind, src string, env *Env) parseResult {
	var r parseResult
	var err error
	switch kind {
	case UpdateExpression:
		r.upd, err = ParseUpdate(src, env)
	case KeyConditionExpression:
		r.kc, err = ParseKeyCondition(src, env)
	case FilterExpression:
		r.cond, err = ParseFilter(src, env)
	default:
		r.cond, err = ParseCondition(src, env)
	}
	r.err, r.unused = errMsg(err), errMsg(env.Unused())
	return r
}

// parseKept parses src twice with env: a text is kept the second time.
func parseKept(t testing.TB, kind Kind, src string, env *Env) parseResult {
	parseAs(t, kind, src, env)
	return parseAs(t, kind, src, env)
}

// cacheEnvs are request placeholders of the same names and types with
// other values (first two), of other types (third), and standing for other
// names (fourth).
func cacheEnvs(t testing.TB) []*Env {
	return []*Env{
		env(t, map[string]string{"#n": "name", "#s": "status", "#x": "extra"}, map[string]string{
			":s": `{"S":"Ada"}`, ":n": `{"N":"3"}`, ":l": `{"L":[{"S":"x"}]}`, ":ss": `{"SS":["a"]}`, ":t": `{"S":"S"}`, ":lo": `{"N":"1"}`, ":hi": `{"N":"9"}`}),
		env(t, map[string]string{"#n": "name", "#s": "status", "#x": "extra"}, map[string]string{
			":s": `{"S":"Grace"}`, ":n": `{"N":"-7.5"}`, ":l": `{"L":[]}`, ":ss": `{"SS":["b","c"]}`, ":t": `{"S":"Q"}`, ":lo": `{"N":"9"}`, ":hi": `{"N":"1"}`}),
		env(t, map[string]string{"#n": "name", "#s": "status", "#x": "extra"}, map[string]string{
			":s": `{"N":"1"}`, ":n": `{"S":"three"}`, ":l": `{"S":"x"}`, ":ss": `{"N":"2"}`, ":t": `{"N":"1"}`, ":lo": `{"S":"a"}`, ":hi": `{"N":"1"}`}),
		env(t, map[string]string{"#n": "status", "#s": "status", "#x": "name"}, map[string]string{
			":s": `{"S":"Ada"}`, ":n": `{"N":"3"}`, ":l": `{"L":[{"S":"x"}]}`, ":ss": `{"SS":["a"]}`, ":t": `{"S":"S"}`, ":lo": `{"N":"1"}`, ":hi": `{"N":"9"}`}),
	}
}

var cacheCorpus = []struct {
	kind Kind
	src  string
}{
	{ConditionExpression, "attribute_not_exists(#n)"},
	{ConditionExpression, "#n = :s"},
	{ConditionExpression, "#n = :s AND (#s <> :n OR size(#x) > :n)"},
	{ConditionExpression, "#n = #s"},
	{ConditionExpression, "begins_with(#n, :s)"},
	{ConditionExpression, "attribute_type(#n, :t)"},
	{ConditionExpression, "#n BETWEEN :lo AND :hi"},
	{ConditionExpression, "#n IN (:s, :n, :s)"},
	{ConditionExpression, "size(:s) > :n"},
	{FilterExpression, "contains(#x, :s) OR NOT #s = :n"},
	{KeyConditionExpression, "#n = :s AND begins_with(#s, :s)"},
	{KeyConditionExpression, "#n = :s AND #s BETWEEN :lo AND :hi"},
	{UpdateExpression, "SET #n = :s, #s = :n, #x = if_not_exists(#x, :s)"},
	{UpdateExpression, "SET #n = :s, #s = :s"},
	{UpdateExpression, "ADD #n :n DELETE #s :ss"},
	{UpdateExpression, "SET #n = #n + :n REMOVE #x"},
	{UpdateExpression, "SET #n = list_append(if_not_exists(#n, :l), :l)"},
	{UpdateExpression, "SET #n.a[2] = :s, #s.b = :n"},
	{UpdateExpression, "REMOVE #n, #s"},
}

// A parse through the cache, after other requests' parses of the same text
// with other values, types or names, tells the caller exactly what a parse
// of that text alone would.
func TestCachedParseMatchesAParseOfItsOwn(t *testing.T) {
	for _, c := range cacheCorpus {
		for want := range cacheEnvs(t) {
			for seed := range cacheEnvs(t) {
				var fresh, cached parseResult
				withCache(t, nil, func() { fresh = parseAs(t, c.kind, c.src, cacheEnvs(t)[want]) })
				withCache(t, newParseCache(), func() {
					parseKept(t, c.kind, c.src, cacheEnvs(t)[seed])
					cached = parseAs(t, c.kind, c.src, cacheEnvs(t)[want])
				})
				if !reflect.DeepEqual(fresh, cached) {
					t.Errorf("%s %q with env %d after env %d:\n cached %+v\n  fresh %+v", c.kind, c.src, want, seed, cached, fresh)
				}
			}
		}
	}
}

// Parses whose checks read a value (not only its type) and refusals are
// parsed again every time; a kept parse serves its text with any values.
func TestParseCacheKeepsWhatValuesCannotChange(t *testing.T) {
	c := newParseCache()
	withCache(t, c, func() {
		for _, x := range cacheCorpus {
			parseKept(t, x.kind, x.src, cacheEnvs(t)[0])
		}
		parseKept(t, ConditionExpression, "#n = = :s", cacheEnvs(t)[0])
	})
	for _, x := range cacheCorpus {
		_, kept := c.entries[cacheKey{x.kind, x.src}]
		readsValue := strings.Contains(x.src, "BETWEEN") || strings.Contains(x.src, "attribute_type")
		if kept == readsValue {
			t.Errorf("%s %q kept: %v", x.kind, x.src, kept)
		}
	}
	if _, kept := c.entries[cacheKey{ConditionExpression, "#n = = :s"}]; kept {
		t.Error("a refused expression was kept")
	}
}

// A kept template shares no memory with the request it came from: the
// body a request's strings point into is not held after it.
func TestParseCacheHoldsNoPartOfARequest(t *testing.T) {
	body := `{"ConditionExpression":"#n = :s","Name":"name"}`
	at := func(s string) string { i := strings.Index(body, s); return body[i : i+len(s)] }
	src, name := at("#n = :s"), at("name")
	e, err := NewEnv(map[string]string{"#n": name}, map[string]attr.Value{":s": attr.String("x")})
	if err != nil {
		t.Fatal(err)
	}
	c := newParseCache()
	withCache(t, c, func() {
		parseAs(t, ConditionExpression, src, e)
		parseAs(t, ConditionExpression, src, e)
	})
	in := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.StringData(body)))
		return len(s) > 0 && p >= start && p < start+uintptr(len(body))
	}
	for k, entry := range c.entries {
		held := []string{k.src}
		held = append(held, entry.refs...)
		for _, v := range entry.variants {
			held = append(held, v.names...)
			held = append(held, v.cond.names...)
			held = append(held, v.cond.root.kids[0].path[0].Name, v.cond.root.kids[1].ph)
		}
		for _, s := range held {
			if in(s) {
				t.Errorf("the cache holds %q from the request body", s)
			}
		}
	}
	if len(c.entries) != 1 {
		t.Errorf("%d entries, want 1", len(c.entries))
	}
}

func TestParseCacheIsBounded(t *testing.T) {
	c := newParseCache()
	withCache(t, c, func() {
		for i := range cacheTexts + 10 {
			e := env(t, map[string]string{"#n": "name"}, map[string]string{":v": `{"N":"1"}`})
			parseKept(t, ConditionExpression, fmt.Sprintf("#n = :v AND a%d = :v", i), e)
		}
		for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
			parseKept(t, ConditionExpression, "#n = :v", env(t, map[string]string{"#n": name}, map[string]string{":v": `{"N":"1"}`}))
		}
		long := "#n = :v" + strings.Repeat(" AND #n = :v", cacheTextMax/12+1)
		parseKept(t, ConditionExpression, long, env(t, map[string]string{"#n": "a"}, map[string]string{":v": `{"N":"1"}`}))
		if _, kept := c.entries[cacheKey{ConditionExpression, long}]; kept {
			t.Errorf("an expression of %d bytes was kept", len(long))
		}
	})
	if len(c.entries) > cacheTexts {
		t.Errorf("%d texts kept, at most %d wanted", len(c.entries), cacheTexts)
	}
	if e := c.entries[cacheKey{ConditionExpression, "#n = :v"}]; e == nil || len(e.variants) != cacheVariants {
		t.Errorf("six names for one text: entry %+v, want %d variants", e, cacheVariants)
	}
}

// Concurrent requests sending one text each evaluate their own values.
func TestCachedParsesKeepEachRequestsValues(t *testing.T) {
	withCache(t, newParseCache(), func() {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					n := int64(g*1000 + i)
					v := fmt.Sprint(n)
					e := env(t, map[string]string{"#c": "count"}, map[string]string{":was": `{"N":"` + v + `"}`, ":n": `{"N":"1"}`})
					c, err := ParseCondition("#c = :was", e)
					if err != nil {
						t.Error(err)
						return
					}
					u, err := ParseUpdate("SET #c = #c + :n", e)
					if err != nil {
						t.Error(err)
						return
					}
					it := attr.Item{"count": attr.Int(n)}
					if ok, _ := c.Eval(it); !ok {
						t.Errorf("#c = :was with %s is false on count %s", v, v)
						return
					}
					if ok, _ := c.Eval(attr.Item{"count": attr.Int(n + 1)}); ok {
						t.Errorf("#c = :was with %s is true on count %d", v, n+1)
						return
					}
					if _, err := u.Apply(it); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}

// FuzzCachedParse: any text parsed through a cache that another request's
// values seeded tells the caller what a parse of its own does.
func FuzzCachedParse(f *testing.F) {
	for _, c := range cacheCorpus {
		f.Add(string(c.kind), c.src, 0, 1)
	}
	kinds := []Kind{ConditionExpression, FilterExpression, KeyConditionExpression, UpdateExpression}
	f.Fuzz(func(t *testing.T, kind, src string, seed, want int) {
		envs := cacheEnvs(t)
		k := kinds[len(kind)%len(kinds)]
		for _, x := range kinds {
			if string(x) == kind {
				k = x
			}
		}
		seed, want = int(uint(seed)%uint(len(envs))), int(uint(want)%uint(len(envs)))
		var fresh, cached parseResult
		withCache(t, nil, func() { fresh = parseAs(t, k, src, cacheEnvs(t)[want]) })
		withCache(t, newParseCache(), func() {
			parseKept(t, k, src, envs[seed])
			cached = parseAs(t, k, src, cacheEnvs(t)[want])
		})
		if !reflect.DeepEqual(fresh, cached) {
			t.Fatalf("%s %q with env %d after env %d:\n cached %+v\n  fresh %+v", k, src, want, seed, cached, fresh)
		}
	})
}

// The names a template keeps are bounded like its text: a request whose
// placeholders stand for long names is parsed every time rather than held.
func TestParseCacheKeepsNoLongNames(t *testing.T) {
	long := strings.Repeat("n", 1<<20)
	c := newParseCache()
	withCache(t, c, func() {
		parseKept(t, ConditionExpression, "#n = :v", env(t, map[string]string{"#n": long}, map[string]string{":v": `{"N":"1"}`}))
		parseKept(t, ConditionExpression, "#a = #b", env(t, map[string]string{"#a": long[:cacheNamesMax/2], "#b": long[:cacheNamesMax/2+1]}, nil))
		parseKept(t, ConditionExpression, "#n = :v AND #m = :v", env(t, map[string]string{"#n": long[:cacheNamesMax/2], "#m": long[:cacheNamesMax/2]}, map[string]string{":v": `{"N":"1"}`}))
	})
	for k := range c.entries {
		if k.src != "#n = :v AND #m = :v" {
			t.Errorf("%q kept for names over %d bytes", k.src, cacheNamesMax)
		}
	}
	if len(c.entries) != 1 {
		t.Errorf("%d entries, want the one within %d bytes of names", len(c.entries), cacheNamesMax)
	}
}

// A text whose variants are all kept is parsed once for a request of
// another variant, not again for a template the cache has no room for.
func TestParseCacheFullTextCostsOneParse(t *testing.T) {
	const src = "SET #n = :v, b = :v"
	e := func(name string) *Env {
		return env(t, map[string]string{"#n": name}, map[string]string{":v": `{"S":"x"}`})
	}
	other := e("other")
	parse := func() {
		if _, err := ParseUpdate(src, other); err != nil {
			t.Fatal(err)
		}
	}
	var fresh, full float64
	withCache(t, nil, func() { fresh = testing.AllocsPerRun(20, parse) })
	c := newParseCache()
	withCache(t, c, func() {
		for i := range cacheVariants {
			parseKept(t, UpdateExpression, src, e(fmt.Sprint("n", i)))
		}
		full = testing.AllocsPerRun(20, parse)
	})
	if n := len(c.entries[cacheKey{UpdateExpression, src}].variants); n != cacheVariants {
		t.Fatalf("%d variants kept, want %d", n, cacheVariants)
	}
	if full > fresh {
		t.Errorf("a parse missing a full text allocates %v times, a parse without the cache %v", full, fresh)
	}
}

// Requests parsing through one cache while others add variants and start
// it again get what a parse of their own gives.
func TestCachedParsesMatchUnderConcurrentKeeps(t *testing.T) {
	withCache(t, newParseCache(), func() {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 300 {
					src := "#n = :v AND size(#m) > :w"
					if i%3 == 0 {
						src = fmt.Sprintf("#n = :v AND size(#m) > :w AND c%d = :v", (g*300+i)%(2*cacheTexts))
					}
					names := map[string]string{"#n": fmt.Sprint("n", i%6), "#m": fmt.Sprint("m", g)}
					values := map[string]string{":v": fmt.Sprintf(`{"N":"%d"}`, i), ":w": `{"N":"2"}`}
					if i%2 == 1 {
						values[":v"] = fmt.Sprintf(`{"S":"%d"}`, i)
					}
					got, err := ParseCondition(src, env(t, names, values))
					want, _, werr := parseConditionText(src, ConditionExpression, env(t, names, values))
					if !reflect.DeepEqual(got, want) || errMsg(err) != errMsg(werr) {
						t.Errorf("%q with %v %v: cached %+v %v, fresh %+v %v", src, names, values, got, err, want, werr)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}

// A text is kept the second time it is parsed: one parsed once costs what a
// parse without the cache does, but for its hash.
func TestParseCacheKeepsATextSeenTwice(t *testing.T) {
	e := env(t, map[string]string{"#n": "name"}, map[string]string{":v": `{"N":"1"}`})
	c := newParseCache()
	withCache(t, c, func() {
		parseAs(t, ConditionExpression, "#n = :v", e)
		if len(c.entries) != 0 {
			t.Fatalf("a text parsed once was kept")
		}
		parseAs(t, ConditionExpression, "#n = :v", e)
		if len(c.entries) != 1 {
			t.Fatalf("a text parsed twice was not kept")
		}
	})
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = fmt.Sprintf("#n = :v AND a%d = :v", i)
	}
	next := 0
	parseNext := func() {
		if _, err := ParseCondition(texts[next%len(texts)], e); err != nil {
			t.Fatal(err)
		}
		next++
	}
	var fresh, once float64
	withCache(t, nil, func() { fresh = testing.AllocsPerRun(100, parseNext) })
	next = 0
	withCache(t, newParseCache(), func() { once = testing.AllocsPerRun(100, parseNext) })
	if once > fresh {
		t.Errorf("a text parsed once allocates %v times, a parse without the cache %v", once, fresh)
	}
}
