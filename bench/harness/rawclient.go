package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Client modes of the HTTP workloads. The raw client exists because on two
// shared cores the SDK client (request building, signing, item decoding)
// costs about as much CPU as the fastest server: with it the req/s ratio
// measures the load generator more than the servers.
const (
	clientRaw = "raw"
	clientSDK = "sdk"
)

// rawClient sends pre-built DynamoDB JSON 1.0 requests over a plain
// keep-alive net/http client: the same X-Amz-Target and Content-Type headers
// as the SDK and a static, well-formed but unsigned Authorization header
// (adjl's engine, moto and dynalite do not verify signatures; dynalite only
// checks the header's shape and the presence of X-Amz-Date). One rawClient
// is used by one goroutine at a time.
type rawClient struct {
	hc       *http.Client
	url      string
	date     string
	buf      []byte       // request body, rebuilt with appends
	resp     bytes.Buffer // response body, reused
	putHdr   http.Header
	queryHdr http.Header
}

// queryBody is the one-page GSI Query, the same request on every call.
var queryBody = []byte(`{"TableName":"` + queryTable + `","IndexName":"` + gsiName +
	`","KeyConditionExpression":"GSI1PK = :p","ExpressionAttributeValues":{":p":{"S":"` + queryPartition +
	`"}},"Limit":` + strconv.Itoa(pageSize) + `}`)

func newRawClient(endpoint string, hc *http.Client) *rawClient {
	now := time.Now().UTC()
	c := &rawClient{hc: hc, url: endpoint + "/", date: now.Format("20060102T150405Z")}
	auth := "AWS4-HMAC-SHA256 Credential=bench/" + now.Format("20060102") + "/us-east-1/dynamodb/aws4_request, " +
		"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + string(bytes.Repeat([]byte("0"), 64))
	hdr := func(op string) http.Header {
		return http.Header{
			"Content-Type":  {"application/x-amz-json-1.0"},
			"X-Amz-Target":  {"DynamoDB_20120810." + op},
			"X-Amz-Date":    {c.date},
			"Authorization": {auth},
		}
	}
	c.putHdr, c.queryHdr = hdr("PutItem"), hdr("Query")
	return c
}

// appendPutEdge appends the conditional PutItem of edgeItem(actor, target)
// to b: the same item, byte for byte in its attribute values, as the SDK mode sends.
func appendPutEdge(b []byte, actor, target int) []byte {
	a := appendPadded(append(make([]byte, 0, 16), "ACTOR#u"...), actor, 8)
	t := appendPadded(append(make([]byte, 0, 16), "TARGET#t"...), target, 6)
	b = append(b, `{"TableName":"`+putTable+`","Item":{"PK":{"S":"`...)
	b = append(b, a...)
	b = append(b, `"},"SK":{"S":"`...)
	b = append(b, t...)
	b = append(b, `"},"GSI1PK":{"S":"`...)
	b = append(b, t...)
	b = append(b, `"},"GSI1SK":{"S":"`...)
	b = append(b, a...)
	b = append(b, `"},"type":{"S":"follows"},"since":{"S":"2026-11-30T11:00:00Z"}},"ConditionExpression":"attribute_not_exists(PK)"}`...)
	return b
}

// appendPadded appends n in decimal, zero-padded to width digits.
func appendPadded(b []byte, n, width int) []byte {
	var d [20]byte
	s := strconv.AppendInt(d[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// PutEdge sends the conditional PutItem of a new edge and requires 200.
func (c *rawClient) PutEdge(ctx context.Context, actor, target int) error {
	c.buf = appendPutEdge(c.buf[:0], actor, target)
	resp, err := c.do(ctx, c.putHdr, c.buf)
	if err != nil {
		return fmt.Errorf("PutItem: %w", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("PutItem: read response: %w", err)
	}
	return nil
}

// QueryPage sends the one-page GSI Query and requires 200 and a body that
// scans as one JSON object with Count, a full Items array of pageSize
// objects and a LastEvaluatedKey object.
func (c *rawClient) QueryPage(ctx context.Context) error {
	resp, err := c.do(ctx, c.queryHdr, queryBody)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer resp.Body.Close()
	c.resp.Reset()
	if _, err := c.resp.ReadFrom(resp.Body); err != nil {
		return fmt.Errorf("query: read response: %w", err)
	}
	p, err := scanPage(c.resp.Bytes())
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if p.Count != pageSize || p.Items != pageSize || !p.HasNext {
		return fmt.Errorf("query returned Count %d, %d items (next page: %v), want a full page of %d with a next page",
			p.Count, p.Items, p.HasNext, pageSize)
	}
	return nil
}

// do POSTs body with hdr; a non-200 answer is an error carrying the start of
// the body (the DynamoDB error type and message).
func (c *rawClient) do(ctx context.Context, hdr http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = hdr
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	return resp, nil
}
