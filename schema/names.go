package schema

import (
	"fmt"
	"regexp"
	"strings"
)

// ReservedPrefix keys adjl's own metadata item; no entity, role or edge may use it.
const ReservedPrefix = "ADJL#"

var (
	// prefixRE keeps prefixes upper-case words ending in the delimiter. Because
	// "#" cannot occur inside a valid prefix, two different valid prefixes can
	// never be one a prefix of the other, so keys resolve unambiguously.
	prefixRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*#$`)
	// verbRE: verbs become CLI commands, typed by hand.
	verbRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	// nameRE: entity and relation names appear in commands and in the type attribute.
	nameRE = regexp.MustCompile(`^[a-z][a-zA-Z0-9_-]*$`)
	// attrRE: no dots (the SDK expression builder reads them as paths) and no
	// "=" (it splits --set name=value).
	attrRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	// tableRE is DynamoDB's rule for table and index names.
	tableRE = nameRule{min: 3, max: 255, extra: "_.-"}
)

// Kinds lists every attribute kind, in the order messages show them.
var Kinds = []AttrKind{KindString, KindNumber, KindBool, KindDate, KindDatetime, KindStrings}

// declName returns the name an entity or relation is declared under (kind
// is "entity" or "relation") and its label for messages, such as
// entity "student"; a name that breaks nameRE is reported at its key.
func (c *collect) declName(kind string, p pair) (name, what string) {
	name = p.name()
	if !nameRE.MatchString(name) {
		c.addf(p.key.Line, p.key.Column, "%s name %q must start with a lower-case letter and use only letters, digits, _ and -", kind, name)
	}
	return name, fmt.Sprintf("%s %q", kind, name)
}

func kindNames() string { return strings.Join(kindStrings(), ", ") }

func joinNames(names []string) string { return strings.Join(names, " ") }

// prefixProblem explains why p cannot be a key prefix, or returns "".
// what is "prefix", "role prefix" or "edge prefix".
func prefixProblem(p, what string) string {
	switch {
	case p == "":
		return fmt.Sprintf("%s is empty; use upper-case letters ending in %q, e.g. \"STU#\"", what, Delimiter)
	case !strings.HasSuffix(p, Delimiter):
		return fmt.Sprintf("%s %q must end with %q, e.g. %q", what, p, Delimiter, suggestPrefix(p))
	case !prefixRE.MatchString(p):
		return fmt.Sprintf("%s %q must match ^[A-Z][A-Z0-9_]*#$ (an upper-case word, then %q), e.g. %q", what, p, Delimiter, suggestPrefix(p))
	case p == ReservedPrefix:
		return fmt.Sprintf("%s %q is reserved for adjl's metadata item; choose another", what, p)
	}
	return ""
}

// suggestPrefix turns "stu", "Stu#" or "st-u" into "STU#" for hints.
func suggestPrefix(p string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(p) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), "0123456789_")
	if s == "" {
		s = "ITEM"
	}
	return s + Delimiter
}
