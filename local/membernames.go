package local

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
)

// DynamoDB's member names are case-sensitive: a request member named
// "tableName" or "IteM" is not TableName or Item, and is ignored as any
// unknown member is (so the request usually fails validation for the
// member it lacks). encoding/json matches names regardless of case, so
// decodeRequest first drops the top-level members it would read into a
// field only by ignoring case. Members nested deeper (inside KeySchema,
// TransactItems, …) are still matched regardless of case.

// memberSet is the member names a request type reads.
type memberSet []string

var memberSets sync.Map // reflect.Type -> memberSet

// membersOf lists the JSON member names of the struct v points to,
// including those of embedded structs and struct pointers.
func membersOf(t reflect.Type) memberSet {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := memberSets.Load(t); ok {
		return s.(memberSet)
	}
	var names memberSet
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			ft := f.Type
			if f.Anonymous && ft.Kind() == reflect.Pointer {
				ft = ft.Elem() // encoding/json reads an embedded *T as T
			}
			switch {
			case tag == "-":
			case f.Anonymous && tag == "" && ft.Kind() == reflect.Struct:
				walk(ft)
			case !f.IsExported():
			case tag != "":
				names = append(names, tag)
			default:
				names = append(names, f.Name)
			}
		}
	}
	if t.Kind() == reflect.Struct {
		walk(t)
	}
	memberSets.Store(t, names)
	return names
}

// foldedOnly reports whether name matches a member only apart from case.
func (s memberSet) foldedOnly(name string) bool {
	folded := false
	for _, m := range s {
		if m == name {
			return false
		}
		folded = folded || strings.EqualFold(m, name)
	}
	return folded
}

// exactMembers returns body without the top-level members whose names
// match one of v's only apart from case. A body that is not a JSON object
// is returned as it is, for the decoder to refuse.
func exactMembers(body []byte, v any) []byte {
	names := membersOf(reflect.TypeOf(v))
	if len(names) == 0 {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return body
	}
	type member struct {
		name string
		raw  json.RawMessage
	}
	var kept []member
	dropped := false
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return body
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return body
		}
		if names.foldedOnly(name) {
			dropped = true
			continue
		}
		kept = append(kept, member{name, raw})
	}
	// The object must close, with nothing after it, for the rebuilt body
	// to be what the decoder would have read.
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return body
	}
	if _, err := dec.Token(); !dropped || err != io.EOF {
		return body
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}
