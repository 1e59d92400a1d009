package schema

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// KeyError reports a key the user typed that cannot be used: wrong prefix,
// empty id, too long. It is input error, caught before any request is sent.
type KeyError struct {
	Input string
	// Reason says what is wrong; Want names the expected form, e.g. "STU#<id> or <id>".
	Reason, Want string
	// Suggest is the key the user probably meant, when there is one.
	Suggest string
}

func (e *KeyError) Error() string {
	if e.Suggest != "" {
		return fmt.Sprintf("key %q: %s; did you mean %s?", shortKey(e.Input), e.Reason, e.Suggest)
	}
	return fmt.Sprintf("key %q: %s (expected %s)", shortKey(e.Input), e.Reason, e.Want)
}

// shortKey keeps a message about an oversized key readable: its first 40
// characters and "...", since the reason already gives its size.
func shortKey(s string) string {
	const keep = 40
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + "..."
		}
		n++
	}
	return s
}

// FromKey returns the full from-side key from a bare id or a prefixed key.
// Only the side's prefix is accepted, so `enroll CRS#x STU#y` fails before a
// request is sent. The key is also the edge's index sort key, hence the sort-key limit.
func (r *Relation) FromKey(input string) (string, error) {
	return r.prefixes.normalize(input, r.From.Prefix, MaxSortKeyBytes)
}

// ToKey returns the full to-side key; the edge SK is Edge+key, so the edge
// prefix counts against the sort-key limit.
func (r *Relation) ToKey(input string) (string, error) {
	return r.prefixes.normalize(input, r.To.Prefix, MaxSortKeyBytes-len(r.Edge))
}

// Key returns the full key of an entity from a bare id or a prefixed key.
func (e *Entity) Key(input string) (string, error) {
	return e.prefixes.normalize(input, e.Prefix, MaxSortKeyBytes)
}

// prefixOwners maps every key prefix of a schema (entity and role
// prefixes) to the entity it belongs to, so that a key typed with another
// side's prefix, or with a prefix in the wrong case, is named for what it
// is. Schemas built by hand (tests) have none; their keys are still checked
// against the side's own prefix.
type prefixOwners map[string]string

// normalize returns the full key for input on the side whose prefix is
// prefix: a bare id gets the prefix. A key whose prefix is another one of
// the schema's, or the side's own in another case, or looks like a prefix
// (an upper-case word before the delimiter) is refused; so are ids that
// would store something other than what the user sees (see idProblem).
func (o prefixOwners) normalize(input, prefix string, maxBytes int) (string, error) {
	want := func() string { return prefix + "<id> or <id>" } // for errors only
	key := input
	if !strings.HasPrefix(input, prefix) {
		if i := strings.Index(input, Delimiter); i > 0 {
			if err := o.foreignPrefix(input, input[:i+1], prefix, want()); err != nil {
				return "", err
			}
		}
		key = prefix + input
	}
	id := key[len(prefix):]
	// Most ids are printable ASCII without a space at either end, which
	// idProblem passes: they skip it and the counting of positions its
	// messages need.
	if !trimmedPrintableASCII(id) {
		if reason := idProblem(id, utf8.RuneCountInString(input)-utf8.RuneCountInString(id)); reason != "" {
			return "", &KeyError{Input: input, Reason: reason, Want: want()}
		}
	}
	if len(key) > maxBytes {
		return "", &KeyError{Input: input, Reason: fmt.Sprintf("key is %d bytes, over the %d-byte limit", len(key), maxBytes), Want: want()}
	}
	return key, nil
}

