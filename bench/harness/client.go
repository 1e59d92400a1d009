package main

import (
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// newTransport returns a loopback HTTP transport that keeps enough idle
// connections for every benchmark client, so no run pays for reconnecting.
func newTransport(conns int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// newClient builds an SDK client for one endpoint without reading the
// environment or shared config: the figures must not depend on who runs them.
// Retries are off so that throttling or errors show up as errors, not as
// hidden extra requests.
func newClient(endpoint string, hc *http.Client) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("bench", "bench", ""),
		BaseEndpoint: aws.String(endpoint),
		HTTPClient:   hc,
		Retryer:      aws.NopRetryer{},
	})
}

// inProcessEndpoint is the nominal endpoint of an engine reached through
// its in-process HTTP client: no socket is opened, so no name is resolved.
const inProcessEndpoint = "http://adjl.local"

// newInProcessClient is a client for an engine in this process, configured
// as adjl's own local backend is: unsigned requests (the engine checks no
// signature), retries off as in newClient.
func newInProcessClient(hc *http.Client) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  aws.AnonymousCredentials{},
		BaseEndpoint: aws.String(inProcessEndpoint),
		HTTPClient:   hc,
		Retryer:      aws.NopRetryer{},
	})
}
