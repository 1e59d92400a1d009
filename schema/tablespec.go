package schema

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Settings are the table's own settings beyond keys, index and billing. Each
// one the schema leaves out is not managed: adjl neither compares nor changes
// it, so a setting someone else looks after (tags added by an organisation's
// tooling, PITR switched on by a backup policy) is left alone.
type Settings struct {
	// TTL names the attribute holding each item's expiry time (epoch
	// seconds); nil leaves TTL alone, Attribute "" (ttl: false) turns it off.
	TTL *TTL
	// Tags are the table's tags in file order; ManageTags says the schema has
	// a tags: block (tags: {} means no tags at all).
	Tags       []Tag
	ManageTags bool
	// DeletionProtection and PointInTimeRecovery are nil when not managed.
	DeletionProtection  *bool
	PointInTimeRecovery *bool
}

// TTL is the table's time-to-live setting.
type TTL struct {
	Attribute string // "" means TTL is off
}

// Tag is one table tag.
type Tag struct {
	Key, Value string
}

// Managed reports whether the schema manages any setting.
func (st Settings) Managed() bool {
	return st.TTL != nil || st.ManageTags || st.DeletionProtection != nil || st.PointInTimeRecovery != nil
}

// DynamoDB's tag rules: at most 50 per table, keys of 1-128 and values of
// 0-256 Unicode characters from letters, digits, spaces and _ . : / = + - @,
// and the aws: prefix reserved for AWS.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html
const (
	maxTags        = 50
	maxTagKeyLen   = 128
	maxTagValueLen = 256
	ttlExample     = "ttl: expiresAt (the attribute holding the expiry time, in epoch seconds), or ttl: false"
)

var tagCharsRE = newLazyRE(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

// Table setting field names, as written in the schema.
const (
	fieldTTL                 = "ttl"
	fieldTags                = "tags"
	fieldDeletionProtection  = "deletionProtection"
	fieldPointInTimeRecovery = "pointInTimeRecovery"
)

// settingFields are the table fields settings reads.
var settingFields = []string{fieldTTL, fieldTags, fieldDeletionProtection, fieldPointInTimeRecovery}

// settings reads the table block's setting fields.
func (b *builder) settings(f map[string]pair) {
	c, st := b.c, &b.s.Table.Settings
	if p, ok := f[fieldTTL]; ok {
		v := deref(p.val)
		switch {
		case v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
			if v.Value == "false" || v.Value == "False" || v.Value == "FALSE" {
				st.TTL = &TTL{}
			} else {
				c.addf(v.Line, v.Column, "ttl names the attribute that holds each item's expiry time; write %s", ttlExample)
			}
		default:
			if name, ok := c.str(p, "ttl"); ok {
				switch {
				case !attrRE.MatchString(name) || len(name) > 255:
					c.addf(v.Line, v.Column, "ttl attribute %q is not a valid attribute name: start with a letter, then letters, digits, _ or -", name)
				case slices.Contains(b.s.Layout().Reserved(), name):
					c.addf(v.Line, v.Column, "ttl attribute %q is one of adjl's key attributes (%s); name an attribute of your items, e.g. expiresAt", name, strings.Join(b.s.Layout().Reserved(), ", "))
				default:
					st.TTL = &TTL{Attribute: name}
					b.ttl = v
				}
			}
		}
	}
	if p, ok := f[fieldTags]; ok {
		b.tags(p)
	}
	for _, bf := range []struct {
		field string
		dst   **bool
	}{{fieldDeletionProtection, &st.DeletionProtection}, {fieldPointInTimeRecovery, &st.PointInTimeRecovery}} {
		if p, ok := f[bf.field]; ok {
			if v, ok := c.boolean(p, bf.field); ok {
				*bf.dst = &v
			}
		}
	}
}

func (b *builder) tags(tp pair) {
	c, st := b.c, &b.s.Table.Settings
	v := deref(tp.val)
	if v != nil && v.Kind == mappingKind && len(v.Content) == 0 {
		st.ManageTags = true // tags: {} - the table has no tags
		return
	}
	ps := c.pairs(tp.val, "tags", "{team: data, env: prod}")
	if ps == nil {
		return
	}
	st.ManageTags = true
	for _, p := range ps {
		key := p.name()
		value, ok := c.str(p, "tag "+key)
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(strings.ToLower(key), "aws:"):
			c.addf(p.key.Line, p.key.Column, "tag key %q: the aws: prefix is reserved for tags AWS sets; choose another key", key)
		case utf8.RuneCountInString(key) > maxTagKeyLen:
			c.addf(p.key.Line, p.key.Column, "tag key %q is longer than %d characters", key, maxTagKeyLen)
		case !tagCharsRE.MatchString(key):
			c.addf(p.key.Line, p.key.Column, "tag key %q has a character DynamoDB refuses; use letters, digits, spaces and _ . : / = + - @", key)
		case utf8.RuneCountInString(value) > maxTagValueLen:
			c.addf(p.val.Line, p.val.Column, "tag %s: the value is longer than %d characters", key, maxTagValueLen)
		case !tagCharsRE.MatchString(value):
			c.addf(p.val.Line, p.val.Column, "tag %s: the value %q has a character DynamoDB refuses; use letters, digits, spaces and _ . : / = + - @", key, value)
		default:
			st.Tags = append(st.Tags, Tag{Key: key, Value: value})
		}
	}
	if len(ps) > maxTags {
		c.addf(tp.key.Line, tp.key.Column, "tags has %d entries; a DynamoDB table holds at most %d", len(ps), maxTags)
	}
}

// checkTTL: DynamoDB expires an item only when its TTL attribute is a
// number (epoch seconds), so a TTL attribute declared with another kind
// would never expire anything; a counter as TTL would delete the items it
// counts on.
func (b *builder) checkTTL() {
	ttl := b.s.Table.Settings.TTL
	if ttl == nil || ttl.Attribute == "" || b.ttl == nil {
		return
	}
	name := ttl.Attribute
	for _, r := range b.s.Relations {
		if r.Counters.From == name || r.Counters.To == name {
			b.c.addf(b.ttl.Line, b.ttl.Column, "ttl attribute %q is a counter of relation %q; TTL would delete the items it counts on: name another attribute", name, r.Name)
			return
		}
	}
	check := func(owner string, attrs []Attribute) bool {
		for _, a := range attrs {
			if a.Name == name && a.Kind != KindNumber {
				b.c.addf(b.ttl.Line, b.ttl.Column, "ttl attribute %q is declared as %s on %s; DynamoDB expires items only by a number (epoch seconds): declare it as number", name, a.Kind, owner)
				return false
			}
		}
		return true
	}
	for _, e := range b.s.Entities {
		if !check("entity "+e.Name, e.Attributes) {
			return
		}
	}
	for _, r := range b.s.Relations {
		if !check("relation "+r.Name, r.Attributes) {
			return
		}
	}
}
