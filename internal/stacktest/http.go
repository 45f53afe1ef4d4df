package stacktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Response is a decoded gateway answer.
type Response struct {
	Status int
	Body   []byte
	Header http.Header
}

// JSON decodes the body into v.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Code is the error code of an error answer.
func (r Response) Code() string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error.Code
}

// Do sends a request with the stack's token. body may be nil, a string
// (sent verbatim) or a value to encode as JSON.
func (s *Stack) Do(t testing.TB, method, path string, body any) Response {
	t.Helper()
	return s.DoAuth(t, "Bearer "+s.Token, method, path, body)
}

// DoAuth sends a request with the given Authorization header ("" for none).
func (s *Stack) DoAuth(t testing.TB, auth, method, path string, body any) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Body: out, Header: resp.Header}
}

// Must fails the test unless the answer has the wanted status.
func (s *Stack) Must(t testing.TB, want int, method, path string, body any) Response {
	t.Helper()
	r := s.Do(t, method, path, body)
	if r.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	return r
}

// WaitFor polls cond until it holds or the timeout passes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s (last: %s)", timeout, what, last)
}

// Status reads a sandbox's status through the gateway.
func (s *Stack) Status(t testing.TB, name string) string {
	t.Helper()
	var v struct{ Status string }
	s.Must(t, 200, "GET", "/v1/sandboxes/"+name, nil).JSON(t, &v)
	return v.Status
}

// WaitStatus waits until the sandbox has the status.
func (s *Stack) WaitStatus(t testing.TB, name, want string, timeout time.Duration) {
	t.Helper()
	WaitFor(t, timeout, fmt.Sprintf("%s to be %s", name, want), func() (bool, string) {
		st := s.Status(t, name)
		return st == want, st
	})
}
