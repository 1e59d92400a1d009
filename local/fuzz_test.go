package local

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// decoderCase is a hand-written decoder of a hot request with encoding/json
// filling the same struct from the same body (decodeRequest).
type decoderCase struct {
	name string
	fast func([]byte) (any, error)
	std  func([]byte) (any, error)
}

// decoderPair pairs fast, the hand-written decoder of T, with decodeRequest
// into a T.
func decoderPair[T any](name string, fast func([]byte, *T) error) decoderCase {
	return decoderCase{name,
		func(b []byte) (any, error) { var in T; return &in, fast(b, &in) },
		func(b []byte) (any, error) { var in T; return &in, decodeRequest(b, &in) }}
}

// decoderCases are the hand-written decoders of the hot requests.
var decoderCases = []decoderCase{
	decoderPair("PutItem", decodePutItem),
	decoderPair("DeleteItem", decodeDeleteItem),
	decoderPair("UpdateItem", decodeUpdateItem),
	decoderPair("GetItem", decodeGetItem),
	decoderPair("Query", decodeQuery),
	decoderPair("BatchWriteItem", decodeBatchWrite),
	decoderPair("TransactWriteItems", decodeTransactWrite),
}

// FuzzDecoders checks every hand-written request decoder against
// encoding/json on the same body: no panic, a refusal is an *apiError, where
// both accept they read the same request, and a body encoding/json accepts
// is refused by the fast decoder only as a ValidationException.
func FuzzDecoders(f *testing.F) {
	for _, s := range []string{
		`{"TableName":"t","Item":{"PK":{"S":"a"},"n":{"N":"1"}},"ConditionExpression":"attribute_not_exists(PK)"}`,
		`{"TableName":"t","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"UpdateExpression":"SET #a = :v","ExpressionAttributeNames":{"#a":"a"},"ExpressionAttributeValues":{":v":{"L":[{"NULL":true}]}}}`,
		`{"TableName":"t","IndexName":"GSI1","KeyConditionExpression":"GSI1PK = :p","Limit":5,"ExclusiveStartKey":{"PK":{"S":"a"}},"ScanIndexForward":false,"Select":"COUNT"}`,
		`{"RequestItems":{"t":[{"PutRequest":{"Item":{"PK":{"S":"a"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"b"}}}}]},"ReturnConsumedCapacity":"TOTAL"}`,
		`{"TransactItems":[{"Put":{"TableName":"t","Item":{"PK":{"S":"a"}}}},{"Update":{"TableName":"t","Key":{"PK":{"S":"a"}},"UpdateExpression":"ADD c :one","ExpressionAttributeValues":{":one":{"N":"1"}}}},{"ConditionCheck":{"TableName":"t","Key":{"PK":{"S":"x"}},"ConditionExpression":"attribute_exists(PK)"}}],"ClientRequestToken":"tok"}`,
		`{"TableName":"t","Key":{"PK":{"B":"AQID"}},"AttributesToGet":["a","b"],"ConsistentRead":true}`,
		`{"TableName":null,"Key":null,"Limit":null}`, `{"Limit":1e400}`, `{"TableName":"\ud800"}`, `[]`, `{`, ``,
	} {
		for i := range decoderCases {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		c := decoderCases[int(which)%len(decoderCases)]
		fast, errFast := c.fast(body)
		std, errStd := c.std(body)
		if errFast != nil {
			if _, ok := errFast.(*apiError); !ok {
				t.Fatalf("%s fast decoder: %T %v, want *apiError", c.name, errFast, errFast)
			}
		}
		if errFast == nil && errStd == nil && !foldedMember(body, reflect.TypeOf(std)) && !sameRequest(t, fast, std) {
			t.Fatalf("%s decoders disagree on %q:\nfast %+v\nstd  %+v", c.name, body, fast, std)
		}
		if errStd == nil && errFast != nil && errFast.(*apiError).Type != errValidation {
			t.Fatalf("%s fast decoder refused a valid body %q: %v", c.name, body, errFast)
		}
	})
}

// foldedMember reports whether body names a member of typ in another case
// ("TABLENAME"): encoding/json takes it for the member, DynamoDB and the
// fast decoders ignore it as unknown. Such bodies are not compared.
func foldedMember(body []byte, typ reflect.Type) bool {
	exact := map[string]bool{}
	memberNames(typ, exact, map[reflect.Type]bool{})
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		// Keys and string values alike: skipping a few more bodies is cheap.
		if v, ok := tok.(string); ok && !exact[v] {
			for name := range exact {
				if strings.EqualFold(name, v) {
					return true
				}
			}
		}
	}
}

