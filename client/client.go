// Package client is the Go SDK of Berth: sandbox lifecycle calls and
// process handles (exec, then logs, wait, kill, output on the handle):
//
//	c := client.New("http://127.0.0.1:8080", token)
//	p, err := c.Sandbox("user-123").Exec(ctx, []string{"node", "--version"}, client.ExecOptions{})
//	out, err := p.Output(ctx, client.OutputOptions{})
//
// Errors from the API are *Error values; test them with errors.Is against
// the ErrorCode constants (ErrStaleProcessHandle, ErrContainerUnavailable…).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/connpool"
)

// Client talks to a Berth gateway. It is safe for concurrent use and
// reuses connections (keep-alive pooling). Unless WithHTTPClient replaces
// its HTTP client, a small call over plain HTTP is written and answered on
// the caller's goroutine over a pooled connection, which saves
// http.Transport's hand-offs to a connection's goroutines (up to a tenth
// of a millisecond a call on two vCPUs); TLS, streamed uploads, proxies
// and WebSockets take an http.Transport.
type Client struct {
	baseURL string
	token   string
	hc      *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client, whose Transport then carries
// every call. Do not set a Timeout on it: log streams and waits are long
// requests; use contexts instead.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// New returns a client for the gateway at baseURL (e.g.
// "http://127.0.0.1:8080") authenticating with the bearer token. Without
// WithHTTPClient, small plain-HTTP calls are answered on the caller's
// goroutine over pooled keep-alive connections (see Client).
func New(baseURL, token string, opts ...Option) *Client {
	c := &Client{baseURL: strings.TrimRight(baseURL, "/"), token: token}
	for _, o := range opts {
		o(c)
	}
	if c.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		// The pool dials as t does (its timeout) and keeps as many idle.
		pool := &connpool.Pool{Dial: t.DialContext, MaxIdlePerAddr: 32}
		c.hc = &http.Client{Transport: &connpool.Transport{Pool: pool, Fallback: t}}
	}
	return c
}

// rawBody marks a request body sent as bytes rather than JSON.
type rawBody []byte

// request is one API call.
type request struct {
	method string
	path   string // already escaped, starting with /v1/
	query  url.Values
	body   any    // nil, rawBody, or a value to JSON-encode
	accept string // "" means application/json
}

// send performs r and returns the response if its status is 2xx; any other
// status becomes an *Error (the body is consumed and closed).
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	u := c.baseURL + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	ctype := ""
	switch b := r.body.(type) {
	case nil:
	case rawBody:
		body, ctype = bytes.NewReader(b), "application/octet-stream"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("berth: encoding request: %w", err)
		}
		body, ctype = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	accept := "application/json"
	if r.accept != "" {
		accept = r.accept
	}
	req.Header.Set("Accept", accept)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	return c.do(req)
}

// do performs req and returns the response if its status is 2xx; any other
// status becomes an *Error (the body is consumed and closed).
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, decodeError(resp)
}

// call performs r and decodes a JSON response into out (if non-nil and the
// body is not empty). It returns the status code.
func (c *Client) call(ctx context.Context, r request, out any) (int, error) {
	resp, err := c.send(ctx, r)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("berth: decoding %s %s response: %w", r.method, r.path, err)
		}
	}
	return resp.StatusCode, nil
}

func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env api.ErrorEnvelope
	if json.Unmarshal(b, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e := fromAPI(resp.StatusCode, env.Error)
		if e.RetryAfter == 0 {
			e.RetryAfter = retryAfterHeader(resp.Header)
		}
		return e
	}
	e := &Error{Status: resp.StatusCode, RetryAfter: retryAfterHeader(resp.Header)}
	// Not our envelope (a proxy in between, say): keep what we know.
	e.Code = fmt.Sprintf("HTTP_%d", resp.StatusCode)
	e.Message = strings.TrimSpace(string(b))
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		e.Retryable = true
	}
	return e
}

// durationString renders a duration for the API ("1.5s"); the API also
// accepts numbers of seconds, but strings are unambiguous.
func durationString(d time.Duration) string { return d.String() }

// BaseURL is the gateway URL the client talks to.
func (c *Client) BaseURL() string { return c.baseURL }
