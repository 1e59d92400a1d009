// Package faultproxy is a reverse proxy for DynamoDB's JSON protocol that
// injects the faults a client meets on a real network and a busy table:
// throttling, server errors, connections closed before or after the request
// was applied, and batches answered in part. Tests put it on loopback in
// front of a real engine (the embedded one, `adjl local serve`, moto) to
// show that every command ends correctly, or with its documented exit code,
// and that nothing is applied twice.
package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Fault is one way a request goes wrong between a client and DynamoDB.
type Fault int

const (
	// Throttling answers 400 ThrottlingException; nothing is forwarded.
	Throttling Fault = iota
	// ProvisionedThroughput answers 400
	// ProvisionedThroughputExceededException; nothing is forwarded.
	ProvisionedThroughput
	// InternalError answers 500 InternalServerError; nothing is forwarded.
	InternalError
	// DropBefore closes the connection without forwarding the request.
	DropBefore
	// DropAfter forwards the request, waits for the engine's answer (so the
	// request was applied) and closes the connection instead of passing
	// the answer on.
	DropAfter
	// Unprocessed forwards part of a BatchWriteItem or BatchGetItem and
	// answers the rest as UnprocessedItems or UnprocessedKeys, as DynamoDB
	// does when a batch exceeds the table's throughput. Only batches of two
	// requests or more get it.
	Unprocessed
)

// All lists every fault.
var All = []Fault{Throttling, ProvisionedThroughput, InternalError, DropBefore, DropAfter, Unprocessed}

var faultNames = map[Fault]string{
	Throttling: "throttling", ProvisionedThroughput: "provisioned-throughput", InternalError: "internal-error",
	DropBefore: "drop-before", DropAfter: "drop-after", Unprocessed: "unprocessed",
}

func (f Fault) String() string {
	if n, ok := faultNames[f]; ok {
		return n
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Config says which requests get which faults.
type Config struct {
	// Rate is the share of requests that get a fault, drawn uniformly from
	// Faults (those that apply to the request's operation), each fault not
	// yet drawn first: a short run still sees every kind.
	Rate float64
	// Faults are the faults drawn from; all of them when empty.
	Faults []Fault
	// Seed makes the draws repeatable.
	Seed uint64
	// Decide, when set, replaces Rate and Faults: it is asked for each
	// request in arrival order, with its operation ("TransactWriteItems")
	// and its count among requests of that operation (1 for the first),
	// and returns the fault to inject, if any.
	Decide func(op string, n int) (Fault, bool)
}

// Entry records one request the proxy saw.
type Entry struct {
	Op    string
	Fault Fault
	Hit   bool // a fault was injected
	// Token is a TransactWriteItems' ClientRequestToken ("" when none).
	Token string
}

// Proxy is an http.Handler forwarding to one DynamoDB endpoint.
type Proxy struct {
	cfg Config
	rp  *httputil.ReverseProxy

	mu    sync.Mutex
	rng   *rand.Rand
	seen  map[string]int
	drawn map[Fault]int // faults decided so far, by kind
	log   []Entry
	stats map[string]int // "op fault" -> count, "op" -> requests
}

// New returns a proxy to target (the engine's URL).
func New(target string, cfg Config) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: bad target %q", target)
	}
	if len(cfg.Faults) == 0 {
		cfg.Faults = All
	}
	p := &Proxy{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		seen: map[string]int{}, drawn: map[Fault]int{}, stats: map[string]int{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host // the signature covers Host
		},
		Transport:      &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
	}
	return p, nil
}

// plan is what the proxy does to one request, carried to modifyResponse.
type plan struct {
	fault Fault
	held  map[string]json.RawMessage // the batch part answered unprocessed
	op    string
}

type planKey struct{}

