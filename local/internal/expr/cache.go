package expr

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/adjl/adjl/local/internal/attr"
)

// parseCache keeps parsed conditions and updates by their text, so that a
// request sending an expression seen before (a loader's conditional puts,
// adjl's counter fixes, a service's Query) skips lexing and parsing.
//
// An expression's text decides which placeholders it uses. What else its
// parse depends on is the names they stand for and the types of the values
// (the operand type checks), so a parse is kept for those names and types:
// a template whose values are empty. A request whose placeholders stand for
// the same names and types of value gets the template with its own values
// in place, copying only the nodes that hold one, and the same
// placeholders marked used as a parse marks them. Refusals are not kept,
// nor parses that read a value's content (BETWEEN of two values,
// attribute_type's type name), nor texts over cacheTextMax bytes or names
// over cacheNamesMax in all (a request's body of up to 16 MB could
// otherwise be held for each variant). Templates are parsed from copies of
// the text and names, so the cache holds no part of a request's body.
type parseCache struct {
	mu      sync.RWMutex
	entries map[cacheKey]*cacheEntry
	// seen holds the hashes of texts parsed once and not kept: a text is
	// kept the second time it is parsed, so one sent once (its names or
	// values written into it) costs a hash, not a second parse.
	seen map[uint64]struct{}
}

type cacheKey struct {
	kind Kind
	src  string
}

// cacheEntry is one text's templates. It is not changed once in the map: a
// new variant replaces the entry.
type cacheEntry struct {
	refs     []string // distinct placeholders, in first-use order
	variants []cacheVariant
}

// cacheVariant is a template for one set of names and value types:
// names[i] is what refs[i] stands for when it is a #name, kinds[i] the type
// of its value when a :value.
type cacheVariant struct {
	names []string
	kinds []attr.Kind
	cond  *Condition
	upd   *Update
}

const (
	cacheTexts    = 256  // texts kept; past it the cache starts again
	cacheVariants = 4    // name and type variants kept for one text
	cacheSeen     = 4096 // texts seen once remembered; past it they are forgotten
	cacheTextMax  = 512  // bytes; a longer expression is parsed every time
	cacheNamesMax = 512  // bytes of the names a template's placeholders stand for
)

// parses is the process's cache; nil turns caching off (tests).
var parses = newParseCache()

func newParseCache() *parseCache {
	return &parseCache{entries: map[cacheKey]*cacheEntry{}, seen: map[uint64]struct{}{}}
}

// seenSeed seeds the hashes of parseCache.seen.
var seenSeed = maphash.MakeSeed()

// condition returns the kept parse of a condition of kind, with env's
// values, if env matches one.
func (c *parseCache) condition(kind Kind, src string, env *Env) (*Condition, bool) {
	v := c.find(kind, src, env)
	if v == nil {
		return nil, false
	}
	return v.cond.bind(env), true
}

// update is condition for an UpdateExpression.
func (c *parseCache) update(src string, env *Env) (*Update, bool) {
	v := c.find(UpdateExpression, src, env)
	if v == nil {
		return nil, false
	}
	return v.upd.bind(env), true
}

// find returns the variant of src that env matches, marking its
// placeholders used, or nil.
func (c *parseCache) find(kind Kind, src string, env *Env) *cacheVariant {
	if c == nil || len(src) > cacheTextMax {
		return nil
	}
	c.mu.RLock()
	e := c.entries[cacheKey{kind, src}]
	c.mu.RUnlock()
	if e == nil {
		return nil
	}
	for i := range e.variants {
		if v := &e.variants[i]; v.matches(e.refs, env) {
			for _, ph := range e.refs {
				if ph[0] == '#' {
					env.name(ph)
				} else {
					env.value(ph)
				}
			}
			return v
		}
	}
	return nil
}

func (v *cacheVariant) matches(refs []string, env *Env) bool {
	if env == nil {
		return len(refs) == 0
	}
	for i, ph := range refs {
		if ph[0] == '#' {
			if n, ok := env.Names[ph]; !ok || n != v.names[i] {
				return false
			}
		} else if x, ok := env.Values[ph]; !ok || x.Kind != v.kinds[i] {
			return false
		}
	}
	return true
}

// keepCondition keeps a template of the condition p parsed from src.
func (c *parseCache) keepCondition(kind Kind, src string, env *Env, p *parser) {
	c.keep(kind, src, env, p, func(src string, env *Env) (cacheVariant, bool) {
		cond, _, err := parseConditionText(src, kind, env)
		return cacheVariant{cond: cond}, err == nil
	})
}

// keepUpdate keeps a template of the update p parsed from src.
func (c *parseCache) keepUpdate(src string, env *Env, p *parser) {
	c.keep(UpdateExpression, src, env, p, func(src string, env *Env) (cacheVariant, bool) {
		u, _, err := parseUpdateText(src, env)
		return cacheVariant{upd: u}, err == nil
	})
}

