package local

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
)

// jreader is a small reflection-free JSON reader for the hot request shapes
// (PutItem, BatchWriteItem, Query, ...): encoding/json scans every item
// several times and dominated ingest. Malformed input is a
// SerializationException, as from encoding/json.
type jreader struct {
	b []byte
	i int
	s string // string(b), made when the first item is read
	// items, when set, gives the maps of items read (see attr.ItemPool).
	items *attr.ItemPool
}

var errSyntax = errors.New("malformed JSON")

func serialization(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ve *attr.ValidationError
	if errors.As(err, &ve) {
		return &apiError{Type: errValidation, Message: ve.Msg, value: ve}
	}
	return &apiError{Type: errSerialization, Message: "Unable to parse request body: " + err.Error()}
}

func (r *jreader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jreader) peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *jreader) expect(c byte) error {
	if r.peek() != c {
		return errSyntax
	}
	r.i++
	return nil
}

// null consumes a JSON null if one is next.
func (r *jreader) null() bool {
	if r.peek() == 'n' && len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// end checks that only whitespace is left.
func (r *jreader) end() error {
	r.ws()
	if r.i != len(r.b) {
		return errSyntax
	}
	return nil
}

// object calls field for each member. A member whose value field leaves
// unread is skipped, as encoding/json skips members it does not know.
func (r *jreader) object(field func(key string) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	if r.peek() == '}' {
		r.i++
		return nil
	}
	for {
		if r.peek() != '"' {
			return errSyntax
		}
		k, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		r.ws()
		at := r.i
		if err := field(k); err != nil {
			return err
		}
		if r.i == at {
			if _, err := r.skip(); err != nil {
				return err
			}
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// array calls elem for each element; elem must consume it.
func (r *jreader) array(elem func() error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	if r.peek() == ']' {
		r.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// str reads a string (null reads as ""); escapes take the slow path
// through encoding/json.
func (r *jreader) str() (string, error) {
	if r.null() {
		return "", nil
	}
	if r.peek() != '"' {
		return "", errSyntax
	}
	start := r.i
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return string(r.b[start+1 : j]), nil
		case c == '\\':
			end, err := r.skipString()
			if err != nil {
				return "", err
			}
			var s string
			if err := json.Unmarshal(r.b[start:end], &s); err != nil {
				return "", errSyntax
			}
			return s, nil
		case c < 0x20:
			return "", errSyntax
		}
	}
	return "", errSyntax
}

// skipString moves past the string at r.i and returns the end offset.
func (r *jreader) skipString() (int, error) {
	for j := r.i + 1; j < len(r.b); j++ {
		switch r.b[j] {
		case '\\':
			j++
		case '"':
			r.i = j + 1
			return r.i, nil
		}
	}
	return 0, errSyntax
}

// optStr reads a string or null (nil).
func (r *jreader) optStr() (*string, error) {
	if r.null() {
		return nil, nil
	}
	s, err := r.str()
	return &s, err
}

func (r *jreader) boolean() (bool, error) {
	r.ws()
	switch {
	case len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "true":
		r.i += 4
		return true, nil
	case len(r.b)-r.i >= 5 && string(r.b[r.i:r.i+5]) == "false":
		r.i += 5
		return false, nil
	case r.null():
		return false, nil
	}
	return false, errSyntax
}

func (r *jreader) optBool() (*bool, error) {
	if r.null() {
		return nil, nil
	}
	b, err := r.boolean()
	return &b, err
}

// boolInto reads a boolean into b; null leaves b as it is, as
// encoding/json does.
func (r *jreader) boolInto(b *bool) error {
	v, err := r.optBool()
	if v != nil {
		*b = *v
	}
	return err
}

// tableName reads a TableName member into name and notes in set that it
// was sent, if only as ""; null leaves both as they are.
func (r *jreader) tableName(name *string, set *bool) error {
	v, err := r.optStr()
	if v != nil {
		*name, *set = *v, true
	}
	return err
}

func (r *jreader) optInt() (*int64, error) {
	if r.null() {
		return nil, nil
	}
	start := r.i
	for r.i < len(r.b) && (r.b[r.i] >= '0' && r.b[r.i] <= '9' || r.b[r.i] == '-') {
		r.i++
	}
	n, err := strconv.ParseInt(string(r.b[start:r.i]), 10, 64)
	if err != nil {
		return nil, errSyntax
	}
	return &n, nil
}

// skip moves past one value of any kind and returns its bytes.
func (r *jreader) skip() ([]byte, error) {
	r.ws()
	start := r.i
	depth := 0
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case '"':
			if _, err := r.skipString(); err != nil {
				return nil, err
			}
			if depth == 0 {
				return r.b[start:r.i], nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return nil, errSyntax
			}
			if depth == 0 {
				r.i++
				return r.b[start:r.i], nil
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				if r.i == start {
					return nil, errSyntax
				}
				return r.b[start:r.i], nil
			}
		default:
			if depth == 0 {
				// a literal or number: up to the next delimiter
				for r.i < len(r.b) && !isDelim(r.b[r.i]) {
					r.i++
				}
				return r.b[start:r.i], nil
			}
		}
		r.i++
	}
	if depth != 0 || r.i == start {
		return nil, errSyntax
	}
	return r.b[start:r.i], nil
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// item reads an item (object of attribute values) or null.
func (r *jreader) item() (attr.Item, error) {
	if r.null() {
		return nil, nil
	}
	if r.peek() != '{' {
		return nil, errSyntax
	}
	if r.s == "" {
		r.s = string(r.b) // once per request: items' strings are substrings of it
	}
	decode := attr.DecodeItemAt
	if r.items != nil {
		decode = r.items.DecodeItemAt
	}
	if it, end, err := decode(r.s, r.i); err == nil {
		r.i = end
		return it, nil
	}
	// A bad item: find its extent first, as before, so malformed JSON is
	// reported as such even after an invalid value (skip only matches
	// brackets and strings, so the JSON itself is checked too).
	raw, err := r.skip()
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		return nil, errSyntax
	}
	return attr.UnmarshalItem(raw)
}

// exprValues reads ExpressionAttributeValues or null, with attr's messages
// that name the failing placeholder.
func (r *jreader) exprValues() (attr.Item, error) {
	if r.null() {
		return nil, nil
	}
	if r.peek() != '{' {
		return nil, errSyntax
	}
	raw, err := r.skip()
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) { // see item
		return nil, errSyntax
	}
	var ev attr.ExprValues
	if err := ev.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return attr.Item(ev), nil
}

// names reads ExpressionAttributeNames (an object of strings) or null.
func (r *jreader) names() (map[string]string, error) {
	if r.null() {
		return nil, nil
	}
	m := map[string]string{}
	err := r.object(func(k string) error {
		v, err := r.str()
		m[k] = v
		return err
	})
	return m, err
}

// strs reads an array of strings or null.
func (r *jreader) strs() ([]string, error) {
	if r.null() {
		return nil, nil
	}
	out := []string{}
	err := r.array(func() error {
		s, err := r.str()
		out = append(out, s)
		return err
	})
	return out, err
}

// decodeWith runs a field reader over a whole request body. A body of
// null is an empty request, as encoding/json reads it for the operations
// without a hand-written decoder.
func decodeWith(body []byte, field func(r *jreader, key string) error) error {
	r := &jreader{b: body}
	var err error
	if !r.null() {
		err = r.object(func(k string) error { return field(r, k) })
	}
	if err == nil {
		err = r.end()
	}
	if err != nil {
		return serialization(err)
	}
	return nil
}
