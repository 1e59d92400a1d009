package cmd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"time"

	"github.com/adjl/adjl/internal/plainjson"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// orderedObject is a JSON object that keeps its fields in the order they were
// added: wire-shape requests read in the SDK's field order, and list rows read
// key first, then the schema's attributes.
type orderedObject []field

type field struct {
	Name  string
	Value any
}

// MarshalJSON writes the fields in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := plainjson.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// get returns the value of the named field.
func (o orderedObject) get(name string) (any, bool) {
	for _, f := range o {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

var (
	avType   = reflect.TypeOf((*types.AttributeValue)(nil)).Elem()
	timeType = reflect.TypeOf(time.Time{})
)

// wireValue converts an SDK input or output struct into the shape DynamoDB's
// JSON protocol uses on the wire: PascalCase field names, nil fields omitted,
// AttributeValues as {"S": "..."}, timestamps as epoch seconds. It is what
// --explain prints and what `aws dynamodb --cli-input-json` accepts.
func wireValue(v reflect.Value) (any, bool) {
	if !v.IsValid() {
		return nil, false
	}
	if v.Type() == avType || v.Type().Implements(avType) && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		av, ok := v.Interface().(types.AttributeValue)
		if !ok {
			return nil, false
		}
		return wireAV(av), true
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil, false
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			// A set pointer is sent even when it points to a zero value.
			return e.Interface(), true
		}
		return wireValue(e)
	case reflect.Struct:
		if v.Type() == timeType {
			t := v.Interface().(time.Time)
			return json.Number(formatEpoch(t)), true
		}
		var obj orderedObject
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			if fv, ok := wireValue(v.Field(i)); ok {
				obj = append(obj, field{sf.Name, fv})
			}
		}
		return obj, true
	case reflect.Map:
		if v.IsNil() {
			return nil, false
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		obj := orderedObject{}
		for _, k := range keys {
			if fv, ok := wireValue(v.MapIndex(k)); ok {
				obj = append(obj, field{k.String(), fv})
			}
		}
		return obj, true
	case reflect.Slice:
		if v.IsNil() {
			return nil, false
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), true
		}
		out := make([]any, 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			if fv, ok := wireValue(v.Index(i)); ok {
				out = append(out, fv)
			}
		}
		return out, true
	case reflect.String:
		if v.String() == "" {
			return nil, false
		}
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), v.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint(), v.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return v.Float(), v.Float() != 0
	}
	return nil, false
}

// avObject is an AttributeValue in DynamoDB JSON ({"S": "..."}); the
// pretty printer keeps short ones on one line.
type avObject orderedObject

// MarshalJSON writes the value like an ordered object.
func (o avObject) MarshalJSON() ([]byte, error) { return orderedObject(o).MarshalJSON() }

// wireAV is one AttributeValue in DynamoDB JSON.
func wireAV(av types.AttributeValue) avObject {
	switch t := av.(type) {
	case *types.AttributeValueMemberS:
		return avObject{{"S", t.Value}}
	case *types.AttributeValueMemberN:
		return avObject{{"N", t.Value}}
	case *types.AttributeValueMemberB:
		return avObject{{"B", base64.StdEncoding.EncodeToString(t.Value)}}
	case *types.AttributeValueMemberBOOL:
		return avObject{{"BOOL", t.Value}}
	case *types.AttributeValueMemberNULL:
		return avObject{{"NULL", t.Value}}
	case *types.AttributeValueMemberSS:
		return avObject{{"SS", nonNil(t.Value)}}
	case *types.AttributeValueMemberNS:
		return avObject{{"NS", nonNil(t.Value)}}
	case *types.AttributeValueMemberBS:
		out := make([]string, len(t.Value))
		for i, b := range t.Value {
			out[i] = base64.StdEncoding.EncodeToString(b)
		}
		return avObject{{"BS", out}}
	case *types.AttributeValueMemberL:
		out := make([]any, len(t.Value))
		for i, e := range t.Value {
			out[i] = wireAV(e)
		}
		return avObject{{"L", out}}
	case *types.AttributeValueMemberM:
		v, _ := wireValue(reflect.ValueOf(t.Value))
		if v == nil {
			v = orderedObject{}
		}
		return avObject{{"M", v}}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// formatEpoch is a timestamp the way DynamoDB's JSON protocol sends it:
// seconds since the epoch with up to millisecond decimals.
func formatEpoch(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
}

// prettyJSON indents v like json.MarshalIndent, except that an
// AttributeValue that fits in 60 characters stays on one line:
// "PK": {"S": "STU#a91"} reads better than four lines.
func prettyJSON(v any) (string, error) {
	var b bytes.Buffer
	if err := writePretty(&b, v, ""); err != nil {
		return "", err
	}
	return b.String(), nil
}

// prettyStep is one level of indentation in prettyJSON.
const prettyStep = "  "

func writePretty(b *bytes.Buffer, v any, indent string) error {
	switch t := v.(type) {
	case avObject:
		flat, err := plainjson.Marshal(t)
		if err != nil {
			return err
		}
		if len(flat) <= 60 {
			b.Write(spaceAfterColon(flat))
			return nil
		}
		return writePretty(b, orderedObject(t), indent)
	case orderedObject:
		return writeBlock(b, "{", "}", len(t), indent, func(i int, inner string) error {
			k, _ := plainjson.Marshal(t[i].Name)
			b.Write(k)
			b.WriteString(": ")
			return writePretty(b, t[i].Value, inner)
		})
	case []any:
		return writeBlock(b, "[", "]", len(t), indent, func(i int, inner string) error {
			return writePretty(b, t[i], inner)
		})
	}
	out, err := json.MarshalIndent(v, indent, prettyStep)
	if err != nil {
		return err
	}
	b.WriteString(unescapeHTML(out))
	return nil
}

// writeBlock writes an object or array of n entries, one per line at
// indent+step, with each entry written by entry; an empty one stays "{}".
func writeBlock(b *bytes.Buffer, open, close string, n int, indent string, entry func(i int, inner string) error) error {
	if n == 0 {
		b.WriteString(open + close)
		return nil
	}
	b.WriteString(open + "\n")
	for i := range n {
		b.WriteString(indent + prettyStep)
		if err := entry(i, indent+prettyStep); err != nil {
			return err
		}
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + close)
	return nil
}

// spaceAfterColon turns {"S":"x"} into {"S": "x"} for the one-line form;
// only the separators between a key and its value, never inside strings.
func spaceAfterColon(flat []byte) []byte {
	var out bytes.Buffer
	inString, escaped := false, false
	for _, c := range flat {
		out.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inString:
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.Bytes()
}
