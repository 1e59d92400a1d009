package schema

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ParseSets turns `--set name=value` arguments into attribute values typed
// by the declarations in attrs: string, date and datetime give string;
// number gives Number; bool gives bool; strings gives []string (comma
// separated, trimmed, duplicates dropped, since DynamoDB sets refuse them).
// Every failure is an *InputError naming the argument and what to do; a key
// attribute of the schema's layout is refused as such.
func (s *Schema) ParseSets(attrs []Attribute, sets []string) (map[string]any, error) {
	out := make(map[string]any, len(sets))
	for _, set := range sets {
		quoted := strconv.Quote(shortKey(set)) // a value may be 400 KB
		if i := InvalidUTF8At(set); i >= 0 {
			// encoding/json, and so the SDK, would send U+FFFD instead:
			// another value than the one typed.
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: byte 0x%02X at position %d is not UTF-8; DynamoDB stores text as UTF-8, so re-encode it (for example with iconv)", quoted, set[i], i+1)}
		}
		name, value, ok := strings.Cut(set, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: expected name=value", quoted)}
		}
		if slices.Contains(s.Layout().Reserved(), name) {
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: %s is a key attribute adjl manages; it cannot be set", quoted, name)}
		}
		a, found := findAttribute(attrs, name)
		if !found {
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: unknown attribute %q; declared: %s", quoted, shortKey(name), attrList(attrs))}
		}
		if _, dup := out[name]; dup {
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: %s is set twice; keep one", quoted, name)}
		}
		v, err := parseValue(a.Kind, value)
		if err != nil {
			// An empty set cannot be stored; removing the attribute is what
			// --set tags= most likely meant.
			var empty *emptySetError
			if errors.As(err, &empty) {
				empty.or = ", or --unset " + name + " to remove the attribute"
			}
			return nil, &InputError{Msg: fmt.Sprintf("--set %s: %s is %s: %v", quoted, name, a.Kind.Noun(), err)}
		}
		out[name] = v
	}
	return out, nil
}

// InvalidUTF8At is the byte offset of the first byte of s that is not
// UTF-8, or -1. encoding/json, and so the SDK, would send U+FFFD in its
// place: another value than the one given.
func InvalidUTF8At(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

func findAttribute(attrs []Attribute, name string) (Attribute, bool) {
	for _, a := range attrs {
		if a.Name == name {
			return a, true
		}
	}
	return Attribute{}, false
}

func attrList(attrs []Attribute) string {
	if len(attrs) == 0 {
		return "(none)"
	}
	s := make([]string, len(attrs))
	for i, a := range attrs {
		s[i] = a.Name + " (" + string(a.Kind) + ")"
	}
	return strings.Join(s, ", ")
}

// ParseValue checks and converts one attribute value typed as kind; the
// result has the same types as ParseSets gives. A value that is not UTF-8 is
// refused whatever the kind.
func ParseValue(kind AttrKind, value string) (any, error) {
	if i := InvalidUTF8At(value); i >= 0 {
		return nil, fmt.Errorf("byte 0x%02X at position %d is not UTF-8; DynamoDB stores text as UTF-8, so re-encode it (for example with iconv)", value[i], i+1)
	}
	return parseValue(kind, value)
}

// boolSpellings are the other spellings of a bool value ParseValue reads
// (strconv.ParseBool's, after trimming spaces).
const boolSpellings = "1, t, T, TRUE, True, 0, f, F, FALSE and False"

func parseValue(kind AttrKind, value string) (any, error) {
	switch kind {
	case KindString:
		return value, nil
	case KindNumber:
		return ParseNumber(value)
	case KindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean: give true or false (%s are read too)", shortKey(value), boolSpellings)
		}
		return b, nil
	case KindDate:
		if _, err := time.Parse(time.DateOnly, value); err != nil {
			return nil, fmt.Errorf("%q is not a date like 2025-09-01", shortKey(value))
		}
		return value, nil
	case KindDatetime:
		if _, err := time.Parse(time.RFC3339Nano, value); err != nil {
			return nil, fmt.Errorf("%q is not an RFC 3339 time like 2025-09-01T10:00:00Z", shortKey(value))
		}
		return value, nil
	case KindStrings:
		var out []string
		for _, s := range strings.Split(value, ",") {
			s = strings.TrimSpace(s)
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, &emptySetError{value: value}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// emptySetError is a strings value with no elements. or is another way out
// the caller offers, shown beside "give a,b,c" (ParseSets: --unset).
type emptySetError struct{ value, or string }

func (e *emptySetError) Error() string {
	return fmt.Sprintf("%q has no elements; DynamoDB string sets cannot be empty (give a,b,c%s)", shortKey(e.value), e.or)
}