// errDrop makes the reverse proxy drop the connection after the answer.
var errDrop = errors.New("faultproxy: answer dropped")

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	f, hit := p.decide(op, body)
	p.record(op, f, hit, body)
	if !hit {
		p.forward(w, r, body, nil)
		return
	}
	switch f {
	case Throttling:
		writeError(w, http.StatusBadRequest, "com.amazon.coral.availability#ThrottlingException", "Rate of requests exceeds the allowed throughput.")
	case ProvisionedThroughput:
		writeError(w, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
			"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
	case InternalError:
		writeError(w, http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error")
	case DropBefore:
		panic(http.ErrAbortHandler)
	case DropAfter:
		p.forward(w, r, body, &plan{fault: DropAfter, op: op})
	case Unprocessed:
		sent, held, ok := split(op, body, p.cut)
		if !ok {
			// One request only: DynamoDB refuses a batch none of which it
			// can process with ProvisionedThroughputExceededException.
			writeError(w, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
				"The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded.")
			return
		}
		p.forward(w, r, sent, &plan{fault: Unprocessed, held: held, op: op})
	}
}

// decide draws the request's fault.
func (p *Proxy) decide(op string, body []byte) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[op]++
	if p.cfg.Decide != nil {
		return p.cfg.Decide(op, p.seen[op])
	}
	if p.rng.Float64() >= p.cfg.Rate {
		return 0, false
	}
	var fs, fresh []Fault
	for _, f := range p.cfg.Faults {
		if f != Unprocessed || batchSize(op, body) >= 2 {
			fs = append(fs, f)
			if p.drawn[f] == 0 {
				fresh = append(fresh, f)
			}
		}
	}
	if len(fresh) > 0 {
		fs = fresh
	}
	if len(fs) == 0 {
		return 0, false
	}
	f := fs[p.rng.IntN(len(fs))]
	p.drawn[f]++
	return f, true
}

// cut picks how many of n batch requests are forwarded: 1 to n-1.
func (p *Proxy) cut(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return 1 + p.rng.IntN(n-1)
}

func (p *Proxy) record(op string, f Fault, hit bool, body []byte) {
	e := Entry{Op: op, Fault: f, Hit: hit}
	if op == "TransactWriteItems" {
		var in struct{ ClientRequestToken string }
		_ = json.Unmarshal(body, &in)
		e.Token = in.ClientRequestToken
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, e)
	p.stats[op]++
	if hit {
		p.stats[op+" "+f.String()]++
	}
}

// Log returns every request seen so far, in arrival order.
func (p *Proxy) Log() []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

// Injected counts the faults injected, by fault.
func (p *Proxy) Injected() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[Fault]int{}
	for _, e := range p.log {
		if e.Hit {
			out[e.Fault]++
		}
	}
	return out
}

// Summary is one line per operation: requests seen and faults injected.
func (p *Proxy) Summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ops []string
	for k := range p.stats {
		if !strings.Contains(k, " ") {
			ops = append(ops, k)
		}
	}
	sort.Strings(ops)
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "%s: %d requests", op, p.stats[op])
		for _, f := range All {
			if n := p.stats[op+" "+f.String()]; n > 0 {
				fmt.Fprintf(&b, ", %d %s", n, f)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, body []byte, pl *plan) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	if pl != nil {
		r = r.WithContext(context.WithValue(r.Context(), planKey{}, pl))
	}
	p.rp.ServeHTTP(w, r)
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	pl, _ := resp.Request.Context().Value(planKey{}).(*plan)
	if pl == nil {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if pl.fault == DropAfter {
		return errDrop // the engine has answered: the request was applied
	}
	if resp.StatusCode == http.StatusOK {
		if body, err = merge(pl.op, body, pl.held); err != nil {
			return err
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	if resp.Header.Get("X-Amz-Crc32") != "" {
		resp.Header.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	}
	return nil
}

// errorHandler closes the client's connection without an answer: for
// DropAfter, and when the engine could not be reached (the client sees
// what it would see of a dead server).
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	panic(http.ErrAbortHandler)
}

// writeError answers in DynamoDB's JSON error shape.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	body, _ := json.Marshal(map[string]string{"__type": typ, "message": msg})
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	h.Set("X-Amzn-Requestid", "faultproxy")
	w.WriteHeader(status)
	w.Write(body)
}
