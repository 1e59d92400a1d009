package local

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adjl/adjl/local/internal/attr"
)

// targetPrefix is the X-Amz-Target namespace of every DynamoDB operation.
const targetPrefix = "DynamoDB_20120810."

// errorNamespace prefixes __type the way DynamoDB does; the SDK strips it.
const errorNamespace = "com.amazonaws.dynamodb.v20120810#"

// opFunc handles one operation: it decodes body and returns the response
// body (JSON) or an error (an *apiError is sent as is, anything else as an
// InternalServerError).
type opFunc func(e *Engine, body []byte) ([]byte, error)

// decoded is the operation whose request encoding/json reads (see
// decodeRequest) and handle answers.
func decoded[In any](handle func(*Engine, *In) ([]byte, error)) opFunc {
	return decodedWith(func(body []byte, in *In) error { return decodeRequest(body, in) }, handle)
}

// decodedWith is the operation whose request decode reads and handle
// answers.
func decodedWith[In any](decode func([]byte, *In) error, handle func(*Engine, *In) ([]byte, error)) opFunc {
	return func(e *Engine, body []byte) ([]byte, error) {
		var in In
		if err := decode(body, &in); err != nil {
			return nil, err
		}
		return handle(e, &in)
	}
}

// The value layers (see attr.ValidationError): PutItem, UpdateItem and
// DeleteItem report a malformed attribute value in the current wording inside
// the validation envelope, GetItem, BatchGetItem and Query in the current
// wording bare, and every other operation in the older wording.
const (
	olderValues = iota
	currentValues
	currentValuesEnveloped
)

// inLayer is op reporting attribute value errors as layer words them.
func inLayer(layer int, op opFunc) opFunc {
	return func(e *Engine, body []byte) ([]byte, error) {
		out, err := op(e, body)
		var ae *apiError
		if layer != olderValues && errors.As(err, &ae) && ae.value != nil && ae.value.Current != "" {
			msg := ae.value.Current
			if layer == currentValuesEnveloped {
				msg = envelopePrefix + msg
			}
			return nil, &apiError{Type: ae.Type, Message: msg}
		}
		return out, err
	}
}

// operations is the engine's API: every DynamoDB operation it serves, by
// its X-Amz-Target name, with the decoder of its request (the hot ones have
// their own, in decoders.go) and the method that answers it (in the file
// named after the operation; the tag and TTL pairs share tags.go and
// timetolive.go). Anything else is an UnknownOperationException.
var operations = map[string]opFunc{
	// Tables.
	"CreateTable":   decoded((*Engine).createTable),
	"DeleteTable":   decoded((*Engine).deleteTable),
	"DescribeTable": decoded((*Engine).describeTable),
	"ListTables":    decoded((*Engine).listTables),
	"UpdateTable":   decoded((*Engine).updateTable),

	// Items.
	"DeleteItem": inLayer(currentValuesEnveloped, decodedWith(decodeDeleteItem, (*Engine).deleteItem)),
	"GetItem":    inLayer(currentValues, decodedWith(decodeGetItem, (*Engine).getItem)),
	"PutItem":    inLayer(currentValuesEnveloped, decodedWith(decodePutItem, (*Engine).putItem)),
	"UpdateItem": inLayer(currentValuesEnveloped, decodedWith(decodeUpdateItem, (*Engine).updateItem)),

	// Reads of many items.
	"Query": inLayer(currentValues, decodedWith(decodeQuery, (*Engine).query)),
	"Scan":  decodedWith(decodeQuery, (*Engine).scan),

	// Batches and transactions. BatchWriteItem and TransactWriteItems read
	// their own body: BatchWriteItem's items go back to a pool when it
	// returns, and TransactWriteItems limits the body's size.
	"BatchGetItem":       inLayer(currentValues, decoded((*Engine).batchGetItem)),
	"BatchWriteItem":     (*Engine).batchWriteItem,
	"TransactGetItems":   decoded((*Engine).transactGetItems),
	"TransactWriteItems": (*Engine).transactWriteItems,

	// Time to live and tags.
	"DescribeTimeToLive": decoded((*Engine).describeTimeToLive),
	"UpdateTimeToLive":   decoded((*Engine).updateTimeToLive),
	"ListTagsOfResource": decoded((*Engine).listTagsOfResource),
	"TagResource":        decoded((*Engine).tagResource),
	"UntagResource":      decoded((*Engine).untagResource),

	// PartiQL.
	"ExecuteStatement":      decoded((*Engine).executeStatement),
	"BatchExecuteStatement": decoded((*Engine).batchExecuteStatement),
	"ExecuteTransaction":    decoded((*Engine).executeTransaction),

	// Backups (point-in-time recovery settings only).
	"DescribeContinuousBackups": decoded((*Engine).describeContinuousBackups),
	"UpdateContinuousBackups":   decoded((*Engine).updateContinuousBackups),

	// The endpoint itself.
	"DescribeEndpoints": decoded((*Engine).describeEndpoints),
	"DescribeLimits":    decoded((*Engine).describeLimits),
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP implements the DynamoDB JSON 1.0 protocol: POST with
// X-Amz-Target naming the operation and a JSON body. It does not check
// signatures: the engine accepts any credentials unless a SigV4Verifier
// stands in front of it.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" {
		// Browser-based tools (DynamoDB admin UIs) call the engine directly,
		// as they may call DynamoDB Local: allow any origin.
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-Amzn-Requestid, X-Amz-Crc32")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			h.Set("Access-Control-Max-Age", "172800")
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	if r.Method != http.MethodPost {
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			// Health checks (and curious browsers) get a friendly answer.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "adjl local DynamoDB-compatible engine\n")
			return
		}
		writeError(w, r, &apiError{Type: errMissingAction, Message: "Only POST requests are supported", Status: http.StatusMethodNotAllowed})
		return
	}
	target := r.Header.Get("X-Amz-Target")
	name, ok := strings.CutPrefix(target, targetPrefix)
	op := operations[name]
	if !ok || op == nil {
		writeError(w, r, &apiError{Type: errUnknownOp, Message: "An unknown operation was requested: " + target})
		return
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	var body io.Reader = r.Body
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			writeError(w, r, &apiError{Type: errSerialization, Message: "cannot decompress request body"})
			return
		}
		defer zr.Close()
		body = zr
	}
	if _, err := buf.ReadFrom(io.LimitReader(body, maxRequestBytes+1)); err != nil {
		writeError(w, r, &apiError{Type: errSerialization, Message: "cannot read request body"})
		return
	}
	if buf.Len() > maxRequestBytes {
		writeError(w, r, &apiError{Type: errValidation, Message: "Request size exceeded the maximum allowed size", Status: http.StatusRequestEntityTooLarge})
		return
	}
	if e.isClosed() {
		writeError(w, r, &apiError{Type: errInternal, Message: "engine is closed", Status: http.StatusInternalServerError})
		return
	}
	out, err := e.serve(op, buf.Bytes())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeBody(w, r, http.StatusOK, out)
}

