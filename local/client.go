package local

import (
	"bytes"
	"io"
	"net/http"
)

// HTTPClient returns a client whose transport hands each request straight to
// ServeHTTP, with no socket, so in-process callers use the ordinary SDK code
// path (serialisation, retries, checksums) at function-call cost.
func (e *Engine) HTTPClient() *http.Client {
	return &http.Client{Transport: inProcess{e}}
}

type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	r := req
	if req.Body == nil {
		r = req.Clone(req.Context())
		r.Body = http.NoBody
	}
	t.h.ServeHTTP(rec, r)
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		Status:        http.StatusText(rec.status),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		Body:          io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()),
		Request:       req,
	}, nil
}

// recorder is a minimal http.ResponseWriter that keeps the response in memory.
type recorder struct {
	header      http.Header
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.status = code
		r.wroteHeader = true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wroteHeader = true
	return r.body.Write(p)
}
