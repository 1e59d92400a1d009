package schema

import (
	"slices"
	"strings"
)

// Projects reports whether the index carries the non-key attribute name.
func (ix Index) Projects(name string) bool {
	switch ix.Projection {
	case ProjectionKeysOnly:
		return false
	case ProjectionInclude:
		return slices.Contains(ix.Include, name)
	}
	return true
}

// DefaultIndexName is the inverted index's name when the schema does not set one.
const DefaultIndexName = "GSI1"

func (b *builder) table(tp pair) {
	c, t := b.c, &b.s.Table
	f := c.fields(tp.val, "table", `{name: school, billing: PAY_PER_REQUEST}`, append([]string{"name", "billing", "capacity", "keys", "index"}, settingFields...)...)
	at := deref(tp.val)
	if at == nil || at.Kind != mappingKind {
		return
	}
	c.require(f, at, "table", [2]string{"name", `name: <DynamoDB table name>`})
	if p, ok := f["name"]; ok {
		if name, ok := c.str(p, "table name"); ok {
			if !tableRE.MatchString(name) {
				c.addf(p.val.Line, p.val.Column, "table name %q is not a valid DynamoDB table name: use 3 to 255 characters from a-z A-Z 0-9 _ . -", name)
			}
			t.Name = name
		}
	}
	t.Billing = BillingOnDemand
	if p, ok := f["billing"]; ok {
		if v, ok := c.str(p, "billing"); ok {
			switch strings.ToUpper(v) {
			case BillingOnDemand:
				t.Billing = BillingOnDemand
			case BillingProvisioned:
				t.Billing = BillingProvisioned
			default:
				c.addf(p.val.Line, p.val.Column, "unknown billing %q; use %s (on-demand) or %s (with capacity: {read: N, write: N})", v, BillingOnDemand, BillingProvisioned)
			}
		}
	}
	capacity, hasCapacity := f["capacity"]
	switch {
	case t.Billing == BillingProvisioned && !hasCapacity:
		if p, ok := f["billing"]; ok {
			c.addf(p.val.Line, p.val.Column, "billing PROVISIONED needs capacity: {read: N, write: N} in the table block")
		}
	case t.Billing == BillingOnDemand && hasCapacity:
		c.addf(capacity.key.Line, capacity.key.Column, "capacity is only for billing: PROVISIONED; remove it or set billing: PROVISIONED")
	case hasCapacity:
		b.capacity(capacity)
	}
	b.s.Table.Index = Index{Name: DefaultIndexName, Projection: ProjectionAll}
	pk, sk := DefaultPK, DefaultSK
	keys, hasKeys := f["keys"]
	if hasKeys {
		pk, sk = b.keyNames(keys, "table keys", pk, sk)
	}
	layout := GenericLayout(pk, sk, DefaultIndexPK, DefaultIndexSK)
	if p, ok := f["index"]; ok {
		layout = b.index(p, pk, sk)
	}
	if hasKeys && pk == sk {
		c.addf(keys.key.Line, keys.key.Column, "table keys: pk and sk are both %q; the partition and sort keys need two attributes", pk)
	}
	if !layout.Inverted() && hasKeys && (pk == layout.Type || sk == layout.Type) {
		c.addf(keys.key.Line, keys.key.Column, "table keys: %q is the attribute where the generic layout records each item's entity or relation; name the keys otherwise, or use index layout: inverted", layout.Type)
	}
	b.s.Table.Layout = layout
	b.settings(f)
}

// keyNames reads `keys: {pk: NAME, sk: NAME}`; a name that cannot be used
// keeps its default (an error is reported).
func (b *builder) keyNames(kp pair, what, pk, sk string) (string, string) {
	c := b.c
	f := c.fields(kp.val, what, "{pk: pk, sk: sk}", "pk", "sk")
	at := deref(kp.val)
	if at == nil || at.Kind != mappingKind {
		return pk, sk
	}
	c.require(f, at, what, [2]string{"pk", "pk: <partition key attribute>"}, [2]string{"sk", "sk: <sort key attribute>"})
	for _, k := range []struct {
		field string
		dst   *string
	}{{"pk", &pk}, {"sk", &sk}} {
		p, ok := f[k.field]
		if !ok {
			continue
		}
		name, ok := c.str(p, what+" "+k.field)
		if !ok {
			continue
		}
		if !attrRE.MatchString(name) || len(name) > 255 {
			c.addf(p.val.Line, p.val.Column, "%s: %s %q is not an attribute name adjl can use: start with a letter, then up to 255 letters, digits, _ or - (no dots)", what, k.field, name)
			continue
		}
		*k.dst = name
	}
	return pk, sk
}

func (b *builder) capacity(cp pair) {
	c, t := b.c, &b.s.Table
	f := c.fields(cp.val, "capacity", "{read: 5, write: 5}", "read", "write")
	at := deref(cp.val)
	if at == nil || at.Kind != mappingKind {
		return
	}
	c.require(f, at, "capacity", [2]string{"read", "read: <read capacity units>"}, [2]string{"write", "write: <write capacity units>"})
	for _, side := range []struct {
		field string
		dst   *int64
	}{{"read", &t.ReadUnits}, {"write", &t.WriteUnits}} {
		p, ok := f[side.field]
		if !ok {
			continue
		}
		if n, ok := c.integer(p, "capacity "+side.field); ok {
			if n < 1 {
				c.addf(p.val.Line, p.val.Column, "capacity %s must be at least 1, not %d", side.field, n)
			}
			*side.dst = n
		}
	}
}

