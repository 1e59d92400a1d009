package local

import (
	"io"
	"net/http"
	"strings"
)

func newRequest(target, body string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, "http://local.adjl/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Target", target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	return req, nil
}

func ioCopy(w io.Writer, r io.Reader) (int64, error) { return io.Copy(w, r) }
