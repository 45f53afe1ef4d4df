package stacktest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/schemas"
)

// The integration tests send every gateway request through specCheck, so
// that schemas/openapi.yaml is checked against what the real server does,
// not only against the router: a response whose path, status, content type
// or JSON body the spec does not describe is recorded as a violation, and
// the test binary fails listing them (see SpecReport).
var (
	specOnce  sync.Once
	specCheck *specChecker
	specHTTP  *http.Client
)

// HTTPClient is the HTTP client every test request to a gateway should use:
// its transport checks each request and response against the spec.
func HTTPClient() *http.Client {
	specOnce.Do(func() {
		base := http.DefaultTransport.(*http.Transport).Clone()
		base.MaxIdleConnsPerHost = 32
		c, err := newSpecChecker(schemas.OpenAPI)
		if err != nil {
			panic("stacktest: load schemas/openapi.yaml: " + err.Error())
		}
		specCheck = c
		specHTTP = &http.Client{Transport: &specTransport{next: base, c: c}}
	})
	return specHTTP
}

// Client is a Go SDK client for the stack's gateway whose traffic is
// checked against the spec.
func (s *Stack) Client() *berth.Client {
	return berth.New(s.URL, s.Token, berth.WithHTTPClient(HTTPClient()))
}

// SpecReport lists the distinct "METHOD /spec/path STATUS" pairs checked so
// far and every violation found (each once).
func SpecReport() (pairs, violations []string) {
	HTTPClient()
	return specCheck.report()
}

type specChecker struct {
	v     validator.Validator
	model *v3.Document
	opts  *config.ValidationOptions

	mu         sync.Mutex
	pairs      map[string]bool
	violations map[string]bool
}

func newSpecChecker(spec []byte) (*specChecker, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, err
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return &specChecker{
		v: v, model: &m.Model, opts: config.NewValidationOptions(),
		pairs: map[string]bool{}, violations: map[string]bool{},
	}, nil
}

func (c *specChecker) report() (pairs, violations []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.pairs {
		pairs = append(pairs, p)
	}
	for v := range c.violations {
		violations = append(violations, v)
	}
	sort.Strings(pairs)
	sort.Strings(violations)
	return pairs, violations
}

type specTransport struct {
	next http.RoundTripper
	c    *specChecker
}

func (t *specTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// Keep a copy of a JSON request body to check it after the answer.
	var reqBody []byte
	if isJSON(req.Header.Get("Content-Type")) && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if isJSON(resp.Header.Get("Content-Type")) || isYAML(resp.Header.Get("Content-Type")) {
		// A bounded answer: read it whole, check it, hand back a copy.
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr == nil {
			t.c.check(req, reqBody, resp, body)
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
		return resp, nil
	}
	// Streams (SSE, NDJSON, log frames, tar, file bytes, WebSocket
	// upgrades) are not read here: only the route, status and content
	// type are checked.
	t.c.check(req, reqBody, resp, nil)
	return resp, nil
}

func (c *specChecker) check(req *http.Request, reqBody []byte, resp *http.Response, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req = encodeFilePath(req)
	item, errs, specPath := paths.FindPath(req, c.model, c.opts)
	if item == nil || len(errs) > 0 {
		// An unknown route answered as unknown is not the spec's business.
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return
		}
		c.fail(req, req.URL.EscapedPath(), resp.StatusCode, "no path or operation of the spec matches", errs)
		return
	}
	c.pairs[fmt.Sprintf("%s %s %d", req.Method, specPath, resp.StatusCode)] = true

	if body != nil {
		vreq := req.Clone(req.Context())
		vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
		vresp := *resp
		vresp.Body = io.NopCloser(bytes.NewReader(body))
		if _, errs := c.v.ValidateHttpResponse(vreq, &vresp); len(errs) > 0 {
			c.fail(req, specPath, resp.StatusCode, "response", errs)
		}
	} else if msg := c.streamMismatch(item, req.Method, resp); msg != "" {
		c.fail(req, specPath, resp.StatusCode, msg, nil)
	}

	// A request the server accepted must be one the spec allows; rejected
	// requests are often wrong on purpose. Only JSON or empty bodies are
	// checked (binary uploads are not read twice).
	noBody := req.Body == nil || req.Body == http.NoBody
	if resp.StatusCode < 300 && (reqBody != nil || noBody) {
		vreq := req.Clone(req.Context())
		if reqBody != nil {
			vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
		} else {
			vreq.Body = http.NoBody
		}
		if _, errs := c.v.ValidateHttpRequest(vreq); len(errs) > 0 {
			c.fail(req, specPath, resp.StatusCode, "accepted request", errs)
		}
	}
}

// streamMismatch checks what can be checked of a streamed answer: the spec
// declares its status and its content type.
func (c *specChecker) streamMismatch(item *v3.PathItem, method string, resp *http.Response) string {
	op, ok := item.GetOperations().Get(strings.ToLower(method))
	if !ok || op == nil || op.Responses == nil {
		return "no operation for the method"
	}
	r, ok := op.Responses.Codes.Get(strconv.Itoa(resp.StatusCode))
	if !ok || r == nil {
		if r = op.Responses.Default; r == nil {
			return fmt.Sprintf("status %d is not documented", resp.StatusCode)
		}
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" || r.Content == nil || r.Content.Len() == 0 {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "bad Content-Type " + ct
	}
	if _, ok := r.Content.Get(mt); !ok {
		return fmt.Sprintf("content type %s is not documented for status %d", mt, resp.StatusCode)
	}
	return ""
}

func (c *specChecker) fail(req *http.Request, path string, status int, what string, errs []*verrors.ValidationError) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s -> %d: %s", req.Method, path, status, what)
	for _, e := range errs {
		fmt.Fprintf(&b, "; %s", e.Message)
		if e.Reason != "" && e.Reason != e.Message {
			fmt.Fprintf(&b, " (%s)", e.Reason)
		}
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, " [%s: %s]", se.FieldPath, se.Reason)
		}
	}
	c.violations[b.String()] = true
}

func isJSON(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func isYAML(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/yaml"
}

// filesRoute matches the file and secret routes, whose last parameter may
// hold literal slashes.
var filesRoute = regexp.MustCompile(`^(/v1/sandboxes/[^/]+/files/|/v1/secrets/)(.+)$`)

// encodeFilePath rewrites /v1/sandboxes/n/files/a/b as
// /v1/sandboxes/n/files/a%2Fb: the spec can only describe a path parameter
// of one segment, and documents the encoded form as the same request.
func encodeFilePath(req *http.Request) *http.Request {
	m := filesRoute.FindStringSubmatch(req.URL.EscapedPath())
	if m == nil || !strings.Contains(m[2], "/") {
		return req
	}
	raw := m[1] + strings.ReplaceAll(m[2], "/", "%2F")
	path, err := url.PathUnescape(raw)
	if err != nil {
		return req
	}
	r := req.Clone(req.Context())
	r.Body = req.Body
	r.URL.Path, r.URL.RawPath = path, raw
	return r
}