// index reads the index block and returns the key layout it gives a table
// keyed pk, sk.
func (b *builder) index(ip pair, pk, sk string) Layout {
	c, ix := b.c, &b.s.Table.Index
	f := c.fields(ip.val, "index", "{name: GSI1, projection: ALL}", "name", "projection", "include", "layout", "keys")
	layout := b.indexLayout(f, pk, sk)
	if p, ok := f["name"]; ok {
		if name, ok := c.str(p, "index name"); ok {
			if !tableRE.MatchString(name) {
				c.addf(p.val.Line, p.val.Column, "index name %q is not a valid DynamoDB index name: use 3 to 255 characters from a-z A-Z 0-9 _ . -", name)
			}
			ix.Name = name
		}
	}
	projOK := true
	if p, ok := f["projection"]; ok {
		if v, ok := c.str(p, "index projection"); ok {
			switch up := strings.ToUpper(v); up {
			case ProjectionAll, ProjectionKeysOnly, ProjectionInclude:
				ix.Projection = up
			default:
				projOK = false
				c.addf(p.val.Line, p.val.Column, "unknown index projection %q; use ALL, KEYS_ONLY or INCLUDE (with include: [attribute, ...])", v)
			}
		} else {
			projOK = false
		}
	}
	inc, hasInclude := f["include"]
	switch {
	case !projOK:
	case ix.Projection == ProjectionInclude && !hasInclude:
		p := f["projection"]
		c.addf(p.val.Line, p.val.Column, "projection INCLUDE needs include: [attribute, ...] listing the attributes the index copies")
	case ix.Projection != ProjectionInclude && hasInclude:
		c.addf(inc.key.Line, inc.key.Column, "include is only for projection: INCLUDE (projection is %s); remove it or set projection: INCLUDE", ix.Projection)
	case hasInclude:
		names, nodes, _ := c.strList(inc, "index include")
		if len(names) == 0 && deref(inc.val) != nil && deref(inc.val).Kind == seqKind {
			c.addf(inc.val.Line, inc.val.Column, "index include is empty; list at least one attribute, or use projection: KEYS_ONLY")
		}
		seen := make(map[string]bool)
		for i, n := range names {
			if seen[n] {
				c.addf(nodes[i].Line, nodes[i].Column, "index include lists %q twice; remove one", n)
				continue
			}
			seen[n] = true
			ix.Include = append(ix.Include, n)
			b.include = append(b.include, nodes[i])
		}
	}
	return layout
}

// indexLayout reads index.layout and index.keys.
func (b *builder) indexLayout(f map[string]pair, pk, sk string) Layout {
	c := b.c
	kind := LayoutGeneric
	if p, ok := f["layout"]; ok {
		if v, ok := c.str(p, "index layout"); ok {
			switch LayoutKind(strings.ToLower(v)) {
			case LayoutGeneric:
			case LayoutInverted:
				kind = LayoutInverted
			default:
				c.addf(p.val.Line, p.val.Column, "unknown index layout %q; use generic (the index has keys of its own, keys: {pk: GSI1PK, sk: GSI1SK}) or inverted (the index is keyed on the table's sort and partition keys)", v)
			}
		}
	}
	keys, hasKeys := f["keys"]
	if kind == LayoutInverted {
		if hasKeys {
			c.addf(keys.key.Line, keys.key.Column, "index keys: the inverted layout's index is keyed on the table's own keys (partition %s, sort %s); remove keys, or use layout: generic", sk, pk)
		}
		return InvertedLayout(pk, sk)
	}
	ipk, isk := DefaultIndexPK, DefaultIndexSK
	if !hasKeys {
		return GenericLayout(pk, sk, ipk, isk)
	}
	ipk, isk = b.keyNames(keys, "index keys", ipk, isk)
	l := GenericLayout(pk, sk, ipk, isk)
	switch {
	case ipk == sk && isk == pk:
		c.addf(keys.key.Line, keys.key.Column, "index keys {pk: %s, sk: %s} are the table's keys swapped: that is layout: inverted; write layout: inverted instead of keys", ipk, isk)
	case ipk == isk:
		c.addf(keys.key.Line, keys.key.Column, "index keys: pk and sk are both %q; the index needs two attributes", ipk)
	case slices.Contains([]string{pk, sk}, ipk) || slices.Contains([]string{pk, sk}, isk):
		c.addf(keys.key.Line, keys.key.Column, "index keys {pk: %s, sk: %s} share an attribute with the table keys (%s, %s); the generic layout's index keys are attributes of their own", ipk, isk, pk, sk)
	case ipk == l.Type || isk == l.Type:
		c.addf(keys.key.Line, keys.key.Column, "index keys: %q is the attribute where the generic layout records each item's entity or relation; choose another name", l.Type)
	}
	return l
}