// memberNames collects the JSON member names of typ's struct fields, at any
// depth.
func memberNames(typ reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] {
		return
	}
	seen[typ] = true
	for f := range typ.Fields() {
		if f.Anonymous {
			memberNames(f.Type, names, seen) // encoding/json reads embedded structs' fields, exported or not
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		names[name] = true
		memberNames(f.Type, names, seen)
	}
}

// sameRequest compares two decoded requests by what they hold (the JSON
// of their exported fields, compared as values: items are maps).
func sameRequest(t *testing.T, a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	var va, vb any
	for _, p := range []struct {
		in  any
		out *any
	}{{a, &va}, {b, &vb}} {
		data, err := json.Marshal(p.in)
		if err != nil {
			t.Fatalf("marshal %T: %v", p.in, err)
		}
		if err := json.Unmarshal(data, p.out); err != nil {
			t.Fatalf("unmarshal %s: %v", data, err)
		}
	}
	return reflect.DeepEqual(va, vb)
}

// fuzzOps are the operations FuzzServe sends, in a fixed order so that a
// corpus entry names the same operation on every run.
var fuzzOps = slices.Sorted(func(yield func(string) bool) {
	for name := range operations {
		if !yield(name) {
			return
		}
	}
})

// FuzzServe sends any body to any operation of an engine holding one graph
// table with an item: the engine answers with DynamoDB's JSON error or
// result shape and never a panic or an InternalServerError (which would
// mean an input reached code that did not expect it).
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"TableName":"school","Item":{"PK":{"S":"a"},"SK":{"S":"a"},"n":{"N":"1"}}}`,
		`{"TableName":"school","Key":{"PK":{"S":"a"},"SK":{"S":"a"}},"UpdateExpression":"SET l = list_append(if_not_exists(l, :e), :e) ADD n :n","ExpressionAttributeValues":{":e":{"L":[]},":n":{"N":"1"}}}`,
		`{"TableName":"school","IndexName":"GSI1","KeyConditionExpression":"GSI1PK = :p AND begins_with(GSI1SK, :s)","ExpressionAttributeValues":{":p":{"S":"a"},":s":{"S":"a"}},"FilterExpression":"size(n) > :p"}`,
		`{"TableName":"school","FilterExpression":"contains(#x, :v)","ExpressionAttributeNames":{"#x":"l"},"ExpressionAttributeValues":{":v":{"N":"1"}},"Segment":0,"TotalSegments":2}`,
		`{"Statement":"SELECT * FROM \"school\" WHERE PK = ? ORDER BY SK DESC","Parameters":[{"S":"a"}]}`,
		`{"TransactStatements":[{"Statement":"UPDATE school SET x = 1 WHERE PK = 'a' AND SK = 'a'"}]}`,
		`{"AttributeDefinitions":[{"AttributeName":"k","AttributeType":"S"}],"TableName":"t2","KeySchema":[{"AttributeName":"k","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"RequestItems":{"school":{"Keys":[{"PK":{"S":"a"},"SK":{"S":"a"}}],"ProjectionExpression":"n, l[0]"}}}`,
		`{"TableName":"school","Key":{"PK":{"S":"a"},"SK":{"S":"a"}},"Expected":{"n":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"0"},{"N":"9"}]}}}`,
		`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/school","Tags":[{"Key":"a","Value":"b"}]}`,
		`{}`, `{"TableName":"school"}`, `null`,
	} {
		for i := range fuzzOps {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		e := openMem(t)
		createGraphTable(t, clientFor(e), "school")
		put, _ := newRequest(targetPrefix+"PutItem", `{"TableName":"school","Item":{"PK":{"S":"a"},"SK":{"S":"a"},"GSI1PK":{"S":"a"},"GSI1SK":{"S":"a"},"n":{"N":"1"},"l":{"L":[{"N":"1"}]}}}`)
		e.ServeHTTP(httptest.NewRecorder(), put)
		op := fuzzOps[int(which)%len(fuzzOps)]
		req, err := newRequest(targetPrefix+op, string(body))
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code == http.StatusInternalServerError {
			t.Fatalf("%s %q: %d %s", op, body, w.Code, w.Body.Bytes())
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %q: response is not a JSON object: %s", op, body, w.Body.Bytes())
		}
		if w.Code != http.StatusOK {
			if typ, _ := out["__type"].(string); !strings.HasPrefix(typ, errorNamespace) {
				t.Fatalf("%s %q: %d without a DynamoDB error type: %s", op, body, w.Code, w.Body.Bytes())
			}
		}
	})
}