// keep parses a template of src (which p parsed with env) from copies of
// the text, the names its placeholders stand for and values of their types
// only, and adds it. A text whose variants are all kept is not parsed
// again, and names longer than cacheNamesMax in all are not held.
func (c *parseCache) keep(kind Kind, src string, env *Env, p *parser, parse func(string, *Env) (cacheVariant, bool)) {
	if c == nil || len(src) > cacheTextMax || p.readsValues {
		return
	}
	c.mu.RLock()
	e := c.entries[cacheKey{kind, src}]
	c.mu.RUnlock()
	if e != nil && len(e.variants) >= cacheVariants || e == nil && !c.secondSighting(kind, src) {
		return
	}
	var refs []string
	size := 0
	for _, ph := range p.refs {
		if !slices.Contains(refs, ph) {
			refs = append(refs, ph)
			if ph[0] == '#' {
				size += len(env.Names[ph])
			}
		}
	}
	if size > cacheNamesMax {
		return
	}
	for i, ph := range refs {
		refs[i] = strings.Clone(ph)
	}
	names, kinds := make([]string, len(refs)), make([]attr.Kind, len(refs))
	var tenv *Env
	if len(refs) > 0 {
		tenv = &Env{Names: map[string]string{}, Values: map[string]attr.Value{}}
	}
	for i, ph := range refs {
		if ph[0] == '#' {
			names[i] = strings.Clone(env.Names[ph])
			tenv.Names[ph] = names[i]
		} else {
			kinds[i] = env.Values[ph].Kind
			tenv.Values[ph] = attr.Value{Kind: kinds[i]}
		}
	}
	v, ok := parse(strings.Clone(src), tenv)
	if !ok {
		return
	}
	v.names, v.kinds = names, kinds
	key := cacheKey{kind, strings.Clone(src)}
	c.mu.Lock()
	defer c.mu.Unlock()
	e = c.entries[key]
	if e == nil {
		if len(c.entries) >= cacheTexts {
			clear(c.entries)
		}
		c.entries[key] = &cacheEntry{refs: refs, variants: []cacheVariant{v}}
		return
	}
	if len(e.variants) >= cacheVariants || slices.ContainsFunc(e.variants, func(o cacheVariant) bool {
		return slices.Equal(o.names, names) && slices.Equal(o.kinds, kinds)
	}) {
		return
	}
	c.entries[key] = &cacheEntry{refs: e.refs, variants: append(slices.Clip(e.variants), v)}
}

// bind is c with env's values in place of the template's; c itself when it
// holds no value.
func (c *Condition) bind(env *Env) *Condition {
	root := c.root.bind(env)
	if root == c.root {
		return c
	}
	return &Condition{root: root, names: c.names}
}

// bind copies the nodes from n down to each value, with env's value in it,
// and shares the rest.
func (n *node) bind(env *Env) *node {
	if n.kind == nValue {
		b := *n
		b.val = env.Values[n.ph]
		return &b
	}
	var kids []*node
	for i, k := range n.kids {
		bk := k.bind(env)
		if bk != k && kids == nil {
			kids = slices.Clone(n.kids)
		}
		if kids != nil {
			kids[i] = bk
		}
	}
	if kids == nil {
		return n
	}
	b := *n
	b.kids = kids
	return &b
}

// bind is u with env's values in place of the template's, sharing what
// holds none.
func (u *Update) bind(env *Env) *Update {
	b := *u
	cloned := false
	for i, a := range u.sets {
		if bv := a.val.bind(env); bv != a.val {
			if !cloned {
				b.sets, cloned = slices.Clone(u.sets), true
			}
			b.sets[i].val = bv
		}
	}
	b.adds, b.deletes = bindValActions(u.adds, env), bindValActions(u.deletes, env)
	return &b
}

func bindValActions(acts []valAction, env *Env) []valAction {
	if len(acts) == 0 {
		return acts
	}
	out := slices.Clone(acts)
	for i := range out {
		out[i].val = env.Values[out[i].ph]
	}
	return out
}

// bind is node.bind for the right-hand side of a SET.
func (v *uval) bind(env *Env) *uval {
	if v.kind == uValue {
		b := *v
		b.val = env.Values[v.ph]
		return &b
	}
	var kids []*uval
	for i, k := range v.kids {
		bk := k.bind(env)
		if bk != k && kids == nil {
			kids = slices.Clone(v.kids)
		}
		if kids != nil {
			kids[i] = bk
		}
	}
	if kids == nil {
		return v
	}
	b := *v
	b.kids = kids
	return &b
}

// secondSighting reports whether kind's src was parsed before and not kept,
// noting it if not.
func (c *parseCache) secondSighting(kind Kind, src string) bool {
	var h maphash.Hash
	h.SetSeed(seenSeed)
	h.WriteString(string(kind))
	h.WriteByte(0)
	h.WriteString(src)
	sum := h.Sum64()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[sum]; ok {
		delete(c.seen, sum)
		return true
	}
	if len(c.seen) >= cacheSeen {
		clear(c.seen)
	}
	c.seen[sum] = struct{}{}
	return false
}