// serve runs op, counted in Engine.requests until it returns or panics (a
// panic reaches the caller: net/http recovers it per connection).
func (e *Engine) serve(op opFunc, body []byte) ([]byte, error) {
	e.requests.Add(1)
	defer e.requests.Add(-1)
	return op(e, body)
}

var jsonContentType = []string{"application/x-amz-json-1.0"}

// maxRequestBytes is DynamoDB's 16 MB request limit.
const maxRequestBytes = 16 << 20

func (e *Engine) isClosed() bool {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	return e.closed
}

// writeBody sends a JSON response with DynamoDB's headers: the CRC32 of the
// bytes on the wire (which the SDK validates) and gzip when the client asked.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	// Canonical keys assigned directly: Header.Set would canonicalise each.
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Amzn-Requestid"] = []string{requestID()}
	if len(body) > 1024 && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(body)
		zw.Close()
		body = zb.Bytes()
		h["Content-Encoding"] = []string{"gzip"}
	}
	h["X-Amz-Crc32"] = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

func acceptsGzip(ae string) bool {
	for part := range strings.SplitSeq(ae, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q = strings.ReplaceAll(q, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// writeError sends err in DynamoDB's error shape.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae, ok := err.(*apiError)
	if !ok {
		ae = &apiError{Type: errInternal, Message: "The server encountered an internal error trying to fulfill the request: " + err.Error(), Status: http.StatusInternalServerError}
	}
	status := ae.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	writeBody(w, r, status, encodeError(ae))
}

func encodeError(ae *apiError) []byte {
	var b []byte
	b = append(b, `{"__type":`...)
	ns := errorNamespace
	if ae.namespace != "" {
		ns = ae.namespace
	}
	b = attr.AppendJSONString(b, ns+ae.Type)
	if ae.Type == errTxCanceled {
		b = append(b, `,"CancellationReasons":[`...)
		for i, rs := range ae.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Code":`...)
			b = attr.AppendJSONString(b, rs.Code)
			if rs.Message != "" {
				b = append(b, `,"Message":`...)
				b = attr.AppendJSONString(b, rs.Message)
			}
			if rs.Item != nil {
				b = append(b, `,"Item":`...)
				b = append(b, rs.Item...)
			}
			b = append(b, '}')
		}
		b = append(b, `],"Message":`...)
	} else {
		b = append(b, `,"message":`...)
	}
	b = attr.AppendJSONString(b, ae.Message)
	if ae.Item != nil {
		b = append(b, `,"Item":`...)
		b = append(b, ae.Item...)
	}
	return append(b, '}')
}

// requestID returns a unique, DynamoDB-shaped (52 character) request id: a
// random per-process prefix and a counter, cheap enough for every response.
func requestID() string {
	n := requestSeq.Add(1)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var out [52]byte
	copy(out[:], requestPrefix)
	for i := len(out) - 1; i >= len(requestPrefix); i-- {
		out[i] = alphabet[n%36]
		n /= 36
	}
	return string(out[:])
}

var (
	requestSeq    atomic.Uint64
	requestPrefix = func() string {
		var b [40]byte
		rand.Read(b[:])
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for i := range b {
			b[i] = alphabet[int(b[i])%36]
		}
		return string(b[:])
	}()
)