// foreignPrefix refuses a key starting with p that is not the side's own
// prefix but one of the schema's, the side's own in another case, or an
// upper-case word that looks like a prefix. Other ids containing the
// delimiter ("a#1") are bare ids.
func (o prefixOwners) foreignPrefix(input, p, own, want string) error {
	switch {
	case strings.EqualFold(p, own):
		return &KeyError{Input: input, Reason: fmt.Sprintf("prefix %q is %q in another case", p, own), Want: want,
			Suggest: own + input[len(p):]}
	case o[p] != "":
		return &KeyError{Input: input, Reason: fmt.Sprintf("prefix %q does not belong here: it is the %s prefix", p, o[p]), Want: want}
	}
	for q, owner := range o {
		if strings.EqualFold(p, q) {
			return &KeyError{Input: input, Reason: fmt.Sprintf("prefix %q looks like %q (%s), which does not belong here either", p, q, owner), Want: want}
		}
	}
	if isPrefixWord(p[:len(p)-len(Delimiter)]) {
		reason := fmt.Sprintf("prefix %q does not belong here", p)
		if o != nil {
			reason = fmt.Sprintf("prefix %q does not belong here: the schema's prefixes are %s", p, strings.Join(slices.Sorted(maps.Keys(o)), " "))
		}
		return &KeyError{Input: input, Reason: reason, Want: want}
	}
	return nil
}

// idProblem says why id cannot be stored as typed, or returns "": empty,
// not UTF-8, surrounded by whitespace, or holding characters a terminal
// does not show as themselves (C0 and C1 controls, line and paragraph
// separators, bidirectional overrides and isolates), which would make two
// keys that look alike differ. offset is the length of the prefix adjl
// added, so positions count in the key as typed (1-based characters).
// normalize does not call it for ids trimmedPrintableASCII passes: a rule
// against such an id belongs in both.
func idProblem(id string, offset int) string {
	switch {
	case id == "":
		return "empty id"
	case !utf8.ValidString(id):
		return "id is not valid UTF-8"
	}
	pos := func(byteIndex int) int { return utf8.RuneCountInString(id[:byteIndex]) + 1 + offset }
	if r, _ := utf8.DecodeRuneInString(id); unicode.IsSpace(r) {
		return fmt.Sprintf("id starts with whitespace (%U at position %d); remove it", r, pos(0))
	}
	if r, size := utf8.DecodeLastRuneInString(id); unicode.IsSpace(r) {
		return fmt.Sprintf("id ends with whitespace (%U at position %d); remove it", r, pos(len(id)-size))
	}
	for i, r := range id {
		if what := Invisible(r); what != "" {
			return fmt.Sprintf("id contains %U (%s) at position %d", r, what, pos(i))
		}
	}
	return ""
}

// trimmedPrintableASCII reports whether id is non-empty printable ASCII
// that neither starts nor ends with a space: an id idProblem passes, told
// without decoding runes.
func trimmedPrintableASCII(id string) bool {
	if id == "" || id[0] == ' ' || id[len(id)-1] == ' ' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Invisible names a character that a terminal does not show as itself
// (it acts on the terminal, reorders the text around it, or shows as
// nothing), or returns "": C0 and C1 controls, line and paragraph
// separators, Unicode's bidirectional controls (marks, embeddings,
// overrides, isolates), and the zero-width and invisible formatting
// characters that could make two keys that look alike differ. The zero-width
// joiner and non-joiner are not among them: scripts and emoji need them.
// The table printer escapes the same characters.
func Invisible(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f:
		return "a control character"
	case r >= 0x80 && r <= 0x9f:
		return "a C1 control character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return "a bidirectional formatting character"
	case r == 0x200b, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0x00ad:
		return "an invisible formatting character"
	}
	return ""
}

// isPrefixWord reports whether s looks like a type prefix (STU, CRS, ACTOR):
// upper-case letters, digits and underscores. Ids such as "a#1" are not refused.
func isPrefixWord(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// EdgeSKPrefix is what every forward edge SK of the relation starts with.
func (r *Relation) EdgeSKPrefix() string { return r.Edge + r.To.Prefix }

// Shard is the stable shard of an edge: FNV-1a of the from-key mod Shards.
// The same edge always lands on the same shard, so linking stays idempotent.
func (r *Relation) Shard(fromKey string) int {
	if r.Shards <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(fromKey))
	return int(h.Sum32() % uint32(r.Shards))
}
